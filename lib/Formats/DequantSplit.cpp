//===- DequantSplit.cpp - ggml Q4_0, Q4_1, Q8_0 as integers and scales ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The parts are the quantization layer's planar form (vmpack/Quant/
// GgmlPlanar.h, docs/quant.md section 4), which owns the block layouts:
// each produced byte range splits the blocks that hold it. The codes keep
// this split's historical signless spelling for Q4_0 and Q8_0 (i4, i8; the
// same bits as the planar form's si4, si8).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/DequantSplit.h"

#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlPlanar.h"

#include <algorithm>
#include <cassert>
#include <cstring>

using namespace vmpack;
using namespace vmpack::formats;

bool vmpack::formats::canDequantSplit(uint32_t ggmlType) {
  return ggmlType == quant::kGgmlQ4_0 || ggmlType == quant::kGgmlQ4_1 ||
         ggmlType == quant::kGgmlQ8_0;
}

std::vector<TensorSource>
vmpack::formats::dequantSplit(const TensorSource &blocks) {
  uint32_t type = *blocks.info.ggmlBlockType;
  assert(canDequantSplit(type));
  const std::vector<quant::PlanarPart> &parts = quant::ggmlPlanarParts(type);
  const uint8_t *src = blocks.data;
  uint32_t blockBytes = quant::ggmlBlockBytes(type);
  uint64_t numBlocks = blocks.info.length / blockBytes;
  std::vector<TensorSource> out;
  for (size_t p = 0; p < parts.size(); ++p) {
    const quant::PlanarPart &part = parts[p];
    TensorSource t;
    t.info.name = blocks.info.name + "." + part.suffix;
    std::string typeName = part.type;
    if (part.role == quant::PlanarRole::Codes && typeName[0] == 's')
      typeName = typeName.substr(1); // si4 -> i4, si8 -> i8
    t.info.elementType = *parseElementType(typeName);
    t.info.shape = quant::planarPartShape(type, part, blocks.info.shape);
    t.info.encoding = part.role == quant::PlanarRole::Codes
                          ? interopEncoding(t.info.elementType)
                          : Encoding::Byte;
    uint32_t perBlock = part.bytesPerBlock();
    t.info.length = numBlocks * perBlock;
    t.produce = [src, type, blockBytes, perBlock, p, count = parts.size()](
                    uint64_t first, uint64_t n, uint8_t *dst) {
      // Split block by block into small buffers, copying the asked slice.
      uint8_t scratch[8][64];
      uint8_t *ptrs[8];
      for (size_t k = 0; k < count; ++k)
        ptrs[k] = scratch[k];
      for (uint64_t at = first; at < first + n;) {
        uint64_t b = at / perBlock, in = at % perBlock;
        Status s = quant::ggmlToPlanar(type, src + b * blockBytes, 1, ptrs);
        assert(s.isOk());
        (void)s;
        uint64_t take = std::min<uint64_t>(perBlock - in, first + n - at);
        std::memcpy(dst + (at - first), scratch[p] + in, take);
        at += take;
      }
    };
    out.push_back(std::move(t));
  }
  return out;
}
