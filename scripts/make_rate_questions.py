#!/usr/bin/env python3
"""Generate federal-funds-rate questions for every FOMC statement in the corpus.

For each `YYYY-MM-DD_statement.md` in ../shared/corpus/fomc/ this writes the two kinds of
question that ../shared/eval/fomc-qa-dev.jsonl has, with its templates and field order:

  ffr-YYYY-MM-DD  "What target for the federal funds rate did the FOMC announce on <date>?"
                  ("What target range ..." when the target is a range, as in the dev set),
                  answer ("6-1/2 percent", "0 to 1/4 percent"), answer_value_upper/lower (percent)
  act-YYYY-MM-DD  "Did the FOMC raise, lower, or leave unchanged its federal funds rate target
                  on <date>, and by how much?"  answer ("raised by 25 basis points",
                  "lowered by 50 basis points", "left unchanged"), change_bp (signed int)

How the truth is derived, from the statements alone:
- Target: the first sentence of the statement (dissents and "preferred" sentences excluded) that
  ties a figure to the target ("target for the federal funds rate ... to/at X percent", "target
  range ... at/to/of X to Y percent", "the current X to Y percent target range", "target rate of
  X percent", "in a target range of X to Y percent"). Every such sentence must agree. The answer
  is the figure as written, with "1 3/4" normalised to "1-3/4" as the dev set does; the
  evidence is that sentence, verbatim (a substring of one paragraph of the file).
- Change: the target minus the target of the previous statement in date order (unscheduled
  meetings included; statements that state no target are passed over). Ranges are compared
  bound by bound (both bounds must move by the same amount; dev: 1 to 1-1/4 -> 0 to 1/4 is
  -100). Rule for a move between a single target and a range (dev has no example; the corpus
  has one, 1 percent -> 0 to 1/4 percent on 2008-12-16): the change is measured to the range's
  UPPER bound, so 2008-12-16 is "lowered by 75 basis points" (-75; the lower bound would give
  -100, and the move is often quoted as "75 to 100 basis points").
  Where the sentence states the size ("by 50 basis points", "1/2 percentage point") or the
  direction ("to raise", "to lower"), it must agree with the computed change; disagreements are
  printed to stderr. The first statement in the corpus has no predecessor: its stated size is used.
- A statement that states no target gets no ffr item, and an act item only if it says the target
  was left unchanged (in this corpus none does); every skip is printed to stderr.

Items whose id is in fomc-qa-dev.jsonl are left out. Meetings with at least one remaining item
are taken in date order and assigned alternately (1st, 3rd, ... -> eval/rate-tune.jsonl; 2nd,
4th, ... -> eval/rate-heldout.jsonl), all items of a meeting to the same file. Deterministic:
re-running regenerates both files byte for byte.
"""
import datetime
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "fomc"
DEV = ROOT.parent / "shared" / "eval" / "fomc-qa-dev.jsonl"
OUT_TUNE = ROOT / "eval" / "rate-tune.jsonl"
OUT_HELDOUT = ROOT / "eval" / "rate-heldout.jsonl"

FFR_Q = "What target{} for the federal funds rate did the FOMC announce on {}?"  # " range" if a range
ACT_Q = ("Did the FOMC raise, lower, or leave unchanged its federal funds rate target on {}, "
         "and by how much?")

NUM = r"(?:\d+[- ])?\d/\d|\d+"
RATE = rf"(?P<lo>{NUM})(?: to (?P<hi>{NUM}))? percent"
SIZE = r"(?P<size>\d+(?:\.\d+)?|\d/\d) (?P<unit>basis points?|percentage point)"
TARGET_PATTERNS = [
    re.compile(rf"target (?:range )?for the federal funds rate(?: unchanged)?"
               rf"(?: (?:by )?{SIZE},?)?(?: (?:at|to|of))? {RATE}"),
    re.compile(rf"(?:current|the) {RATE} target range for the federal funds rate"),
    re.compile(rf"(?:target rate|in a target range) of {RATE}"),
]
EXCLUDE = re.compile(r"preferred|Voting against|dissent", re.I)
UNCHANGED = re.compile(r"\b(?:keep|maintain|leave)\w* (?:its |the )?target\b.*\bunchanged\b", re.I)


def num(text):
    """'1-3/4' or '1 3/4' -> Fraction(7, 4)."""
    return sum(Fraction(part) for part in re.split(r"[- ]", text))


def sentences(text):
    """Sentences of each paragraph (headings skipped); each is a verbatim substring of text."""
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if para.startswith("#"):
            continue
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"“])|(?<=[a-z])(?=The Federal Open)", para):
            yield s.strip().lstrip("\"“")


