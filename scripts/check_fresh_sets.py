#!/usr/bin/env python3
"""Check the fresh answer and judgement sets (standard library only).

Usage: python3 scripts/check_fresh_sets.py [--corpus DIR] [--eval-dir DIR] [--existing-eval DIR] [--dev FILE]

One checker for the fresh sets written after the original ones (see eval/README.md):

  second set  answers-fresh-tune.jsonl + answers-fresh-heldout.jsonl, judgement-fresh.jsonl
  third set   answers-fresh3.jsonl
  fourth set  answers-fresh4.jsonl
  fifth set   answers-fresh5.jsonl
  sixth set   answers-fresh6.jsonl
  seventh set answers-fresh7.jsonl
  eighth set  answers-fresh8.jsonl (meetings of odd years)
  ninth set   answers-fresh9.jsonl (meetings of even years)

Builds on scripts/check_eval_sets.py (imported). Every answer line of every set: valid JSON, required
fields, `kind`/`source` in range, every cited file exists in the corpus and is from the item's year,
the `evidence` string occurs verbatim in the cited `source` file, every `expect_all` phrase occurs
(case-insensitive) in the evidence, every `expect_any` phrase occurs in a cited file, rate items
carry the numeric answer the existing checker reads, schedule items expect a month and amount items
a figure, the item names exactly one meeting, ids are unique and no question repeats within the set,
and no id or question collides with the sets written before it or with fomc-qa-dev. Judgement lines:
valid JSON, required fields, `expect` in range, unique ids and inputs, no collision with the
original judgement sets.

What differs between the sets (id prefix, kind counts, minutes range, total, which earlier sets'
meetings are excluded, rate items allowed or not, the expect_all limit, the fourth set's rule that
no evidence sentence is shared with any earlier set or fomc-qa-dev) is the table SETS below, not
code. Prints a summary per set and "all checks passed", or the errors and exits 1.

--eval-dir (alias --fresh) is the folder holding the fresh files (default: eval/ of this repository);
--existing-eval the folder holding the original answers/judgement tune + heldout sets (default: the
same folder); --dev the fomc-qa-dev.jsonl file (default ../shared/eval/fomc-qa-dev.jsonl beside the
repository); --corpus the FOMC documents (default ../shared/corpus/fomc).
"""

import argparse
import collections
import dataclasses
import os
import re
import sys

sys.dont_write_bytecode = True  # importing check_eval_sets leaves no scripts/__pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_eval_sets as base  # noqa: E402  (loading, field and per-row checks, tables)
from check_eval_sets import EXPECTS, KINDS, SOURCES, table  # noqa: E402

DEFAULT_EVAL = os.path.join(base.ROOT, "eval")
DEFAULT_CORPUS = base.DEFAULT_CORPUS
DEFAULT_DEV = os.path.join(base.ROOT, "..", "shared", "eval", "fomc-qa-dev.jsonl")

# Stands for the --dev file in the table below.
DEV = "fomc-qa-dev.jsonl"
ORIGINAL_ANSWERS = base.ANSWER_FILES
ORIGINAL_JUDGEMENTS = base.JUDGEMENT_FILES
SECOND_ANSWERS = ["answers-fresh-tune.jsonl", "answers-fresh-heldout.jsonl"]


@dataclasses.dataclass(frozen=True)
class Set:
    name: str
    answers: list                  # answer files checked together (ids/questions unique across them)
    id_prefix: str
    kinds: dict                    # exact number of items per kind, over the set's answer files
    minutes: tuple                 # allowed range for the number of items with source "minutes"
    total: int = None              # exact number of items, where the brief fixes it
    collide: list = ()             # answer files whose ids and questions may not recur
    exclude_meetings: list = ()    # answer files whose meetings (cites or id) may not be used
    shared_evidence: bool = True   # False: no evidence sentence may be shared with the collide files
    evidence_collide: list = None  # where set: the files evidence is checked against instead
    no_rate: bool = False          # no rate items in this set
    expect_all_max: int = None     # if set: every item needs an expectation, at most this many expect_all
    note_same_evidence: bool = False  # print a note (not an error) when two items share evidence text
    judgements: list = ()          # judgement files checked together
    judgement_prefix: str = ""
    judgement_per_expect: int = 0  # exact number of "reply" and of "answer" inputs
    judgement_collide: list = ()   # judgement files whose ids and inputs may not recur


LATER_KINDS = {"rate": 0, "decision": 14, "reason": 14, "vote": 12, "schedule": 12, "amount": 14,
               "description": 14}


