//===- DequantSplit.cpp - ggml blocks as integers and scales --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The parts are the quantization layer's planar form (vmpack/Quant/
// GgmlPlanar.h, docs/quant.md section 4), which owns the block layouts,
// split by formats::planarSplit (GgmlConvert.h). The codes keep this
// split's historical signless spelling for Q4_0 and Q8_0 (i4, i8; the same
// bits as the planar form's si4, si8).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/DequantSplit.h"

#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Quant/GgmlPlanar.h"

#include <cassert>

using namespace vmpack;
using namespace vmpack::formats;

bool vmpack::formats::canDequantSplit(uint32_t ggmlType) {
  return quant::hasGgmlPlanarForm(ggmlType);
}

std::vector<TensorSource>
vmpack::formats::dequantSplit(const TensorSource &blocks) {
  assert(canDequantSplit(*blocks.info.ggmlBlockType));
  return planarSplit(blocks, /*signlessCodes=*/true);
}
