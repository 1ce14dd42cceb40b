#!/usr/bin/env python3
"""Check the fourth fresh answer set, answers-fresh4.jsonl (standard library only).

Usage: python3 check_fresh4.py [--corpus DIR] [--fresh DIR] [--existing-eval DIR] [--dev FILE]

Adapted from scripts/check_fresh3_set.py for answers-fresh4.jsonl. Same checks as that
script (verbatim evidence, expect_all in evidence, expect_any in a cited file, cited files exist,
unique ids, no repeated question, no id/question collision with the existing sets), without its rule
excluding meetings used by other sets, and in addition: no evidence sentence is shared with any
evidence of the existing answer sets (eval/answers-*.jsonl and fomc-qa-dev.jsonl), ids start with
"h-", and the kind counts match the brief (decision 12, reason 14, vote 10, schedule 10, amount 12,
description 12; about 30 minutes items).

Adapted from scripts/check_fresh_sets.py for one answer file and no judgement file.

Adapted from scripts/check_eval_sets.py. Checks every line of answers-fresh-{tune,heldout}.jsonl and
judgement-fresh.jsonl: valid JSON, required fields, `kind`/`source`/`expect` values in range, every
cited file exists in the corpus, every `evidence` string occurs verbatim in the `source` file,
every `expect_all` phrase occurs (case-insensitive) in the evidence, every `expect_any` phrase occurs
in a cited file, rate items carry the numeric answer the existing checker reads, ids are unique,
and no question or input is repeated. In addition: no id, question or input collides with the
existing sets (answers/judgement tune + heldout, fomc-qa-dev), no answer item uses a meeting date
that occurs in those answer sets, ids carry the "f-" / "j-f-" prefix, and the counts match the
brief (kind mix, about 35 minutes items, 23 + 23 judgement inputs). Prints a summary table and
exits non-zero on any error.
"""

import argparse
import collections
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN = ROOT
EVAL = os.path.join(ROOT, "eval")
DEFAULT_CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "fomc")
DEFAULT_EXISTING_EVAL = os.path.join(MAIN, "eval")
DEFAULT_DEV = os.path.join(ROOT, "..", "shared", "eval", "fomc-qa-dev.jsonl")

KINDS = ["rate", "decision", "reason", "vote", "schedule", "amount", "description"]
SOURCES = ["statement", "minutes"]
ANSWER_FILES = ["answers-fresh4.jsonl"]
# Every existing answer set (and fomc-qa-dev): ids and questions must not collide with these, and
# no evidence sentence may be shared with theirs. Meetings may be reused.
EXISTING_ANSWER_FILES = ["answers-tune.jsonl", "answers-heldout.jsonl",
                         "answers-fresh-tune.jsonl", "answers-fresh-heldout.jsonl",
                         "answers-fresh3.jsonl"]
ID_PREFIX = "h-"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
ANSWER_FIELDS = {
    "id": str, "kind": str, "question": str, "cites": list, "expect_all": list,
    "expect_any": list, "evidence": str, "year": int, "source": str,
}
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
# Counts the brief sets: exact per kind, no rate items; about 40 statement / 30 minutes.
EXACT_KIND = {"rate": 0, "decision": 12, "reason": 14, "vote": 10, "schedule": 10,
              "amount": 12, "description": 12}
TOTAL = 70
MINUTES_RANGE = (27, 33)
# Sentence splitting for the evidence-overlap check: a full stop ends a sentence unless it follows
# a title, a single capital initial (Jerome H. Powell, U.S.) or a common abbreviation.
ABBREV = re.compile(r"(?:\b(?:Mr|Ms|Mrs|Messrs|Dr|St|Jr|Sr|No|p\.m|a\.m|U\.S|vs|etc)|\b[A-Z])\.$")
MIN_SHARED = 20  # sentences shorter than this (fragments) are not compared
FILE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}_(statement|minutes)\.md$")


def sentences(text):
    """Split text into sentences (see ABBREV); whitespace collapsed."""
    text = " ".join(text.split())
    out, start = [], 0
    for m in re.finditer(r"[.!?][\"\u201d')]?\s+(?=[A-Z\"\u201c(\[])", text):
        head = text[start:m.start() + 1]
        if ABBREV.search(head):
            continue
        out.append(text[start:m.end()].strip())
        start = m.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def normalise(question):
    """Lower case, punctuation dropped, whitespace collapsed: catches trivially repeated questions."""
    return " ".join(re.sub(r"[^\w\s]", " ", question.lower()).split())


