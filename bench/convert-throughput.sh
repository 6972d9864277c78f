#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Byte-aligned conversion throughput of vmpack-convert against cp of the
# same bytes. Usage: bench/convert-throughput.sh BUILD_DIR [GIB] [DIR]
#
# Writes a safetensors file of GIB GiB of bf16 tensors (256 MiB each) with
# json + numpy, then times, each after a warm-up run with a warm page cache:
# cp of the file, and vmpack-convert safetensors -> gguf, gguf -> safetensors
# and safetensors -> vmpk; ONNX with external data (written by vmpack, each
# tensor 4096-aligned in model.onnx.data) -> safetensors, and safetensors
# through --onnx-template into a model with external data. Every file is
# deleted at the end.
set -euo pipefail
build=$1 gib=${2:-4} dir=${3:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$dir/vmpack-convert-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" - "$work/in.safetensors" "$gib" <<'PY'
import json, sys
import numpy as np
path, gib = sys.argv[1], int(sys.argv[2])
n = gib * 4
each = 256 << 20
header = {"__metadata__": {"format": "pt"}}
for i in range(n):
    header["w%d" % i] = {"dtype": "BF16", "shape": [each // 2],
                         "data_offsets": [i * each, (i + 1) * each]}
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
rng = np.random.default_rng(1)
with open(path, "wb") as f:
    f.write(len(text).to_bytes(8, "little") + text)
    for i in range(n):
        f.write(rng.integers(0, 256, each, dtype=np.uint8).tobytes())
PY
size=$(stat -c %s "$work/in.safetensors")
run() { # name command...
  local name=$1
  shift
  "$@" > /dev/null 2>&1 # warm-up (and page cache)
  rm -f "$work/out"*
  sync
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  python3 -c "import sys; t=$end-$start; print('%-34s %6.2f s  %6.2f GB/s' % (sys.argv[1], t, $size/t/1e9))" "$name"
}
echo "input: $size bytes"
run "cp" cp "$work/in.safetensors" "$work/out.copy"
run "safetensors -> gguf" "$build/bin/vmpack-convert" -q "$work/in.safetensors" -o "$work/out.gguf"
"$build/bin/vmpack-convert" -q "$work/in.safetensors" -o "$work/mid.gguf"
run "gguf -> safetensors" "$build/bin/vmpack-convert" -q "$work/mid.gguf" -o "$work/out.safetensors"
run "safetensors -> vmpk (CRC-32 of all)" "$build/bin/vmpack-convert" -q "$work/in.safetensors" -o "$work/out.vmpk"
"$build/bin/vmpack-convert" -q "$work/in.safetensors" -o "$work/mid.onnx"
run "onnx (external data) -> safetensors" "$build/bin/vmpack-convert" -q "$work/mid.onnx" -o "$work/out.safetensors"
run "safetensors --onnx-template -> onnx" "$build/bin/vmpack-convert" -q "$work/in.safetensors" --onnx-template="$work/mid.onnx" -o "$work/out.onnx"