def later_set(n, name, id_prefix, kinds=None, minutes=(32, 38), total=80,
              evidence_may_share_rate_sets=False):
    """A set written after the fourth, to one brief: 80 questions (about 45 statement / 35
    minutes, no rate items; `kinds`, `minutes` and `total` where items were left out), and no id,
    question or evidence sentence of any set before it (with `evidence_may_share_rate_sets`, its
    evidence may share a sentence with the rate sets, which ask for another fact of it)."""
    earlier = ORIGINAL_ANSWERS + SECOND_ANSWERS + [f"answers-fresh{k}.jsonl" for k in range(3, n)]
    return Set(name=name, answers=[f"answers-fresh{n}.jsonl"], id_prefix=id_prefix,
               kinds=kinds or LATER_KINDS, minutes=minutes, total=total,
               collide=earlier + ["rate-tune.jsonl", "rate-heldout.jsonl", DEV],
               evidence_collide=earlier if evidence_may_share_rate_sets else None,
               shared_evidence=False, no_rate=True, expect_all_max=3, note_same_evidence=True)

SETS = [
    Set(name="second set", answers=SECOND_ANSWERS, id_prefix="f-",
        kinds={"rate": 22, "decision": 14, "reason": 14, "vote": 14, "schedule": 12,
               "amount": 12, "description": 12},
        minutes=(30, 40),  # "about 35"
        collide=ORIGINAL_ANSWERS + [DEV], exclude_meetings=ORIGINAL_ANSWERS + [DEV],
        judgements=["judgement-fresh.jsonl"], judgement_prefix="j-f-", judgement_per_expect=23,
        judgement_collide=ORIGINAL_JUDGEMENTS),
    # fomc-qa-dev only asks about the policy rate, so its meetings may be reused (no rate items).
    Set(name="third set", answers=["answers-fresh3.jsonl"], id_prefix="g-",
        kinds={"rate": 0, "decision": 14, "reason": 16, "vote": 12, "schedule": 12,
               "amount": 12, "description": 14},
        minutes=(30, 34), total=80,  # about 48 statement / 32 minutes
        collide=ORIGINAL_ANSWERS + SECOND_ANSWERS + [DEV],
        exclude_meetings=ORIGINAL_ANSWERS + SECOND_ANSWERS,
        no_rate=True, expect_all_max=3, note_same_evidence=True),
    # Every meeting was used by then: meetings may be reused, evidence sentences may not.
    Set(name="fourth set", answers=["answers-fresh4.jsonl"], id_prefix="h-",
        kinds={"rate": 0, "decision": 12, "reason": 14, "vote": 10, "schedule": 10,
               "amount": 12, "description": 12},
        minutes=(27, 33), total=70,  # about 40 statement / 30 minutes
        collide=ORIGINAL_ANSWERS + SECOND_ANSWERS + ["answers-fresh3.jsonl", DEV],
        shared_evidence=False, no_rate=True, expect_all_max=3, note_same_evidence=True),
    later_set(5, "fifth set", "i-"),
    later_set(6, "sixth set", "k-"),
    later_set(7, "seventh set", "l-"),
    later_set(8, "eighth set", "m-"),
    later_set(9, "ninth set", "n-"),
    # The tenth: two writers' 40 each (2000-2011, 2012-2026); three items were left out before
    # fathom ran on it (two repeated a fifth-set evidence sentence, one expected a
    # figure in words). Its statement items may share a sentence with the rate sets, which ask
    # for another fact of it (the target), not with any answer set.
    later_set(10, "tenth set", "o-", kinds={**LATER_KINDS, "vote": 10, "amount": 13},
              minutes=(32, 40), total=77, evidence_may_share_rate_sets=True),
    # The eleventh: two writers' 40 each (2000-2012, 2013-2026), more of it from the minutes;
    # one item, about an intermeeting action its cites put at two meetings, was left out before
    # fathom ran on it.
    later_set(11, "eleventh set", "p-", kinds={**LATER_KINDS, "decision": 13},
              minutes=(36, 44), total=79),
    # The twelfth: two writers' 40 each (2000-2012, 2013-2026), 18-22 of each from the minutes,
    # at least four of each writer's seven reasons from the minutes; one vote item, whose
    # evidence (and expected names) ran across a paragraph break, was left out before fathom
    # ran on it.
    later_set(12, "twelfth set", "q-", kinds={**LATER_KINDS, "vote": 11},
              minutes=(36, 44), total=79),
    # The thirteenth: the twelfth's brief, 18-24 of each writer's 40 from the minutes, every
    # evidence within one paragraph.
    later_set(13, "thirteenth set", "r-", minutes=(36, 48)),
    # The fourteenth: the thirteenth's brief.
    later_set(14, "fourteenth set", "s-", minutes=(36, 48)),
    # The fifteenth: the thirteenth's brief.
    later_set(15, "fifteenth set", "t-", minutes=(36, 48)),
    # The sixteenth: the thirteenth's brief, up to 56 from the minutes (the statements' unused
    # sentences with a dissent, a figure or a month are used up).
    later_set(16, "sixteenth set", "u-", minutes=(36, 56)),
    # The seventeenth: the sixteenth's brief.
    later_set(17, "seventeenth set", "v-", minutes=(36, 56)),
    # The eighteenth: the sixteenth's brief.
    later_set(18, "eighteenth set", "w-", minutes=(36, 56)),
    # The nineteenth and twentieth: the sixteenth's brief, their writers given years apart
    # (2000-06 and 2013-18; 2007-12 and 2019-26) so that the two sets could be written at once.
    later_set(19, "nineteenth set", "x-", minutes=(36, 56)),
    later_set(20, "twentieth set", "y-", minutes=(36, 56)),
    # The twenty-first and twenty-second: the same brief and the same split of years.
    later_set(21, "twenty-first set", "z-", minutes=(36, 56)),
    later_set(22, "twenty-second set", "b-", minutes=(36, 56)),
    # The twenty-third and twenty-fourth: the same brief and the same split of years.
    later_set(23, "twenty-third set", "c-", minutes=(36, 56)),
    later_set(24, "twenty-fourth set", "d-", minutes=(36, 56)),
    # The twenty-fifth and twenty-sixth: the same brief and the same split of years; one
    # twenty-sixth schedule, whose only expected phrase was the month "May" (which any answer
    # saying "may" would hold), was left out before fathom ran on it.
    later_set(25, "twenty-fifth set", "e-", minutes=(36, 56)),
    later_set(26, "twenty-sixth set", "a-", kinds={**LATER_KINDS, "schedule": 11},
              minutes=(36, 56), total=79),
    # The twenty-seventh and twenty-eighth: the same brief and the same split of years, with
    # two-letter prefixes (every single letter is taken).
    later_set(27, "twenty-seventh set", "fa-", minutes=(36, 56)),
    later_set(28, "twenty-eighth set", "fb-", minutes=(36, 56)),
    # The twenty-ninth and thirtieth: the same brief and the same split of years; one
    # twenty-ninth decision, whose evidence repeated a fourteenth-set sentence behind a heading
    # ("Disclosure Policy By unanimous vote, …"), was left out before fathom ran on it.
    later_set(29, "twenty-ninth set", "fc-", kinds={**LATER_KINDS, "decision": 13},
              minutes=(36, 56), total=79),
    later_set(30, "thirtieth set", "fd-", minutes=(36, 56)),
    # The thirty-first and thirty-second: the same brief and split of years.
    later_set(31, "thirty-first set", "fe-", minutes=(36, 56)),
    later_set(32, "thirty-second set", "ff-", minutes=(36, 56)),
    # The thirty-third and thirty-fourth: the same brief and split of years.
    later_set(33, "thirty-third set", "fg-", minutes=(36, 56)),
    later_set(34, "thirty-fourth set", "fh-", minutes=(36, 56)),
    # The thirty-fifth and thirty-sixth: the same brief and split of years (the statements'
    # unused sentences are fewer each time, so more items come from the minutes).
    later_set(35, "thirty-fifth set", "fi-", minutes=(36, 58)),
    later_set(36, "thirty-sixth set", "fj-", minutes=(36, 58)),
    # The thirty-seventh and thirty-eighth: the same again; the 2019-2026 statements have barely
    # any unused sentences left, so the thirty-eighth takes one more item from the minutes.
    later_set(37, "thirty-seventh set", "fk-", minutes=(36, 60)),
    later_set(38, "thirty-eighth set", "fl-", minutes=(36, 60)),
    # The thirty-ninth and fortieth: the statements have barely any unused sentences left at
    # all (none after 2023 but two rosters), so most of both comes from the minutes.
    later_set(39, "thirty-ninth set", "fm-", minutes=(36, 62)),
    later_set(40, "fortieth set", "fn-", minutes=(36, 72)),
    # The forty-first and forty-second: no unused statement sentence is left in 2000-2006, and
    # only a few in the other years, so the minutes give nearly all of both.
    later_set(41, "forty-first set", "fo-", minutes=(36, 80)),
    later_set(42, "forty-second set", "fp-", minutes=(36, 80)),
    # The forty-third and forty-fourth: the statements are used up, so both come wholly from
    # the minutes.
    later_set(43, "forty-third set", "fq-", minutes=(36, 80)),
    later_set(44, "forty-fourth set", "fr-", minutes=(36, 80)),
]
FRESH_FILES = {name for s in SETS for name in s.answers + list(s.judgements)}

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Sentence splitting for the evidence-overlap check: a full stop ends a sentence unless it follows
# a title, a single capital initial (Jerome H. Powell, U.S.) or a common abbreviation.
ABBREV = re.compile(r"(?:\b(?:Mr|Ms|Mrs|Messrs|Dr|St|Jr|Sr|No|p\.m|a\.m|U\.S|vs|etc)|\b[A-Z])\.$")
MIN_SHARED = 20  # sentences shorter than this (fragments) are not compared


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


