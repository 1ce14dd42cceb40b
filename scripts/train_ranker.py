#!/usr/bin/env python3
"""Fit synthesize's learned model (assets/ranker.json) from what fathom recorded on the question sets.

The model has two parts, fitted one after the other because the second reads the first:

  classifier  what kind of question it is (rate, decision, reason, vote, schedule, amount,
              description), from the question's vector and the word rules' reading;
  ranker      which candidate sentences answer it, from their features, per kind read.

Usage (S = the statements' data dir and corpus, A = the whole corpus's; see docs/benchmarks.md):
  fathom eval --qa eval/answers-tune.jsonl --answers --candidates OUT/tune.cand.jsonl ...
  python3 scripts/train_ranker.py classifier --items eval/answers-*.jsonl ... \
      --candidates OUT/*.cand.jsonl --out MODEL.json
  FATHOM_RANKER_WEIGHTS=MODEL.json fathom eval ... --candidates OUT2/...   # recorded anew
  python3 scripts/train_ranker.py ranker --items ... --candidates OUT2/*.cand.jsonl --out MODEL.json
  python3 scripts/train_ranker.py {classifier,ranker} --items ... --candidates ... --cv

Needs numpy (nothing else). `ranker --out` keeps the classifier the file holds; `classifier --out`
writes a file without a ranker (the candidates' features change with the kinds read, so a ranker
is fitted anew after it).

The classifier learns from every recorded question with a kind (`kind`, or `rate` for the rate
sets' items): the question's vector and the rules' reading (one-hot, times 3) into a softmax
regression with an L2 penalty, fitted by full-batch Adam from zero (deterministic).

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

--cv: for each set (an --items file), fits on the others and reads that set: the classifier's
kinds against the rules' (right when they name the item's kind; `guidance` counts as a decision);
the ranker's first k sentences (k = 4 asked why, else 3), how often they hold the evidence and
how often they state every expected phrase (the eval's check, on the sentences alone), against
the score fathom gave in the recording.
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

CLASSES = ["rate", "decision", "reason", "vote", "schedule", "amount", "description"]
RULES = ["rate", "decision", "reason", "vote", "schedule", "amount", "guidance", "description",
         "other"]
RULE_SCALE = 3.0


def kind_of(item):
    if item.get("kind"):
        return item["kind"]
    if "change_bp" in item or "answer_value_upper" in item:
        return "rate"
    return None


def load_questions(items_files, cand_files):
    items = load_items(items_files)
    qs = {}
    model = None
    for f in cand_files:
        for line in open(f, encoding="utf-8"):
            d = json.loads(line)
            item = items.get(d["id"])
            cands = d.get("candidates") or {}
            vec = cands.get("question_vector")
            if item is None or vec is None or kind_of(item) not in CLASSES:
                continue
            model = model or cands.get("model")
            qs[d["id"]] = dict(item=item, v=np.array(vec, dtype=np.float64),
                               rules=cands["rules_read"], y=CLASSES.index(kind_of(item)))
    return list(qs.values()), model


def class_design(qs):
    r = np.zeros((len(qs), len(RULES)))
    for i, q in enumerate(qs):
        r[i, RULES.index(q["rules"])] = RULE_SCALE
    return np.hstack([np.vstack([q["v"] for q in qs]), r])


def fit_classifier(qs, lam, steps=2000, lr=0.05):
    X = class_design(qs)
    Y = np.zeros((len(qs), len(CLASSES)))
    Y[np.arange(len(qs)), [q["y"] for q in qs]] = 1.0
    W = np.zeros((X.shape[1], len(CLASSES)))
    b = np.zeros(len(CLASSES))
    m = [np.zeros_like(W), np.zeros_like(b)]
    v = [np.zeros_like(W), np.zeros_like(b)]
    for t in range(1, steps + 1):
        z = X @ W + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - Y) / len(qs)
        grads = [X.T @ g + lam * W, g.sum(0)]
        for k, (param, grad) in enumerate(zip((W, b), grads)):
            m[k] = 0.9 * m[k] + 0.1 * grad
            v[k] = 0.999 * v[k] + 0.001 * grad * grad
            param -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return W, b


def classify(model, qs):
    W, b = model
    return (class_design(qs) @ W + b).argmax(1)


def export_classifier(model):
    W, b = model
    dim = W.shape[0] - len(RULES)
    weights = []
    for k in range(len(CLASSES)):
        w = list(W[:dim, k]) + list(W[dim:, k] * RULE_SCALE)
        weights.append([round(float(x), 6) for x in w])
    return {"kinds": CLASSES, "bias": [round(float(x), 6) for x in b], "weights": weights,
            "rules": RULES}


def rules_right(q):
    rule = "decision" if q["rules"] == "guidance" else q["rules"]
    return rule == CLASSES[q["y"]]


def cv_classifier(qs, lam):
    groups = sorted({q["item"]["group"] for q in qs})
    tot = collections.Counter()
    for g in groups:
        test = [q for q in qs if q["item"]["group"] == g]
        pred = classify(fit_classifier([q for q in qs if q["item"]["group"] != g], lam), test)
        c = collections.Counter(n=len(test), learned=int(sum(p == q["y"] for p, q in zip(pred, test))),
                                rules=sum(rules_right(q) for q in test))
        tot.update(c)
        print(f"{g:16s} n={c['n']:3d}  learned {c['learned']:3d}   rules {c['rules']:3d}", flush=True)
    print(f"{'all':16s} n={tot['n']:3d}  learned {tot['learned'] / tot['n']:.3f}   rules "
          f"{tot['rules'] / tot['n']:.3f}")


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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("part", choices=["classifier", "ranker"])
    ap.add_argument("--items", nargs="+", required=True,
                    help="question sets (eval/answers-*.jsonl, eval/rate-tune.jsonl)")
    ap.add_argument("--candidates", nargs="+", required=True,
                    help="what `fathom eval --candidates` wrote for them")
    ap.add_argument("--out", help="the model file to write (assets/ranker.json)")
    ap.add_argument("--cv", action="store_true", help="leave one set out instead of writing")
    ap.add_argument("--l2", type=float, help="L2 penalty (default: classifier 1e-4, ranker 5e-2)")
    ap.add_argument("--steps", type=int, default=1500, help="ranker's Adam steps (default 1500)")
    args = ap.parse_args()
    if not args.cv and not args.out:
        sys.exit("--out FILE or --cv")
    if args.part == "classifier":
        lam = 1e-4 if args.l2 is None else args.l2
        qs, embedding_model = load_questions(args.items, args.candidates)
        if not qs:
            sys.exit("no recorded question vectors: were they recorded with the embedding model?")
        print(f"{len(qs)} questions", file=sys.stderr)
        if args.cv:
            cv_classifier(qs, lam)
            return
        write(args.out, {"model": prefix(embedding_model),
                         "classifier": export_classifier(fit_classifier(qs, lam)),
                         "ranker": None})
        return
    lam = 5e-2 if args.l2 is None else args.l2
    qs, embedding_model = load(args.items, args.candidates)
    if not qs:
        sys.exit("no usable candidates: were they recorded with the embedding model?")
    qs = [q for q in qs if q["y"].any()]
    names = qs[0]["names"]
    print(f"{len(qs)} questions with the evidence among their candidates, "
          f"{sum(len(q['rows']) for q in qs)} candidates", file=sys.stderr)
    if args.cv:
        cv(qs, lam, args.steps)
        return
    model = {"model": prefix(embedding_model), "classifier": None, "ranker": None}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            kept = json.load(f)
        if kept.get("model") == model["model"]:
            model["classifier"] = kept.get("classifier")
    model["ranker"] = export(fit(qs, lam, args.steps), names)
    write(args.out, model)


if __name__ == "__main__":
    main()
