#!/usr/bin/env python3
"""Check the multi-document evaluation set (eval/multidoc-*.jsonl) against the FOMC corpus.

Stdlib only. Errors (exit status 1): a line that is not a JSON object, a missing or unknown field,
an intent or source out of range, a cited file that does not exist, a figure or `expect_all` phrase
that does not occur verbatim (case-insensitive) in the files cited for it, a duplicate id or
question, a `source` that does not match the cited files, too few questions of an intent.

`source` must be the smallest set of document kinds that answers every side, preferring
statements: a side is answerable from a kind when it cites a file of that kind and every one of its
figures occurs in a cited file of that kind; "statements" when statements answer every side,
otherwise "minutes" when minutes do, otherwise "both". A question "needs minutes" when its source is
"minutes" or "both".

Warnings (printed, exit status unchanged): a cited file that states none of its side's figures
(often a minutes file whose fraction characters were lost), a cited file dated outside `period`.

Usage: scripts/check_multidoc_set.py [--corpus DIR] [FILE ...]
Defaults: eval/multidoc-tune.jsonl eval/multidoc-heldout.jsonl, corpus ../shared/corpus/fomc
(both relative to the repository root, i.e. the parent of this script's directory).
"""

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

INTENTS = ("factual", "trend", "comparative", "causal", "multi_part", "aggregate", "exploratory")
SOURCES = ("statements", "minutes", "both")
REQUIRED = ("id", "intent", "question", "sides", "expect_all", "period", "source")
OPTIONAL = ("notes",)
SIDE_KEYS = ("label", "cites", "figures")
# Minimum questions per intent in each file (the set's brief).
MIN_PER_FILE = {
    "factual": 2,
    "trend": 3,
    "comparative": 3,
    "multi_part": 3,
    "aggregate": 3,
    "causal": 2,
    "exploratory": 2,
}
MIN_QUESTIONS_PER_FILE = 24
MIN_NEEDING_MINUTES = 10
# Intents whose answer spans several meetings or parts, so a single side would be a mistake.
MULTI_SIDE_INTENTS = ("trend", "comparative", "multi_part", "aggregate")
# Intents that range over a span of time, so they must say which span.
PERIOD_INTENTS = ("trend", "aggregate")
CITE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})_(statement|minutes)\.md$")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MAX_FIGURE_WORDS = 6


class Corpus:
    """Lower-cased text of the corpus files, read once each."""

    def __init__(self, root: Path):
        self.root = root
        self._text = {}

    def exists(self, name: str) -> bool:
        return (self.root / name).is_file()

    def text(self, name: str) -> str:
        if name not in self._text:
            self._text[name] = (self.root / name).read_text(encoding="utf-8").lower()
        return self._text[name]


def parse_date(value):
    try:
        return datetime.date.fromisoformat(value)
    except (TypeError, ValueError):
        return None


