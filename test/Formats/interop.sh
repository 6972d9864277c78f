#!/usr/bin/env bash
# Interop test: files vmpack writes, read by readers that share no code with
# vmpack. Usage: interop.sh KIND TESTGEN SHARED_DIR WORK_DIR
#   KIND safetensors: the json + numpy reader (read_safetensors.py) and, when
#   SHARED_DIR/iree-tools exists, IREE's iree-dump-parameters.
# Exits 77 (CTest's skip code) when no reader is available, saying why.
set -euo pipefail
kind=$1 testgen=$2 shared=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
file="$work/sample.$kind"
"$testgen" "$kind" "$file"

iree="$shared/iree-tools/iree-dump-parameters"
if [ ! -x "$iree" ]; then
  echo "note: $iree not found; skipping IREE's reader (it lives in ../shared)"
  iree=""
fi

case "$kind" in
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
*)
  echo "unknown kind $kind"
  exit 2
  ;;
esac
