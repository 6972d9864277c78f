#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Interop test: files vmpack writes, read by readers that share no code with
# vmpack. Usage: interop.sh KIND TESTGEN SHARED_DIR WORK_DIR [VMPACK_CONVERT]
#   safetensors: the json + numpy reader (read_safetensors.py) and, when
#     SHARED_DIR/iree-tools exists, IREE's iree-dump-parameters;
#   gguf: npm's @huggingface/gguf (installed with npm into WORK_DIR) through
#     read_gguf.mjs;
#   gguf-iree: the same on a file of the types IREE reads, plus IREE's
#     iree-dump-parameters.
# KIND-shards (safetensors-shards, gguf-shards, gguf-iree-shards): the same
# sample split by VMPACK_CONVERT --max-shard-size into a
# Hugging Face shard set with its index, or a gguf-split set, read as a set
# by the same readers (the index by read_safetensors.py, the GGUF files by
# @huggingface/gguf's ggufAllShards) and file by file by IREE.
# Exits 77 (CTest's skip code) when no reader is available, saying why.
set -euo pipefail
kind=$1 testgen=$2 shared=$3 work=$4 convert=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
base=${kind%-shards}
ext=${base%-iree}
file="$work/sample.$ext"
"$testgen" "$base" "$file"
if [ "$base" != "$kind" ]; then
  # Small shards, so that the set has many files and some hold one tensor.
  rm -rf "$work/shards" && mkdir -p "$work/shards"
  "$convert" -q "$file" \
    -o "$work/shards/sample.$ext" --max-shard-size=300
  if [ "$ext" = safetensors ]; then
    file="$work/shards/sample.safetensors.index.json"
  else
    file=$(ls "$work"/shards/sample-00001-of-*.gguf)
  fi
fi

iree="$shared/iree-tools/iree-dump-parameters"
if [ ! -x "$iree" ]; then
  echo "note: $iree not found; skipping IREE's reader (it lives in ../shared)"
  iree=""
fi

case "$base" in
safetensors)
  python=""
  for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then
      python=$p
      break
    fi
  done
  if [ -z "$python" ]; then
    echo "SKIP: no python3 with numpy (Debian: python3-numpy)"
    exit 77
  fi
  "$python" "$here/read_safetensors.py" "$file" $iree
  ;;
gguf | gguf-iree)
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "SKIP: node and npm are needed for @huggingface/gguf"
    exit 77
  fi
  version=0.4.6
  modules="$work/npm/node_modules"
  if [ ! -f "$modules/@huggingface/gguf/package.json" ] ||
     ! grep -q "\"version\": \"$version\"" "$modules/@huggingface/gguf/package.json"; then
    if ! npm install --prefix "$work/npm" --no-audit --no-fund --silent \
         "@huggingface/gguf@$version"; then
      echo "SKIP: npm could not install @huggingface/gguf@$version"
      exit 77
    fi
  fi
  if [ "$base" = gguf ]; then iree=""; fi
  node "$here/read_gguf.mjs" "$modules" "$file" $iree
  ;;
*)
  echo "unknown kind $kind"
  exit 2
  ;;
esac
