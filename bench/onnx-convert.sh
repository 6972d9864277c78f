#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# 7B-shaped f16 weights through ONNX: vmpack-convert's time against cp of
# the same bytes, and its peak anonymous memory (bench/peak_anon.py).
# Usage: bench/onnx-convert.sh BUILD_DIR [DIR]
#
# Writes a safetensors file with Llama 2 7B's tensor shapes (hidden 4096,
# 32 layers, feed-forward 11008, vocabulary 32000; 291 tensors, 13.5 GB of
# f16 whose bytes repeat a 64 MiB random buffer), and from it, with
# vmpack-convert, model.onnx with its weights in model.onnx.data. Then,
# after a warm-up run of each, ROUNDS (default 5) rounds of
#   onnx:     vmpack-convert model.onnx -o out.safetensors
#   template: vmpack-convert in.safetensors --onnx-template=model.onnx
#             -o out.onnx (and out.onnx.data)
# each against cp of the file it writes (out.safetensors, or
# out.onnx.data), each into a new file after a sync, the order alternating
# from round to round; the medians, ranges and the ratio of each round, and
# the peak anonymous memory of one more run of each under peak_anon.py.
# Every file is deleted at the end. It needs about 4 x 13.5 GB of disk.
set -euo pipefail
build=$1 dir=${2:-${TMPDIR:-/tmp}} rounds=${ROUNDS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "$dir/vmpack-onnx-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[ -x "$python" ] || python=python3
convert=$build/bin/vmpack-convert

"$python" - "$work/in.safetensors" <<'PY'
import json, sys
import numpy as np
h, ff, layers, vocab = 4096, 11008, 32, 32000
tensors = [("model.embed_tokens.weight", [vocab, h])]
for i in range(layers):
    p = f"model.layers.{i}."
    tensors += [(p + "input_layernorm.weight", [h]),
                (p + "post_attention_layernorm.weight", [h])]
    for name, shape in [("self_attn.q_proj", [h, h]),
                        ("self_attn.k_proj", [h, h]),
                        ("self_attn.v_proj", [h, h]),
                        ("self_attn.o_proj", [h, h]),
                        ("mlp.gate_proj", [ff, h]), ("mlp.up_proj", [ff, h]),
                        ("mlp.down_proj", [h, ff])]:
        tensors.append((p + name + ".weight", shape))
tensors += [("model.norm.weight", [h]), ("lm_head.weight", [vocab, h])]
header, offset = {}, 0
for name, shape in tensors:
    n = int(np.prod(shape)) * 2
    header[name] = {"dtype": "F16", "shape": shape,
                    "data_offsets": [offset, offset + n]}
    offset += n
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
noise = np.random.default_rng(1).integers(0, 256, 64 << 20, dtype=np.uint8)
noise[1::2] &= 0xBF  # finite f16: clear the top exponent bit
with open(sys.argv[1], "wb") as f:
    f.write(len(text).to_bytes(8, "little") + text)
    for name, shape in tensors:
        n = int(np.prod(shape)) * 2
        while n > 0:
            k = min(n, len(noise))
            f.write(noise[:k].tobytes())
            n -= k
PY
"$convert" -q "$work/in.safetensors" -o "$work/model.onnx"

. "$root/bench/timing.sh"

bench_case "onnx (external data) -> safetensors" "$work/out.safetensors" \
  "$convert" -q "$work/model.onnx" -o "$work/out.safetensors"
bench_case "safetensors --onnx-template -> onnx" "$work/out.onnx.data" \
  "$convert" -q "$work/in.safetensors" --onnx-template="$work/model.onnx" \
  -o "$work/out.onnx"
