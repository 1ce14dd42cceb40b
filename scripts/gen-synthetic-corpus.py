#!/usr/bin/env python3
"""Writes N synthetic dated documents for measuring what a large corpus costs the index.

Usage: scripts/gen-synthetic-corpus.py OUT_DIR [N=100000] [SEED=1]

Each document is a Markdown file named YYYY-MM-DD_doc<n>.md under OUT_DIR/<year>/, with a title
heading and three paragraphs (about 250 words in all) drawn from a fixed vocabulary with a
Zipf-like skew, so BM25 sees realistic term statistics. The same N and SEED always give the
same files. Standard library only.
"""
import os
import random
import sys

WORDS = """committee inflation rate policy market growth labor employment price energy bank credit
housing investment consumer spending export import dollar treasury security yield bond reserve
balance sheet liquidity outlook risk forecast quarter annual survey index wage productivity
capacity manufacturing service sector business household income saving debt loan mortgage
deposit currency exchange trade deficit surplus fiscal budget tax revenue expenditure government
agency board member chair vote decision statement minutes meeting staff projection model data
report analysis review research study evidence estimate measure target range level path pace
stance guidance communication expectation survey participant district region city state nation
economy recovery recession expansion contraction cycle trend shock supply demand cost margin
profit earnings equity stock share asset value volatility spread premium term maturity horizon
river harbor railway bridge canal engine factory garden forest mountain island village museum
theatre festival archive compass meadow quarry glacier vineyard granary copper velvet lantern
""".split()


def zipf_word(rng):
    # Rank r is drawn with probability ~ 1/r: a few words are common, most are rare.
    r = int(len(WORDS) ** rng.random())
    return WORDS[min(r, len(WORDS)) - 1]


def paragraph(rng, words):
    out = []
    for i in range(words):
        w = zipf_word(rng)
        out.append(w.capitalize() if i == 0 else w)
        if i % 14 == 13 and i + 1 < words:
            out[-1] += "."
    return " ".join(out) + "."


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    for i in range(n):
        year = 1990 + i % 36
        month = 1 + (i // 36) % 12
        day = 1 + (i // 432) % 28
        folder = os.path.join(out, str(year))
        os.makedirs(folder, exist_ok=True)
        paragraphs = [paragraph(rng, rng.randint(60, 110)) for _ in range(3)]
        text = f"# Report {i} on the {zipf_word(rng)} {zipf_word(rng)}\n\n" + "\n\n".join(paragraphs) + "\n"
        name = f"{year:04d}-{month:02d}-{day:02d}_doc{i}.md"
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
