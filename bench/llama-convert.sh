#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A 7B-shaped Hugging Face llama checkpoint to a llama.cpp GGUF model:
# vmpack-convert's time against cp of the output, and its peak anonymous
# memory (bench/peak_anon.py). Usage:
#   bench/llama-convert.sh BUILD_DIR [bf16|gptq|both|dequant] [DIR]
#
# dequant: the GPTQ folder below converted (untimed) to a Q4_0 GGUF, then
# timed: vmpack-convert q4_0.gguf --dequantize=f16 -o x.safetensors (13.5
# GB of f16) against cp of that output.
#
# Writes LlamaForCausalLM folders shaped like Llama 2 7B (hidden 4096, 32
# layers, 32 heads, feed-forward 11008, vocabulary 32000): bf16 weights
# (13.5 GB), or GPTQ 4-bit symmetric groups of 128 with f16 embeddings and
# output (3.9 GB; zero points 8 and equal f16 scales, so every linear
# repacks to Q4_0 exactly). The weights' bytes repeat a 64 MiB random
# buffer: conversion does not look at values beyond checking the scales.
# --no-vocab: the vocabulary is metadata, not what is measured. Then,
# after a warm-up run of each with a warm page cache, ROUNDS (default 5)
# rounds of vmpack-convert DIR -o model.gguf and cp of that output, each
# into a new file, the order alternating; the medians, ranges and the
# ratio of each round, and peak anonymous memory of one more run under
# bench/peak_anon.py. Every file is deleted at the end.
set -euo pipefail
build=$1 which=${2:-both} dir=${3:-${TMPDIR:-/tmp}} rounds=${ROUNDS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "$dir/vmpack-llama-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[ -x "$python" ] || python=python3

make_folder() { # $1 folder, $2 bf16|gptq
  "$python" - "$1" "$2" <<'PY'
import json, os, sys
import numpy as np
folder, kind = sys.argv[1], sys.argv[2]
os.makedirs(folder, exist_ok=True)
h, ff, layers, heads, vocab, group = 4096, 11008, 32, 32, 32000, 128
cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
       "vocab_size": vocab, "hidden_size": h, "intermediate_size": ff,
       "num_hidden_layers": layers, "num_attention_heads": heads,
       "num_key_value_heads": heads, "max_position_embeddings": 4096,
       "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
       "tie_word_embeddings": False}
if kind == "gptq":
    cfg["quantization_config"] = {"quant_method": "gptq", "bits": 4,
                                  "group_size": group, "desc_act": False,
                                  "sym": True, "checkpoint_format": "gptq"}
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
tensors = [("model.embed_tokens.weight", "F16" if kind == "gptq" else "BF16",
            [vocab, h])]
linears = [("self_attn.q_proj", h, h), ("self_attn.k_proj", h, h),
           ("self_attn.v_proj", h, h), ("self_attn.o_proj", h, h),
           ("mlp.gate_proj", ff, h), ("mlp.up_proj", ff, h),
           ("mlp.down_proj", h, ff)]
for i in range(layers):
    p = f"model.layers.{i}."
    tensors.append((p + "input_layernorm.weight", "BF16", [h]))
    tensors.append((p + "post_attention_layernorm.weight", "BF16", [h]))
    for name, out_f, in_f in linears:
        if kind == "gptq":
            tensors.append((p + name + ".qweight", "I32", [in_f // 8, out_f]))
            tensors.append((p + name + ".qzeros", "ZEROS",
                            [in_f // group, out_f // 8]))
            tensors.append((p + name + ".scales", "SCALES",
                            [in_f // group, out_f]))
        else:
            tensors.append((p + name + ".weight", "BF16", [out_f, in_f]))
tensors.append(("model.norm.weight", "BF16", [h]))
tensors.append(("lm_head.weight", "F16" if kind == "gptq" else "BF16",
                [vocab, h]))
size = {"BF16": 2, "F16": 2, "I32": 4, "ZEROS": 4, "SCALES": 2}
stored = {"ZEROS": "I32", "SCALES": "F16"}
header, offset = {}, 0
for name, dt, shape in tensors:
    n = int(np.prod(shape)) * size[dt]
    header[name] = {"dtype": stored.get(dt, dt), "shape": shape,
                    "data_offsets": [offset, offset + n]}
    offset += n
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
noise = np.random.default_rng(1).integers(0, 256, 64 << 20,
                                          dtype=np.uint8)
# bf16/f16 values without NaN or infinity: clear each top exponent bit.
finite = noise.copy()
finite[1::2] &= 0xBF
zeros = np.full(16 << 20, 0x77, dtype=np.uint8)  # v1: stored 7 = zero 8
scale = np.frombuffer(np.full(8 << 20, 0.01, np.float16).tobytes(), np.uint8)
with open(os.path.join(folder, "model.safetensors"), "wb") as f:
    f.write(len(text).to_bytes(8, "little") + text)
    for name, dt, shape in tensors:
        n = int(np.prod(shape)) * size[dt]
        src = {"ZEROS": zeros, "SCALES": scale, "I32": noise}.get(dt, finite)
        while n > 0:
            k = min(n, len(src))
            f.write(src[:k].tobytes())
            n -= k
PY
}

. "$root/bench/timing.sh"

run() { # $1 bf16|gptq
  local folder=$work/$1
  make_folder "$folder" "$1"
  local input
  input=$(du -sb "$folder" | cut -f1)
  bench_case "$1: $(awk -v b="$input" 'BEGIN { printf "%.2f", b / 1e9 }') GB in, GGUF" \
    "$work/out.gguf" "$build/bin/vmpack-convert" -q "$folder" \
    -o "$work/out.gguf" --no-vocab
  rm -rf "$folder"
}

dequant() {
  local folder=$work/gptq
  make_folder "$folder" gptq
  "$build/bin/vmpack-convert" -q "$folder" -o "$work/q4_0.gguf" --no-vocab
  rm -rf "$folder"
  bench_case "dequant: $(stat -c %s "$work/q4_0.gguf" | awk '{ printf "%.2f", $1 / 1e9 }') GB Q4_0 GGUF in, --dequantize=f16 to safetensors" \
    "$work/out.safetensors" "$build/bin/vmpack-convert" -q "$work/q4_0.gguf" \
    --dequantize=f16 -o "$work/out.safetensors"
  rm -f "$work/q4_0.gguf"
}

case $which in
bf16 | gptq) run "$which" ;;
both) run bf16; run gptq ;;
dequant) dequant ;;
*) echo "usage: $0 BUILD_DIR [bf16|gptq|both|dequant] [DIR]" >&2; exit 2 ;;
esac