def check_line(obj, where, corpus, errors, warnings):
    """Validate one question; return (intent, source, needs_minutes) or None when unusable."""
    if not isinstance(obj, dict):
        errors.append(f"{where}: not a JSON object")
        return None
    for key in REQUIRED:
        if key not in obj:
            errors.append(f"{where}: missing field '{key}'")
    for key in obj:
        if key not in REQUIRED and key not in OPTIONAL:
            errors.append(f"{where}: unknown field '{key}'")
    if any(key not in obj for key in REQUIRED):
        return None

    qid, intent, source = obj["id"], obj["intent"], obj["source"]
    if not isinstance(qid, str) or not ID_RE.match(qid):
        errors.append(f"{where}: id must be lower-case letters, digits and '-': {qid!r}")
    where = f"{where} ({qid})"
    if intent not in INTENTS:
        errors.append(f"{where}: intent {intent!r} not one of {', '.join(INTENTS)}")
    if source not in SOURCES:
        errors.append(f"{where}: source {source!r} not one of {', '.join(SOURCES)}")
    if not isinstance(obj["question"], str) or len(obj["question"].strip()) < 10:
        errors.append(f"{where}: question must be a non-trivial string")
    if "notes" in obj and not isinstance(obj["notes"], str):
        errors.append(f"{where}: notes must be a string")

    period = obj["period"]
    start = end = None
    if period is None:
        if intent in PERIOD_INTENTS:
            errors.append(f"{where}: a {intent} question needs a period [start, end]")
    elif (
        isinstance(period, list)
        and len(period) == 2
        and all(parse_date(p) for p in period)
    ):
        start, end = parse_date(period[0]), parse_date(period[1])
        if start > end:
            errors.append(f"{where}: period starts after it ends")
    else:
        errors.append(f"{where}: period must be null or two ISO dates, got {period!r}")

    sides = obj["sides"]
    if not isinstance(sides, list) or not sides:
        errors.append(f"{where}: sides must be a non-empty list")
        return None
    if intent in MULTI_SIDE_INTENTS and len(sides) < 2:
        errors.append(f"{where}: a {intent} question needs at least two sides")

    all_cites = []
    # Per side, the document kinds that answer it on their own (see the module docstring).
    side_answerable = []
    labels = set()
    for n, side in enumerate(sides, 1):
        swhere = f"{where} side {n}"
        if not isinstance(side, dict):
            errors.append(f"{swhere}: not an object")
            continue
        for key in SIDE_KEYS:
            if key not in side:
                errors.append(f"{swhere}: missing field '{key}'")
        for key in side:
            if key not in SIDE_KEYS:
                errors.append(f"{swhere}: unknown field '{key}'")
        if any(key not in side for key in SIDE_KEYS):
            continue
        label, cites, figures = side["label"], side["cites"], side["figures"]
        if not isinstance(label, str) or not label.strip():
            errors.append(f"{swhere}: label must be a non-empty string")
        elif label in labels:
            errors.append(f"{swhere}: label {label!r} repeated")
        else:
            labels.add(label)
        swhere = f"{where} side {label!r}"
        if not isinstance(cites, list) or not cites:
            errors.append(f"{swhere}: cites must be a non-empty list")
            continue
        names = [c for c in cites if isinstance(c, str)]
        if len(set(names)) != len(names):
            errors.append(f"{swhere}: a file is cited twice")
        good = []
        for cite in cites:
            m = CITE_RE.match(cite) if isinstance(cite, str) else None
            if not m:
                errors.append(f"{swhere}: cite {cite!r} is not YYYY-MM-DD_statement|minutes.md")
                continue
            if not corpus.exists(cite):
                errors.append(f"{swhere}: cited file {cite} not in {corpus.root}")
                continue
            good.append(cite)
            day = parse_date(m.group(1))
            if start and end and not start <= day <= end:
                warnings.append(f"{swhere}: {cite} lies outside the period {period}")
        all_cites.extend(good)
        if not isinstance(figures, list) or not all(isinstance(f, str) for f in figures):
            errors.append(f"{swhere}: figures must be a list of strings")
            continue
        answerable = set()
        for kind in ("statement", "minutes"):
            files = [c for c in good if c.endswith(f"_{kind}.md")]
            if files and all(any(f.lower() in corpus.text(c) for c in files) for f in figures):
                answerable.add(kind)
        side_answerable.append(answerable)
        if len(set(f.lower() for f in figures)) != len(figures):
            errors.append(f"{swhere}: a figure is listed twice")
        for fig in figures:
            words = len(fig.split())
            if not 1 <= words <= MAX_FIGURE_WORDS:
                errors.append(f"{swhere}: figure {fig!r} has {words} words (1-{MAX_FIGURE_WORDS})")
            if "\ufffd" in fig:
                errors.append(f"{swhere}: figure {fig!r} contains U+FFFD")
            if good and not any(fig.lower() in corpus.text(c) for c in good):
                errors.append(f"{swhere}: figure {fig!r} occurs in none of {good}")
        if figures:
            for cite in good:
                text = corpus.text(cite)
                if not any(fig.lower() in text for fig in figures):
                    warnings.append(f"{swhere}: {cite} states none of the figures {figures}")

    expect_all = obj["expect_all"]
    if not isinstance(expect_all, list) or not all(isinstance(p, str) for p in expect_all):
        errors.append(f"{where}: expect_all must be a list of strings")
    else:
        for phrase in expect_all:
            if not phrase.strip():
                errors.append(f"{where}: empty expect_all phrase")
            elif all_cites and not any(phrase.lower() in corpus.text(c) for c in all_cites):
                errors.append(f"{where}: expect_all {phrase!r} occurs in no cited file")

    derived = None
    if side_answerable:
        if all("statement" in a for a in side_answerable):
            derived = "statements"
        elif all("minutes" in a for a in side_answerable):
            derived = "minutes"
        else:
            derived = "both"
        if source in SOURCES and source != derived:
            errors.append(f"{where}: source is {source!r} but the cited files make it {derived!r}")
    if intent not in INTENTS or source not in SOURCES:
        return None
    return intent, source, source in ("minutes", "both")


