#!/usr/bin/env python3
"""Check the answer and judgement evaluation sets in eval/ (standard library only).

Usage: python3 scripts/check_eval_sets.py [--corpus DIR]

Checks every line of eval/answers-{tune,heldout}.jsonl and eval/judgement-{tune,heldout}.jsonl:
valid JSON, required fields, `kind`/`source`/`expect` values in range, every cited file exists in
the corpus, every `evidence` string occurs verbatim in at least one cited file, every `expect_all`
phrase occurs (case-insensitive) in the evidence, every `expect_any` phrase occurs in a cited file,
rate items carry the numeric answer the existing checker reads, ids are unique across tune and
heldout, and no question or input is repeated. Prints a summary table and exits non-zero on any
error.
"""

import argparse
import collections
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVAL = os.path.join(ROOT, "eval")
DEFAULT_CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "fomc")

KINDS = ["rate", "decision", "reason", "vote", "schedule", "amount", "description"]
SOURCES = ["statement", "minutes"]
EXPECTS = ["reply", "answer"]
ANSWER_FILES = ["answers-tune.jsonl", "answers-heldout.jsonl"]
JUDGEMENT_FILES = ["judgement-tune.jsonl", "judgement-heldout.jsonl"]
ANSWER_FIELDS = {
    "id": str, "kind": str, "question": str, "cites": list, "expect_all": list,
    "expect_any": list, "evidence": str, "year": int, "source": str,
}
JUDGEMENT_FIELDS = {"id": str, "input": str, "expect": str, "why": str}
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
# Minimums the brief sets over tune + heldout together.
MIN_KIND = {"rate": 40, "decision": 25, "reason": 25, "vote": 25, "schedule": 20,
            "amount": 20, "description": 15}
MIN_MINUTES = 50
MIN_JUDGEMENT_PER_FILE = 40
FILE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}_(statement|minutes)\.md$")


def normalise(question):
    """Lower case, punctuation dropped, whitespace collapsed: catches trivially repeated questions."""
    return " ".join(re.sub(r"[^\w\s]", " ", question.lower()).split())


def keyed(rows, key):
    """(where, value) for every row whose `key` is a string; the value normalised unless key is "id"."""
    for where, row in rows:
        value = row.get(key)
        if isinstance(value, str):
            yield where, (normalise(value) if key != "id" else value)


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

    def load(self, name, path=None):
        """(where, row) for every line of eval/`name` (or of `path`, if given)."""
        if path is None:
            path = os.path.join(EVAL, name)
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

    def judgement_row(self, where, row):
        if not self.fields(where, row, JUDGEMENT_FIELDS):
            return
        if row["expect"] not in EXPECTS:
            self.error(f"{where} ({row['id']})", f"expect {row['expect']!r} not one of {EXPECTS}")
        if not row["input"].strip():
            self.error(f"{where} ({row['id']})", "empty input")

    def unique(self, rows, key, label):
        seen = {}
        for where, norm in keyed(rows, key):
            if norm in seen:
                self.error(where, f"{label} repeats {seen[norm]}")
            else:
                seen[norm] = where

    def report(self):
        """Print the errors, or that all checks passed; return the exit code."""
        if self.errors:
            print(f"\n{len(self.errors)} error(s):")
            for e in self.errors:
                print("  " + e)
            return 1
        print("\nall checks passed")
        return 0


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
    args = ap.parse_args()
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

    judgements = {}
    for name in JUDGEMENT_FILES:
        judgements[name] = ck.load(name)
        for where, row in judgements[name]:
            ck.judgement_row(where, row)
        if len(judgements[name]) < MIN_JUDGEMENT_PER_FILE:
            ck.error(name, f"{len(judgements[name])} inputs, fewer than {MIN_JUDGEMENT_PER_FILE}")
    all_judgements = [x for name in JUDGEMENT_FILES for x in judgements[name]]
    ck.unique(all_judgements, "id", "id")
    ck.unique(all_judgements, "input", "input")

    total = collections.Counter()
    for name in ANSWER_FILES:
        counts = collections.Counter((r.get("kind"), r.get("source")) for _, r in answers[name])
        total.update(counts)
        table(f"{name}: kind x source", counts, KINDS, SOURCES)
    table("answers, tune + heldout", total, KINDS, SOURCES)
    for kind, n in MIN_KIND.items():
        have = total[(kind, "statement")] + total[(kind, "minutes")]
        if have < n:
            ck.error("answers", f"{have} {kind} questions, fewer than {n}")
    minutes = sum(v for (k, s), v in total.items() if s == "minutes")
    if minutes < MIN_MINUTES:
        ck.error("answers", f"{minutes} questions cite minutes as source, fewer than {MIN_MINUTES}")
    tune_ids = {r.get("id") for _, r in answers[ANSWER_FILES[0]]}
    held_ids = {r.get("id") for _, r in answers[ANSWER_FILES[1]]}
    print(f"\nanswers: {len(tune_ids)} tune + {len(held_ids)} heldout = {len(tune_ids) + len(held_ids)}; "
          f"{minutes} with source minutes")

    jcounts = collections.Counter()
    for name in JUDGEMENT_FILES:
        for _, r in judgements[name]:
            jcounts[(name, r.get("expect"))] += 1
    table("judgement: file x expect", jcounts, JUDGEMENT_FILES, EXPECTS)
    return ck.report()


if __name__ == "__main__":
    sys.exit(main())
