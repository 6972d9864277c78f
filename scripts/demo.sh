#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# README command (a): installs the dependencies, builds vmpack, and runs the
# main job on a built-in example. vmpack-gen writes a small llama2-shaped
# model with int4 weights (2 layers, dim 512, hidden 1376: 14 int4 matrices,
# 4 f16 norms), vmpack-compile turns it into a module archive, and
# vmpack-dump and unzip show what the module holds; the C runtime and the
# Python package print its weights, and Python prints the same weights from
# the safetensors and GGUF files vmpack-convert makes of it.
#
# The example lands in ${DEMO_DIR:-build/demo}; the build in
# ${BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
demo=${DEMO_DIR:-$build/demo}
bin=$build/bin

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "Installing dependencies"
bash "$root/scripts/install-deps.sh"

step "Building vmpack into $build"
BUILD_DIR="$build" bash "$root/scripts/build.sh"

mkdir -p "$demo"
model=$demo/llama-int4.mlirbc
module=$demo/llama-int4.vmpk

step "Generating a llama2-shaped int4 model (2 layers, dim 512, hidden 1376)"
show "$bin/vmpack-gen" --layers 2 --dim 512 --hidden 1376 --seed 1 \
  --format=mlirbc-dense -o "$model"
ls -l "$model"

pending=()
[ -x "$bin/vmpack-compile" ] || pending+=(vmpack-compile)
[ -x "$bin/vmpack-dump" ] || pending+=(vmpack-dump)
if ((${#pending[@]})); then
  step "Pending"
  echo "Not built yet: ${pending[*]}. The model above is ready; the steps"
  echo "that compile it into a module and inspect it run once these tools"
  echo "are part of the build. Built so far in $bin:"
  ls "$bin" 2>/dev/null | sed 's/^/  /'
  exit 0
fi

step "Compiling it into a module archive"
rm -f "$module"
show "$bin/vmpack-compile" "$model" -o "$module"
ls -l "$module"

step "What the module holds"
show "$bin/vmpack-dump" "$module"

step "Verifying every offset, size and checksum"
show "$bin/vmpack-dump" --verify "$module"

step "The module is also a plain ZIP archive"
show unzip -l "$module"

step "Reading it back with the C runtime: map, verify, unpack int4 to int32"
show "$bin/vmpack-example" "$module" layers.0.attention.wq

step "And with the Python package (numpy arrays over the same C runtime)"
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ -n "$python" ] && ls "$build"/python/vmpack/_vmpack*.so >/dev/null 2>&1; then
  printf '$ PYTHONPATH=%s %s examples/python/vmpack_example.py %s %s\n' \
    "$build/python" "$(basename "$python")" "$module" layers.0.attention.wq
  PYTHONPATH="$build/python" "$python" "$root/examples/python/vmpack_example.py" \
    "$module" layers.0.attention.wq
  step "The same weights from safetensors and GGUF (vmpack-convert), in Python"
  for format in safetensors gguf; do
    show "$bin/vmpack-convert" "$module" -o "$demo/llama-int4.$format"
    PYTHONPATH="$build/python" "$python" \
      "$root/examples/python/vmpack_example.py" "$demo/llama-int4.$format" \
      layers.0.attention.wq
  done
else
  echo "(the Python package is not built: it needs python3-dev, pybind11-dev"
  echo " and python3-numpy, which scripts/install-deps.sh installs)"
fi

step "And the MLIR it was compiled from (vmpack-dump --mlir, lines cut short)"
"$bin/vmpack-dump" --mlir "$module" | cut -c1-110 | head -n 14 || true

printf '\nDone: %s\n' "$module"