def check_file(path, corpus, seen_ids, seen_questions, errors, warnings):
    counts = {}
    total = 0
    needing_minutes = 0
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        errors.append(f"{path}: cannot read: {err}")
        return counts, total, needing_minutes
    for n, line in enumerate(lines, 1):
        where = f"{path.name}:{n}"
        if not line.strip():
            errors.append(f"{where}: blank line")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            errors.append(f"{where}: invalid JSON: {err}")
            continue
        result = check_line(obj, where, corpus, errors, warnings)
        if isinstance(obj, dict):
            qid = obj.get("id")
            if isinstance(qid, str):
                if qid in seen_ids:
                    errors.append(f"{where}: id {qid!r} already used at {seen_ids[qid]}")
                else:
                    seen_ids[qid] = where
            question = obj.get("question")
            if isinstance(question, str):
                key = " ".join(question.lower().split())
                if key in seen_questions:
                    errors.append(f"{where}: question repeats {seen_questions[key]}")
                else:
                    seen_questions[key] = where
        if result is None:
            continue
        intent, source, needs_minutes = result
        total += 1
        counts[(intent, source)] = counts.get((intent, source), 0) + 1
        needing_minutes += needs_minutes
    for intent, least in MIN_PER_FILE.items():
        have = sum(v for (i, _), v in counts.items() if i == intent)
        if have < least:
            errors.append(f"{path.name}: {have} {intent} question(s), need at least {least}")
    if total < MIN_QUESTIONS_PER_FILE:
        errors.append(f"{path.name}: {total} questions, need at least {MIN_QUESTIONS_PER_FILE}")
    return counts, total, needing_minutes


def print_table(name, counts, total, needing_minutes):
    print(f"\n{name}: {total} questions, {needing_minutes} need minutes (source minutes or both)")
    header = f"  {'intent':<12}" + "".join(f"{s:>12}" for s in SOURCES) + f"{'total':>8}"
    print(header)
    for intent in INTENTS:
        row = [counts.get((intent, s), 0) for s in SOURCES]
        print(f"  {intent:<12}" + "".join(f"{v:>12}" for v in row) + f"{sum(row):>8}")
    col = [sum(counts.get((i, s), 0) for i in INTENTS) for s in SOURCES]
    print(f"  {'total':<12}" + "".join(f"{v:>12}" for v in col) + f"{sum(col):>8}")


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=root / ".." / "shared" / "corpus" / "fomc")
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        default=[root / "eval" / "multidoc-tune.jsonl", root / "eval" / "multidoc-heldout.jsonl"],
    )
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"error: corpus directory {args.corpus} not found", file=sys.stderr)
        return 2
    corpus = Corpus(args.corpus.resolve())
    errors, warnings = [], []
    seen_ids, seen_questions = {}, {}
    tables = []
    minutes_total = 0
    for path in args.files:
        counts, total, needing = check_file(path, corpus, seen_ids, seen_questions, errors, warnings)
        tables.append((path.name, counts, total, needing))
        minutes_total += needing
    if minutes_total < MIN_NEEDING_MINUTES:
        errors.append(
            f"{minutes_total} questions need minutes across all files, need at least {MIN_NEEDING_MINUTES}"
        )
    for name, counts, total, needing in tables:
        print_table(name, counts, total, needing)
    print(f"\nall files: {sum(t[2] for t in tables)} questions, {minutes_total} need minutes")
    for w in warnings:
        print(f"warning: {w}")
    for e in errors:
        print(f"error: {e}")
    print(f"\n{len(errors)} error(s), {len(warnings)} warning(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
