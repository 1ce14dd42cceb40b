#!/usr/bin/env bash
# Installs fathom's fast embedding runtime, if it is missing or differs from the pinned one:
#   - the ONNX Runtime shared library, taken from PyPI's onnxruntime wheel, into
#     <cache>/onnxruntime/libonnxruntime.so;
#   - ONNX graphs of the embedding model (fp32 and int8), built from its model.safetensors by
#     scripts/build_onnx_model.py, into <model dir>/onnx/.
# Everything comes from PyPI (scripts/onnx-build-requirements.txt, pinned) into a throwaway venv,
# and every installed file is checked by sha256. Needs the model (scripts/install-model.sh) first.
# On failure fathom still works: it embeds with candle, more slowly, and says so.
set -euo pipefail

ort_version=1.32.0
lib_sha=6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f
fp32_sha=bfbd1aa63321b67dd83d965ea8d85d2546441ac25055456e3f02459c94f45e64
int8_sha=debda9f2c702912f8bf811413880e8e5950926df404b43525c5e70fc8db75fc0

here=$(cd "$(dirname "$0")" && pwd)
cache=${FATHOM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fathom}
model=${FATHOM_MODEL_DIR:-$cache/models/all-MiniLM-L6-v2}
lib=${FATHOM_EMBEDDING_ONNXRUNTIME_LIB:-$cache/onnxruntime/libonnxruntime.so}

ok() { [ -f "$2" ] && echo "$1  $2" | sha256sum -c --status; }

if ok "$lib_sha" "$lib" && ok "$fp32_sha" "$model/onnx/model.onnx" && ok "$int8_sha" "$model/onnx/model_int8.onnx"; then
  echo "ONNX runtime and graphs present: $lib, $model/onnx"
  exit 0
fi
if [ ! -f "$model/model.safetensors" ]; then
  echo "no embedding model at $model: run scripts/install-model.sh first" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "installing onnxruntime==$ort_version and onnx from PyPI into a temporary venv ..."
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/onnx-build-requirements.txt"
echo "building the ONNX graphs from $model/model.safetensors ..."
"$tmp/venv/bin/python" "$here/build_onnx_model.py" "$model" "$tmp/model.onnx" --int8 "$tmp/model_int8.onnx" 2>"$tmp/build.log" || {
  cat "$tmp/build.log" >&2
  exit 1
}
so=$(echo "$tmp"/venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so."$ort_version")
for pair in "$lib_sha:$so" "$fp32_sha:$tmp/model.onnx" "$int8_sha:$tmp/model_int8.onnx"; do
  if ! ok "${pair%%:*}" "${pair#*:}"; then
    echo "checksum mismatch for ${pair#*:}; refusing to install (fathom will embed with candle)" >&2
    exit 1
  fi
done

# Each file lands under a temporary name and is renamed into place: never half a file.
mkdir -p "$(dirname "$lib")" "$model/onnx"
cp "$so" "$lib.partial" && mv "$lib.partial" "$lib"
for f in model.onnx model_int8.onnx; do
  cp "$tmp/$f" "$model/onnx/$f.partial" && mv "$model/onnx/$f.partial" "$model/onnx/$f"
done
echo "ONNX runtime installed: $lib; graphs: $model/onnx"
