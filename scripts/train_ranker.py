#!/usr/bin/env python3
"""Fit synthesize's learned ranker (assets/ranker.json) from what fathom recorded on the question sets.

Usage (S = the statements' data dir and corpus, A = the whole corpus's; see docs/benchmarks.md):
  fathom S eval --qa eval/answers-tune.jsonl --answers --source statement \
      --candidates OUT/tune-st.cand.jsonl                  # and so on for each set and source
  python3 scripts/train_ranker.py --items eval/answers-*.jsonl --candidates OUT/*.cand.jsonl \
      --out assets/ranker.json
  python3 scripts/train_ranker.py --items ... --candidates ... --cv

Needs numpy (nothing else). Record the candidates with the model the file holds emptied
(`{"model": "", "ranker": null}` via FATHOM_RANKER_WEIGHTS): the features do not depend on it,
but the recorded scores (the --cv baseline) are then the hand-weighted ones.

The ranker learns from every candidate sentence synthesize considered for a question (its
features), labelled 1 when it is part of the item's `evidence` (the sentence the writer copied
the answer from) and 0 otherwise. Questions read as asking for the policy rate are left out
(their own rules answer them), as are questions none of whose candidates is evidence (nothing to
rank). Per kind of question read, a bias and a weight per feature on top of weights shared by
every kind; class-weighted logistic regression with an L2 penalty, fitted by full-batch Adam from
zero (deterministic). Features are standardised while fitting and the scaling is folded back into
the weights written. (A weight per dimension of the sentence's vector as well was tried and left
out: in leave-one-set-out it did not help, 0.935 against 0.941 of questions whose first
sentences state the answer.)

--cv: for each set (an --items file), fits on the others and reads that set: the ranker's first
k sentences (k = 4 asked why, else 3), how often they hold the evidence and how often they
state every expected phrase (the eval's check, on the sentences alone), against the scores
fathom recorded.
"""

import argparse
import collections
import json
import os
import re
import sys

import numpy as np

KINDS = ["decision", "reason", "vote", "schedule", "amount", "guidance", "description", "other"]


def norm(text):
    text = re.sub(r"\[\d+\]", "", text)
    for a, b in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'),
                 ("\u2013", "-"), ("\u2014", "-"), ("\u2011", "-")):
        text = text.replace(a, b)
    return " ".join(text.lower().split())


def states(answer, item):
    a = norm(answer)
    return all(norm(p) in a for p in item.get("expect_all", [])) and (
        not item.get("expect_any") or any(norm(p) in a for p in item["expect_any"]))


def load_items(items_files):
    items = {}
    for f in items_files:
        group = os.path.basename(f).removeprefix("answers-").removesuffix(".jsonl")
        for line in open(f, encoding="utf-8"):
            if line.strip():
                d = json.loads(line)
                d["group"] = group
                items[d["id"]] = d
    return items

def load(items_files, cand_files):
    items = load_items(items_files)
    qs = []
    model = None
    for f in cand_files:
        for line in open(f, encoding="utf-8"):
            d = json.loads(line)
            item = items.get(d["id"])
            cands = d.get("candidates") or {}
            rows = cands.get("rows") or []
            if item is None or d.get("asks") in (None, "rate") or not rows:
                continue
            if rows[0].get("features") is None:
                continue
            model = model or cands.get("model")
            names = cands["features"]
            evidence = norm(item["evidence"])
            y = np.array([1.0 if (norm(r["text"]) in evidence or evidence in norm(r["text"]))
                          else 0.0 for r in rows])
            qs.append(dict(item=item, asks=d["asks"], rows=rows, y=y,
                           x=np.array([r["features"] for r in rows], dtype=np.float64),
                           hand=np.array([r["score"] for r in rows], dtype=np.float64),
                           names=names))
    return qs, model


def design(q, mu, sd):
    """Rows: [standardised features, the same in the question's kind's block, kind indicator]."""
    n, f = q["x"].shape
    k = KINDS.index(q["asks"])
    z = (q["x"] - mu) / sd
    per_kind = np.zeros((n, f * len(KINDS)))
    per_kind[:, k * f:(k + 1) * f] = z
    ind = np.zeros((n, len(KINDS)))
    ind[:, k] = 1.0
    return np.hstack([z, per_kind, ind])