def meetings(row):
    """Meeting dates an item names, through its cites and its id."""
    dates = set()
    for c in row.get("cites", []):
        dates.update(DATE.findall(str(c)))
    dates.update(DATE.findall(str(row.get("id", ""))))
    return dates


class Checker(base.Checker):
    """base.Checker (JSON lines, fields, per-item and per-input checks, uniqueness) plus the
    checks against the earlier sets."""

    def __init__(self, args):
        super().__init__(args.corpus)
        self.args = args
        self._rows = {}

    def path(self, name):
        if name == DEV:
            return self.args.dev
        folder = self.args.eval_dir if name in FRESH_FILES else self.args.existing_eval
        return os.path.join(folder, name)

    def rows(self, *names):
        """(where, row) for every line of the named files; each file is read (and reported) once."""
        out = []
        for name in names:
            if name not in self._rows:
                path = self.path(name)
                if os.path.exists(path):
                    self._rows[name] = self.load(name, path)
                else:
                    self.error(name, f"file missing ({path})")
                    self._rows[name] = []
            out += self._rows[name]
        return out

    def collide(self, rows, others, key, label):
        """Flag values of `key` in rows that also occur (normalised) in the earlier sets."""
        seen = {}
        for where, norm in base.keyed(others, key):
            seen.setdefault(norm, where)
        for where, norm in base.keyed(rows, key):
            if norm in seen:
                self.error(where, f"{label} collides with existing {seen[norm]}")

    def shared_evidence(self, rows, others):
        """Flag evidence sentences of rows that occur in the evidence of the earlier sets."""
        existing_sents = {}
        existing_evidence = []
        for where, r in others:
            ev = " ".join(str(r.get("evidence", "")).split())
            existing_evidence.append((where, ev))
            for s in sentences(ev):
                if len(s) >= MIN_SHARED:
                    existing_sents.setdefault(s, where)
        for where, r in rows:
            ev = " ".join(str(r.get("evidence", "")).split())
            for s in sentences(ev):
                if len(s) < MIN_SHARED:
                    continue
                if s in existing_sents:
                    self.error(where, f"evidence sentence shared with existing {existing_sents[s]}: {s[:70]!r}")
                    continue
                for w, old in existing_evidence:
                    if s in old:
                        self.error(where, f"evidence sentence occurs inside existing evidence {w}: {s[:70]!r}")
                        break
            for s, w in existing_sents.items():
                if s in ev and s not in sentences(ev):
                    self.error(where, f"evidence contains existing evidence sentence from {w}: {s[:70]!r}")

    def check_set(self, st):
        """Check one set; print its tables; return a one-line summary."""
        print(f"\n==== {st.name}: {', '.join(st.answers + list(st.judgements))}")
        answers = {name: self.rows(name) for name in st.answers}
        all_answers = [x for name in st.answers for x in answers[name]]
        for where, row in all_answers:
            self.answer_row(where, row)
        self.unique(all_answers, "id", "id")
        self.unique(all_answers, "question", "question")
        if st.note_same_evidence:
            seen_ev = {}
            for where, r in all_answers:  # note (not an error): one sentence serving two questions
                ev = r.get("evidence")
                if ev in seen_ev:
                    print(f"note: {where} ({r.get('id')}) has the same evidence text as {seen_ev[ev]}")
                else:
                    seen_ev[ev] = f"{where} ({r.get('id')})"

        judgements = {name: self.rows(name) for name in st.judgements}
        all_judgements = [x for name in st.judgements for x in judgements[name]]
        for where, row in all_judgements:
            self.judgement_row(where, row)
        self.unique(all_judgements, "id", "id")
        self.unique(all_judgements, "input", "input")

        # ---- against the earlier sets ----
        earlier = self.rows(*st.collide)
        self.collide(all_answers, earlier, "id", "id")
        self.collide(all_answers, earlier, "question", "question")
        earlier_judgements = self.rows(*st.judgement_collide)
        self.collide(all_judgements, earlier_judgements, "id", "id")
        self.collide(all_judgements, earlier_judgements, "input", "input")
        if not st.shared_evidence:
            against = earlier if st.evidence_collide is None else self.rows(*st.evidence_collide)
            self.shared_evidence(all_answers, against)
        excluded = set()
        for _, r in self.rows(*st.exclude_meetings):
            excluded |= meetings(r)

        # ---- per item rules of this set ----
        used_dates = set()
        for where, r in all_answers:
            dates = meetings(r)
            used_dates |= dates
            if len(dates) != 1:
                self.error(where, f"item should name exactly one meeting, cites/id give {sorted(dates)}")
            for d in sorted(dates & excluded):
                self.error(where, f"meeting {d} already used by the existing answer sets")
            if not str(r.get("id", "")).startswith(st.id_prefix):
                self.error(where, f"answer id should start with {st.id_prefix!r}")
            if st.no_rate and r.get("kind") == "rate":
                self.error(where, "no rate items in this set")
            if st.expect_all_max is not None:
                if not 1 <= len(r.get("expect_all", [])) + (1 if r.get("expect_any") else 0):
                    self.error(where, "needs expect_all phrases or expect_any alternatives")
                if len(r.get("expect_all", [])) > st.expect_all_max:
                    self.error(where, f"more than {st.expect_all_max} expect_all phrases")
        for where, r in all_judgements:
            if not str(r.get("id", "")).startswith(st.judgement_prefix):
                self.error(where, f"judgement id should start with {st.judgement_prefix!r}")

        # ---- counts ----
        total = collections.Counter()
        for name in st.answers:
            counts = collections.Counter((r.get("kind"), r.get("source")) for _, r in answers[name])
            total.update(counts)
            shown = [k for k in KINDS if st.kinds.get(k) or any(kk == k for kk, _ in counts)]
            table(f"{name}: kind x source", counts, shown, SOURCES)
        for kind, n in st.kinds.items():
            have = total[(kind, "statement")] + total[(kind, "minutes")]
            if have != n:
                self.error(st.name, f"{have} {kind} questions, the brief asks for {n}")
        if st.total is not None and len(all_answers) != st.total:
            self.error(st.name, f"{len(all_answers)} questions, the brief asks for {st.total}")
        if st.no_rate and any(k == "rate" for (k, s) in total):
            self.error(st.name, "rate items present")
        minutes = sum(v for (k, s), v in total.items() if s == "minutes")
        if not st.minutes[0] <= minutes <= st.minutes[1]:
            self.error(st.name, f"{minutes} questions have source minutes, outside {st.minutes}")
        years = collections.Counter(r.get("year") for _, r in all_answers)
        summary = (f"{len(all_answers)} items; {minutes} with source minutes; {len(used_dates)} meetings")
        print(f"\nanswers: {summary}; years: "
              + ", ".join(f"{y}:{n}" for y, n in sorted(years.items(), key=lambda x: str(x[0]))))

        if st.judgements:
            jcounts = collections.Counter()
            for name in st.judgements:
                for _, r in judgements[name]:
                    jcounts[(name, r.get("expect"))] += 1
            table("judgement: file x expect", jcounts, list(st.judgements), EXPECTS)
            for name in st.judgements:
                for e in EXPECTS:
                    if jcounts[(name, e)] != st.judgement_per_expect:
                        self.error(name, f"{jcounts[(name, e)]} '{e}' inputs, "
                                         f"the brief asks for {st.judgement_per_expect}")
            summary += f"; {len(all_judgements)} judgement inputs"
        return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS, help="folder of FOMC documents")
    ap.add_argument("--eval-dir", "--fresh", dest="eval_dir", default=DEFAULT_EVAL,
                    help="folder holding the fresh files (default: eval/ of this repository)")
    ap.add_argument("--existing-eval", default=None,
                    help="folder holding answers/judgement-{tune,heldout}.jsonl (default: --eval-dir)")
    ap.add_argument("--dev", default=DEFAULT_DEV, help="fomc-qa-dev.jsonl")
    args = ap.parse_args()
    if args.existing_eval is None:
        args.existing_eval = args.eval_dir
    if not os.path.isdir(args.corpus):
        print(f"corpus folder not found: {args.corpus}", file=sys.stderr)
        return 2
    ck = Checker(args)
    summaries = [(st, ck.check_set(st)) for st in SETS]

    print("\nsummary:")
    for st, summary in summaries:
        print(f"  {st.name:<11} ({st.id_prefix}): {summary}")
    return ck.report()


if __name__ == "__main__":
    sys.exit(main())
