#!/usr/bin/env bash
# `make bench-compare`: fathom's release build and the Python stack a user would pick instead
# (sentence-transformers + rank_bm25 + numpy, ../shared/tools/py_baseline.py), back to back on the
# same 224 FOMC statements and the same 110 questions, then one table with the ratios. Absolute
# figures on a shared machine vary by 2x between runs; the ratios of one run are what count.
#
# The Python venv (about 6 GB with PyTorch) is installed once under ~/.cache/fathom-bench/venv.
# FATHOM_BIN=path skips the release build and measures that binary instead.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
threads=${THREADS:-2}
venv=${FATHOM_BENCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/fathom-bench/venv}
cache=${FATHOM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fathom}
model=${FATHOM_MODEL_DIR:-$cache/models/all-MiniLM-L6-v2}
qa=$shared/eval/fomc-qa-dev.jsonl

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sentence_transformers, rank_bm25, numpy" 2>/dev/null; then
  echo "installing the Python baseline (sentence-transformers rank_bm25 numpy) into $venv ..."
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check sentence-transformers rank_bm25 numpy
fi

if [ -z "${FATHOM_BIN:-}" ]; then
  cargo build --release --quiet
  FATHOM_BIN=./target/release/fathom
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp "$shared"/corpus/fomc/*_statement.md "$work/corpus/"
echo "indexing $(ls "$work/corpus" | wc -l) statements with $FATHOM_BIN ..."
"$FATHOM_BIN" --data-dir "$work/data" --corpus "$work/corpus" index >/dev/null
echo "fathom bench ..."
"$FATHOM_BIN" --data-dir "$work/data" bench --json --queries "$qa" --rounds 1 \
  --embed-chunks 100000 >"$work/fathom.json"
echo "Python baseline ..."
"$venv/bin/python" scripts/py_baseline_stats.py "$shared/tools/py_baseline.py" "$model" \
  "$work/corpus" "$qa" --threads "$threads" 2>/dev/null >"$work/python.json"

python3 - "$work/fathom.json" "$work/python.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
rows = [
    ("embedding throughput (tokens/s)", f["embed_tokens_per_s"], p["embed_tokens_per_s"], "higher is better"),
    ("query p50, hybrid incl. embedding (ms)", f["query_ms"]["p50"], p["query_ms_p50"], "lower is better"),
    ("query p95 (ms)", f["query_ms"]["p95"], p["query_ms_p95"], "lower is better"),
    ("query embedding alone, p50 (ms)", f["stage_median_ms"]["embed"], None, ""),
    ("peak RSS (MB)", f["peak_rss_mb"], p["peak_rss_mb"], "lower is better"),
]
print(f"\nfathom ({f['embed_runtime']}, {f['chunks']} chunks) vs Python ({p['chunks']} chunks, {p['threads']} threads), {f['queries']} / {p['questions']} queries")
print(f"{'figure':42} {'fathom':>10} {'python':>10} {'fathom/python':>14}")
for name, a, b, note in rows:
    ratio = f"{a / b:.2f}x" if a is not None and b else "-"
    bs = f"{b:,.1f}" if b is not None else "-"
    print(f"{name:42} {a:>10,.1f} {bs:>10} {ratio:>14}  {note}")
print(f"QA hit@5 on the statements: Python {p['qa_hit5']} (fathom's: `fathom eval --qa`)")
PY
