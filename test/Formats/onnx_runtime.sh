#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs onnx_runtime.py (its arguments passed on) with a python3 that has the
# onnx package (Debian: python3-onnx) and numpy; exits 77 (CTest's skip
# code), saying why, when there is none.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import onnx, numpy' 2>/dev/null; then
    exec "$p" "$here/onnx_runtime.py" "$@"
  fi
done
echo "SKIP: no python3 with the onnx package and numpy (Debian: python3-onnx)"
exit 77
