#!/usr/bin/env python3
"""Reference sentence embeddings for tests/embed.rs, computed without candle.

Implements the BERT encoder forward pass, attention-masked mean pooling and L2 normalisation in
plain numpy (float64 arithmetic on the float32 weights), reading the weights with `safetensors`
and tokenising with Hugging Face `tokenizers`. The numbers it prints are hard-coded in
tests/embed.rs; rerun it to regenerate them:

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install numpy safetensors tokenizers
    /tmp/refvenv/bin/python scripts/reference_embeddings.py [MODEL_DIR]

MODEL_DIR defaults to $FATHOM_MODEL_DIR, else $FATHOM_CACHE_DIR/models/all-MiniLM-L6-v2, else
~/.cache/fathom/models/all-MiniLM-L6-v2 (the folder `make model` installs).
"""

import json
import math
import os
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "The Federal Reserve lowered the target range for the federal funds rate to 0 to 1/4 percent.",
    "A cat sat on the mat.",
]
MAX_TOKENS = 256
COMPONENTS = 8

_erf = np.frompyfunc(math.erf, 1, 1)


def model_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    if os.environ.get("FATHOM_MODEL_DIR"):
        return os.environ["FATHOM_MODEL_DIR"]
    if os.environ.get("FATHOM_CACHE_DIR"):
        return os.path.join(os.environ["FATHOM_CACHE_DIR"], "models", "all-MiniLM-L6-v2")
    return os.path.expanduser("~/.cache/fathom/models/all-MiniLM-L6-v2")


def gelu(x):
    # The exact (erf) GELU, as BERT's "gelu" activation.
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def layer_norm(x, w, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def linear(x, weights, prefix):
    # PyTorch layout: weight is [out, in].
    return x @ weights[prefix + ".weight"].T + weights[prefix + ".bias"]


def embed(text, tok, weights, cfg):
    enc = tok.encode(text)
    ids = np.array(enc.ids)
    type_ids = np.array(enc.type_ids)
    n = len(ids)
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = cfg["layer_norm_eps"]

    x = (
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.position_embeddings.weight"][np.arange(n)]
        + weights["embeddings.token_type_embeddings.weight"][type_ids]
    )
    x = layer_norm(x, weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"], eps)

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = linear(x, weights, p + "attention.self.query").reshape(n, heads, head_dim).transpose(1, 0, 2)
        k = linear(x, weights, p + "attention.self.key").reshape(n, heads, head_dim).transpose(1, 0, 2)
        v = linear(x, weights, p + "attention.self.value").reshape(n, heads, head_dim).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head_dim)  # [heads, n, n]; no padding here
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(n, hidden)
        attn = layer_norm(
            linear(ctx, weights, p + "attention.output.dense") + x,
            weights[p + "attention.output.LayerNorm.weight"],
            weights[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inter = gelu(linear(attn, weights, p + "intermediate.dense"))
        x = layer_norm(
            linear(inter, weights, p + "output.dense") + attn,
            weights[p + "output.LayerNorm.weight"],
            weights[p + "output.LayerNorm.bias"],
            eps,
        )

    mask = np.array(enc.attention_mask, dtype=np.float64)[:, None]
    pooled = (x * mask).sum(axis=0) / mask.sum()
    return pooled / np.linalg.norm(pooled), enc.ids


def main():
    d = model_dir()
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    weights = {k: v.astype(np.float64) for k, v in load_file(os.path.join(d, "model.safetensors")).items()}
    weights = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in weights.items()}
    tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)

    vecs = []
    for s in SENTENCES:
        v, ids = embed(s, tok, weights, cfg)
        vecs.append(v)
        print(f"text:   {s!r}")
        print(f"tokens: {len(ids)} {ids}")
        print(f"norm:   {np.linalg.norm(v):.6f}")
        print("first:  [" + ", ".join(f"{c:.6f}" for c in v[:COMPONENTS]) + "]")
    print(f"cosine: {float(vecs[0] @ vecs[1]):.6f}")


if __name__ == "__main__":
    main()