class Checker:
    def __init__(self, corpus):
        self.corpus = corpus
        self.errors = []
        self._texts = {}

    def error(self, where, message):
        self.errors.append(f"{where}: {message}")

    def text(self, name):
        if name not in self._texts:
            path = os.path.join(self.corpus, name)
            with open(path, encoding="utf-8") as f:
                self._texts[name] = f.read()
        return self._texts[name]

    def load(self, name, folder=None):
        path = name if os.path.isabs(name) else os.path.join(folder or EVAL, name)
        rows = []
        if not os.path.exists(path):
            self.error(name, "file missing")
            return rows
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    self.error(f"{name}:{n}", "blank line")
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    self.error(f"{name}:{n}", f"invalid JSON ({e})")
                    continue
                if not isinstance(row, dict):
                    self.error(f"{name}:{n}", "not a JSON object")
                    continue
                rows.append((f"{name}:{n}", row))
        return rows

    def fields(self, where, row, spec):
        ok = True
        for key, typ in spec.items():
            if key not in row:
                self.error(where, f"missing field {key!r}")
                ok = False
            elif not isinstance(row[key], typ) or (typ is int and isinstance(row[key], bool)):
                self.error(where, f"field {key!r} should be {typ.__name__}")
                ok = False
        return ok

    def answer_row(self, where, row):
        if not self.fields(where, row, ANSWER_FIELDS):
            return
        where = f"{where} ({row['id']})"
        kind, source = row["kind"], row["source"]
        if kind not in KINDS:
            self.error(where, f"kind {kind!r} not one of {KINDS}")
        if source not in SOURCES:
            self.error(where, f"source {source!r} not one of {SOURCES}")
        if not row["question"].strip():
            self.error(where, "empty question")
        if not row["cites"]:
            self.error(where, "no cited file")
        texts = []
        for c in row["cites"]:
            if not isinstance(c, str) or not FILE_NAME.match(c):
                self.error(where, f"cite {c!r} is not a corpus file name")
                continue
            if not os.path.exists(os.path.join(self.corpus, c)):
                self.error(where, f"cited file {c} not in corpus")
                continue
            texts.append((c, self.text(c)))
            if int(c[:4]) != row["year"]:
                self.error(where, f"cite {c} is not from year {row['year']}")
        source_cited = any(c.endswith(f"_{source}.md") for c, _ in texts)
        if texts and not source_cited:
            self.error(where, f"source is {source!r} but no {source} file is cited")
        evidence = row["evidence"]
        holders = [c for c, t in texts if evidence and evidence in t]
        if not holders:
            self.error(where, "evidence does not occur verbatim in any cited file")
        elif not any(c.endswith(f"_{source}.md") for c in holders):
            self.error(where, f"evidence is not from the {source} file")
        if "\ufffd" in evidence:
            self.error(where, "evidence contains a lost character (U+FFFD)")
        for p in row["expect_all"] + row["expect_any"]:
            if not isinstance(p, str) or not p.strip():
                self.error(where, f"bad expectation {p!r}")
        for p in row["expect_all"]:
            if isinstance(p, str) and p.lower() not in evidence.lower():
                self.error(where, f"expect_all phrase {p!r} not in evidence")
        for p in row["expect_any"]:
            if isinstance(p, str) and not any(p.lower() in t.lower() for _, t in texts):
                self.error(where, f"expect_any phrase {p!r} not in any cited file")
        if kind == "rate":
            has_level = "answer_value_lower" in row and "answer_value_upper" in row
            has_change = "change_bp" in row
            if has_level == has_change:
                self.error(where, "rate item needs either answer_value_lower/upper or change_bp")
            if has_level and not (isinstance(row["answer_value_lower"], (int, float))
                                  and isinstance(row["answer_value_upper"], (int, float))
                                  and row["answer_value_lower"] <= row["answer_value_upper"]):
                self.error(where, "answer_value_lower/upper must be numbers, lower <= upper")
            if has_change and not isinstance(row["change_bp"], int):
                self.error(where, "change_bp must be an integer")
        else:
            if not row["expect_all"] and not row["expect_any"]:
                self.error(where, "no expectation to check the answer against")
        if kind == "schedule":
            phrases = " ".join(row["expect_all"] + row["expect_any"]).lower()
            if not any(m in phrases for m in MONTHS):
                self.error(where, "schedule item does not expect a month")
        if kind == "amount":
            if not any(re.search(r"\d", p) for p in row["expect_all"] + row["expect_any"]):
                self.error(where, "amount item does not expect a figure")

    def unique(self, rows, key, label):
        seen = {}
        for where, row in rows:
            value = row.get(key)
            if not isinstance(value, str):
                continue
            norm = normalise(value) if key != "id" else value
            if norm in seen:
                self.error(where, f"{label} repeats {seen[norm]}")
            else:
                seen[norm] = where


def _collide(self, rows, others, key, label):
    """Flag values of `key` in rows that also occur (normalised) in the existing sets."""
    seen = {}
    for where, row in others:
        value = row.get(key)
        if isinstance(value, str):
            seen.setdefault(normalise(value) if key != "id" else value, where)
    for where, row in rows:
        value = row.get(key)
        if not isinstance(value, str):
            continue
        norm = normalise(value) if key != "id" else value
        if norm in seen:
            self.error(where, f"{label} collides with existing {seen[norm]}")


Checker.collide = _collide