def find_target(text):
    """(sentence, lower, upper, answer, stated size in bp or None, verb or None), or None."""
    found = []
    for s in sentences(text):
        if EXCLUDE.search(s):
            continue
        for pat in TARGET_PATTERNS:
            m = pat.search(s)
            if not m:
                continue
            lo_txt, hi_txt = m["lo"], m["hi"]
            size = None
            if "size" in m.re.groupindex and m["size"]:
                size = Fraction(m["size"]) * (1 if m["unit"].startswith("basis") else 100)
            verb = re.search(r"\bto (raise|lower)\b", s[:m.start()])
            answer = " to ".join(x.replace(" ", "-") for x in (lo_txt, hi_txt) if x) + " percent"
            lo = num(lo_txt)
            found.append((s, lo, num(hi_txt) if hi_txt else lo, answer, size,
                          verb.group(1) if verb else None))
            break
    if not found:
        return None
    if len({(f[1], f[2]) for f in found}) > 1:
        print(f"WARNING: sentences state different targets: {found}", file=sys.stderr)
    return found[0]


def main():
    dev_ids = {json.loads(line)["id"] for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()}
    items = {}  # date -> list of items
    prev = None  # (lower, upper) of the previous statement stating a target
    for path in sorted(CORPUS.glob("*_statement.md")):
        date = path.name[:10]
        d = datetime.date.fromisoformat(date)
        when = f"{d:%B} {d.day}, {d.year}"
        text = path.read_text(encoding="utf-8")
        cites = [path.name]
        t = find_target(text)
        out = []
        if t is None:
            print(f"SKIP ffr-{date}: statement states no federal funds rate target", file=sys.stderr)
            s = next((s for s in sentences(text) if UNCHANGED.search(s)), None)
            if s is None:
                print(f"SKIP act-{date}: statement does not say the target was left unchanged",
                      file=sys.stderr)
            else:
                out.append({"id": f"act-{date}", "question": ACT_Q.format(when),
                            "answer": "left unchanged", "change_bp": 0, "cites": cites,
                            "evidence": s, "year": d.year})
        else:
            s, lo, hi, answer, size, verb = t
            out.append({"id": f"ffr-{date}", "question": FFR_Q.format(" range" if hi != lo else "", when),
                        "answer": answer,
                        "answer_value_upper": float(hi), "answer_value_lower": float(lo),
                        "cites": cites, "evidence": s, "year": d.year})
            if prev is None:
                if size is None or verb is None:
                    print(f"SKIP act-{date}: no previous statement and no stated change", file=sys.stderr)
                    change = None
                else:
                    change = int(size) * (1 if verb == "raise" else -1)
                    print(f"NOTE act-{date}: first statement, change taken from its stated size",
                          file=sys.stderr)
            else:
                d_lo, d_hi = (lo - prev[0]) * 100, (hi - prev[1]) * 100
                if prev[0] != prev[1] and lo != hi and d_lo != d_hi:
                    print(f"DISAGREE act-{date}: bounds moved by {d_lo} and {d_hi} bp", file=sys.stderr)
                change = int(d_hi)  # single -> range: upper bound (see docstring)
                if size is not None and size != abs(change):
                    print(f"DISAGREE act-{date}: statement says {size} bp, computed {change} bp",
                          file=sys.stderr)
                sign = (change > 0) - (change < 0)
                if verb and {"raise": 1, "lower": -1}[verb] != sign:
                    print(f"DISAGREE act-{date}: statement says {verb}, computed {change} bp", file=sys.stderr)
                elif not verb and sign:
                    print(f"NOTE act-{date}: statement states neither size nor direction; "
                          f"computed {change} bp", file=sys.stderr)
                elif not sign and not re.search(r"keep|maintain|unchanged|reaffirm", s):
                    print(f"NOTE act-{date}: target restated without a decision; computed 0 bp",
                          file=sys.stderr)
            if change is not None:
                how = ("left unchanged" if change == 0 else
                       f"{'raised' if change > 0 else 'lowered'} by {abs(change)} basis points")
                out.append({"id": f"act-{date}", "question": ACT_Q.format(when), "answer": how,
                            "change_bp": change, "cites": cites, "evidence": s, "year": d.year})
            prev = (lo, hi)
        for it in out:
            assert it["evidence"] in text, it["id"]
        out = [it for it in out if it["id"] not in dev_ids]
        if out:
            items[date] = out
    files = {OUT_TUNE: [], OUT_HELDOUT: []}
    for i, date in enumerate(sorted(items)):
        files[OUT_TUNE if i % 2 == 0 else OUT_HELDOUT].extend(items[date])
    for path, rows in files.items():
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} items to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
