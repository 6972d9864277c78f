//===- HfQuantConfigFuzzer.cpp - Fuzz target: quantization configs -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to parseHfQuantConfig as a config.json. What it
// accepts must describe a layout vmpack reads: GPTQ with 2, 3, 4 or 8 bits
// and a checkpoint_format of "", "gptq" or "gptq_v2", or AWQ with 4 bits; a
// group size of -1 or more than 0; compressed-tensors config groups of 2..8
// bits (8 unless pack-quantized) with a group size exactly for strategy
// "group", float codes exactly in float-quantized (symmetric, block
// strategy only for them); MLX bits 2, 3, 4, 5, 6, 8 in groups of 32, 64
// or 128 (mxfp4: 4 bits in groups of 32), for every module entry too;
// bitsandbytes nf4 or fp4. The same bytes go to parseBnbQuantState, whose
// accepted states have a known quant type, a blocksize bitsandbytes dequantizes
// and a positive 2-D shape. A refusal has a message.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/HfQuant.h"

#include <cstdlib>

using vmpack::fuzz::check;
using namespace vmpack::formats;

/// The same bytes as a bitsandbytes quant_state: what it accepts is a state
/// vmpack dequantizes.
static void checkBnbState(const uint8_t *data, size_t size) {
  StatusOr<HfBnbState> s = parseBnbQuantState(data, size, "quant_state");
  if (!s) {
    check(!s.status().message().empty());
    return;
  }
  check(bnbCodeValues(s->quantType) != nullptr);
  check(s->blocksize >= 32 && s->blocksize <= 4096 &&
        (s->blocksize & (s->blocksize - 1)) == 0);
  check(s->shape.size() == 2 && s->shape[0] > 0 && s->shape[1] > 0);
  check(!s->nested || s->nestedBlocksize > 0);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  checkBnbState(data, size);
  StatusOr<std::optional<HfQuantConfig>> c =
      parseHfQuantConfig(data, size, "config.json");
  if (!c) {
    check(!c.status().message().empty());
    return 0;
  }
  if (!*c)
    return 0;
  const HfQuantConfig &q = **c;
  if (q.method == HfQuantMethod::Bitsandbytes) {
    check(bnbCodeValues(q.bnbQuantType) != nullptr);
    return 0;
  }
  if (q.method == HfQuantMethod::CompressedTensors) {
    check(!q.ctGroups.empty());
    for (const HfCtWeightArgs &a : q.ctGroups) {
      check(a.bits >= 2 && a.bits <= 8);
      check(a.format == "pack-quantized" || a.bits == 8);
      check(a.floatType == (a.format == "float-quantized"));
      check(!a.floatType || a.symmetric);
      check(a.strategy == "group" ? a.groupSize > 0 : a.groupSize == 0);
      check(a.strategy == "block"
                ? a.floatType && a.blockRows > 0 && a.blockCols > 0
                : a.blockRows == 0 && a.blockCols == 0);
      check(a.strategy == "group" || a.strategy == "channel" ||
            a.strategy == "tensor" || a.strategy == "block");
    }
    return 0;
  } else if (q.method == HfQuantMethod::Mlx) {
    for (const HfMlxLayer &l : [&] {
           std::vector<HfMlxLayer> all = {q.mlxDefault};
           for (const auto &kv : q.mlxLayers)
             if (kv.second.quantized)
               all.push_back(kv.second);
           return all;
         }()) {
      check(l.bits >= 2 && l.bits <= 8 && l.bits != 7);
      check(l.groupSize == 32 || l.groupSize == 64 || l.groupSize == 128);
      check(!l.mxfp4 || (l.bits == 4 && l.groupSize == 32));
    }
    return 0;
  } else if (q.method == HfQuantMethod::Awq) {
    check(q.bits == 4);
    check(q.checkpointFormat.empty());
  } else {
    check(q.bits == 2 || q.bits == 3 || q.bits == 4 || q.bits == 8);
    check(q.checkpointFormat.empty() || q.checkpointFormat == "gptq" ||
          q.checkpointFormat == "gptq_v2");
  }
  check(q.groupSize == -1 || q.groupSize > 0);
  check(q.where == "config.json");
  return 0;
}