def table(title, counts, rows, cols):
    width = max(len(r) for r in rows + ["total"]) + 2
    print(f"\n{title}")
    print("".ljust(width) + "".join(c.rjust(11) for c in cols + ["total"]))
    for r in rows + ["total"]:
        vals = [sum(counts[(rr, c)] for rr in rows) if r == "total" else counts[(r, c)] for c in cols]
        print(r.ljust(width) + "".join(str(v).rjust(11) for v in vals + [sum(vals)]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS, help="folder of FOMC documents")
    ap.add_argument("--fresh", default=os.path.join(ROOT, "eval"), help="folder holding answers-fresh4.jsonl")
    ap.add_argument("--existing-eval", default=DEFAULT_EXISTING_EVAL,
                    help="folder holding the existing answer sets")
    ap.add_argument("--dev", default=DEFAULT_DEV, help="fomc-qa-dev.jsonl")
    args = ap.parse_args()
    global EVAL
    EVAL = args.fresh
    if not os.path.isdir(args.corpus):
        print(f"corpus folder not found: {args.corpus}", file=sys.stderr)
        return 2
    ck = Checker(args.corpus)

    answers = {}
    for name in ANSWER_FILES:
        answers[name] = ck.load(name)
        for where, row in answers[name]:
            ck.answer_row(where, row)
    all_answers = [x for name in ANSWER_FILES for x in answers[name]]
    ck.unique(all_answers, "id", "id")
    ck.unique(all_answers, "question", "question")
    seen_ev = {}
    for where, r in all_answers:  # note (not an error): one sentence serving two questions
        ev = r.get("evidence")
        if ev in seen_ev:
            print(f"note: {where} ({r.get('id')}) has the same evidence text as {seen_ev[ev]}")
        else:
            seen_ev[ev] = f"{where} ({r.get('id')})"

    # ---- collisions with the existing sets ----
    existing_answers = []
    for name in EXISTING_ANSWER_FILES:
        existing_answers += ck.load(name, args.existing_eval)
    dev = ck.load(args.dev)
    ck.collide(all_answers, existing_answers + dev, "id", "id")
    ck.collide(all_answers, existing_answers + dev, "question", "question")
    # ---- evidence overlap with the existing sets (answers-* and fomc-qa-dev) ----
    existing_sents = {}
    existing_evidence = []
    for where, r in existing_answers + dev:
        ev = " ".join(str(r.get("evidence", "")).split())
        existing_evidence.append((where, ev))
        for s in sentences(ev):
            if len(s) >= MIN_SHARED:
                existing_sents.setdefault(s, where)
    for where, r in all_answers:
        ev = " ".join(str(r.get("evidence", "")).split())
        for s in sentences(ev):
            if len(s) < MIN_SHARED:
                continue
            if s in existing_sents:
                ck.error(where, f"evidence sentence shared with existing {existing_sents[s]}: {s[:70]!r}")
                continue
            for w, old in existing_evidence:
                if s in old:
                    ck.error(where, f"evidence sentence occurs inside existing evidence {w}: {s[:70]!r}")
                    break
        for s, w in existing_sents.items():
            if s in ev and s not in sentences(ev):
                ck.error(where, f"evidence contains existing evidence sentence from {w}: {s[:70]!r}")
    used_dates = set()
    for where, r in all_answers:
        dates = set()
        for c in r.get("cites", []):
            dates.update(DATE.findall(str(c)))
        dates.update(DATE.findall(str(r.get("id", ""))))
        used_dates |= dates
        if len(dates) != 1:
            ck.error(where, f"item should name exactly one meeting, cites/id give {sorted(dates)}")
        if not str(r.get("id", "")).startswith(ID_PREFIX):
            ck.error(where, f"answer id should start with {ID_PREFIX!r}")
        if r.get("kind") == "rate":
            ck.error(where, "no rate items in this set")
        if not 1 <= len(r.get("expect_all", [])) + (1 if r.get("expect_any") else 0):
            ck.error(where, "needs expect_all phrases or expect_any alternatives")
        if len(r.get("expect_all", [])) > 3:
            ck.error(where, "more than 3 expect_all phrases")

    total = collections.Counter()
    for name in ANSWER_FILES:
        counts = collections.Counter((r.get("kind"), r.get("source")) for _, r in answers[name])
        total.update(counts)
        table(f"{name}: kind x source", counts, KINDS[1:], SOURCES)
    for kind, n in EXACT_KIND.items():
        have = total[(kind, "statement")] + total[(kind, "minutes")]
        if have != n:
            ck.error("answers", f"{have} {kind} questions, the brief asks for {n}")
    if len(all_answers) != TOTAL:
        ck.error("answers", f"{len(all_answers)} questions, the brief asks for {TOTAL}")
    minutes = sum(v for (k, s), v in total.items() if s == "minutes")
    if any(k == "rate" for (k, s) in total):
        ck.error("answers", "rate items present")
    if not MINUTES_RANGE[0] <= minutes <= MINUTES_RANGE[1]:
        ck.error("answers", f"{minutes} questions have source minutes, outside {MINUTES_RANGE}")
    years = collections.Counter(r.get("year") for _, r in all_answers)
    print(f"\nanswers: {len(all_answers)} items; {minutes} with source minutes; "
          f"{len(used_dates)} meetings; years: " + ", ".join(f"{y}:{n}" for y, n in sorted(years.items())))

    if ck.errors:
        print(f"\n{len(ck.errors)} error(s):")
        for e in ck.errors:
            print("  " + e)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