def fit(qs, lam, steps=1500, lr=0.05):
    x_all = np.vstack([q["x"] for q in qs])
    mu = x_all.mean(0)
    sd = x_all.std(0)
    sd[sd == 0] = 1.0
    X = np.vstack([design(q, mu, sd) for q in qs])
    y = np.concatenate([q["y"] for q in qs])
    pos = y.sum()
    w_row = np.where(y > 0, len(y) / (2 * pos), len(y) / (2 * (len(y) - pos))) / len(y)
    nf = X.shape[1]
    penal = np.ones(nf)
    penal[-len(KINDS):] = 0.0  # no penalty on the kinds' biases
    beta = np.zeros(nf)
    b0 = 0.0
    m = np.zeros(nf + 1)
    v = np.zeros(nf + 1)
    for t in range(1, steps + 1):
        p = 1.0 / (1.0 + np.exp(-(X @ beta + b0)))
        g = w_row * (p - y)
        grad = np.concatenate([X.T @ g + lam * penal * beta, [g.sum()]])
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        step = lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        beta -= step[:-1]
        b0 -= step[-1]
    return dict(beta=beta, b0=b0, mu=mu, sd=sd)


def scores(model, q):
    return design(q, model["mu"], model["sd"]) @ model["beta"] + model["b0"]


def export(model, names):
    """Weights on raw features: w/sd per feature, the means folded into each kind's bias."""
    f = len(names)
    beta, mu, sd = model["beta"], model["mu"], model["sd"]
    shared = beta[:f] / sd
    out = {"features": names, "shared": rounded(shared), "asks": {}}
    for k, kind in enumerate(KINDS):
        own = beta[f + k * f:f + (k + 1) * f] / sd
        bias = model["b0"] + beta[f + f * len(KINDS) + k] - float(((shared + own) * mu).sum())
        out["asks"][kind] = {"bias": round(float(bias), 6), "features": rounded(own)}
    return out


def rounded(ws):
    return [round(float(w), 6) for w in ws]


def top_k(q, s):
    k = 4 if q["asks"] == "reason" else 3
    order = np.argsort(-s, kind="stable")[:k]
    return bool(q["y"][order].any()), states(" ".join(q["rows"][i]["text"] for i in order),
                                               q["item"])


def cv(qs, lam, steps):
    groups = sorted({q["item"]["group"] for q in qs})
    tot = collections.Counter()
    for g in groups:
        test = [q for q in qs if q["item"]["group"] == g]
        model = fit([q for q in qs if q["item"]["group"] != g], lam, steps)
        c = collections.Counter()
        for q in test:
            le, ls = top_k(q, scores(model, q))
            he, hs = top_k(q, q["hand"])
            c.update(n=1, learned_evidence=le, learned_states=ls, hand_evidence=he,
                     hand_states=hs)
        tot.update(c)
        print(f"{g:16s} n={c['n']:3d}  learned: evidence {c['learned_evidence']:3d} states "
              f"{c['learned_states']:3d}   recorded: evidence {c['hand_evidence']:3d} states "
              f"{c['hand_states']:3d}", flush=True)
    n = tot["n"]
    print(f"{'all':16s} n={n:3d}  learned: evidence {tot['learned_evidence'] / n:.3f} states "
          f"{tot['learned_states'] / n:.3f}   recorded: evidence {tot['hand_evidence'] / n:.3f} "
          f"states {tot['hand_states'] / n:.3f}")


def prefix(embedding_model):
    return ":".join((embedding_model or "").split(":")[:1]) + ":"


def write(path, model):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"wrote {path}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", nargs="+", required=True,
                    help="question sets (eval/answers-*.jsonl)")
    ap.add_argument("--candidates", nargs="+", required=True,
                    help="what `fathom eval --candidates` wrote for them")
    ap.add_argument("--out", help="the model file to write (assets/ranker.json)")
    ap.add_argument("--cv", action="store_true", help="leave one set out instead of writing")
    ap.add_argument("--l2", type=float, default=5e-2, help="L2 penalty (default 5e-2)")
    ap.add_argument("--steps", type=int, default=1500, help="Adam steps (default 1500)")
    args = ap.parse_args()
    if not args.cv and not args.out:
        sys.exit("--out FILE or --cv")
    qs, embedding_model = load(args.items, args.candidates)
    if not qs:
        sys.exit("no usable candidates: were they recorded with the embedding model?")
    qs = [q for q in qs if q["y"].any()]
    names = qs[0]["names"]
    print(f"{len(qs)} questions with the evidence among their candidates, "
          f"{sum(len(q['rows']) for q in qs)} candidates", file=sys.stderr)
    if args.cv:
        cv(qs, args.l2, args.steps)
        return
    write(args.out, {"model": prefix(embedding_model),
                     "ranker": export(fit(qs, args.l2, args.steps), names)})


if __name__ == "__main__":
    main()
