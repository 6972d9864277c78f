//===- DequantSplit.cpp - ggml Q4_0, Q4_1, Q8_0 as integers and scales ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Formats/DequantSplit.h"

#include "vmpack/Formats/TypeTable.h"

#include <cassert>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

enum : uint32_t { kQ4_0 = 2, kQ4_1 = 3, kQ8_0 = 8 };

/// Byte offsets inside one block (ggml-common.h: block_q4_0 {d, qs},
/// block_q4_1 {d, m, qs}, block_q8_0 {d, qs}).
struct Layout {
  uint32_t blockBytes;
  uint32_t quantsOffset;
  bool hasMin;
  const char *quantType;
};

Layout layoutOf(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  assert(t && t->blockSize == 32);
  switch (type) {
  case kQ4_0:
    return {t->typeSize, 2, false, "i4"};
  case kQ4_1:
    return {t->typeSize, 4, true, "ui4"};
  default:
    return {t->typeSize, 2, false, "i8"};
  }
}

} // namespace

bool vmpack::formats::canDequantSplit(uint32_t ggmlType) {
  return ggmlType == kQ4_0 || ggmlType == kQ4_1 || ggmlType == kQ8_0;
}

std::vector<TensorSource>
vmpack::formats::dequantSplit(const TensorSource &blocks) {
  uint32_t type = *blocks.info.ggmlBlockType;
  Layout layout = layoutOf(type);
  const uint8_t *src = blocks.data;
  uint64_t numBlocks = blocks.info.length / layout.blockBytes;
  std::vector<TensorSource> out;

  TensorSource q;
  q.info.name = blocks.info.name + ".q";
  q.info.elementType = *parseElementType(layout.quantType);
  q.info.shape = blocks.info.shape;
  q.info.encoding = interopEncoding(q.info.elementType);
  if (type == kQ8_0) {
    q.info.length = numBlocks * 32;
    q.produce = [src, layout](uint64_t first, uint64_t n, uint8_t *dst) {
      for (uint64_t k = first; k < first + n; ++k)
        dst[k - first] =
            src[k / 32 * layout.blockBytes + layout.quantsOffset + k % 32];
    };
  } else {
    // 16 output bytes per block; output byte j holds elements 2j, 2j+1.
    q.info.length = numBlocks * 16;
    uint8_t flip = type == kQ4_0 ? 0x8 : 0x0; // (x - 8) & 15 == x ^ 8
    q.produce = [src, layout, flip](uint64_t first, uint64_t n, uint8_t *dst) {
      for (uint64_t k = first; k < first + n; ++k) {
        const uint8_t *qs =
            src + k / 16 * layout.blockBytes + layout.quantsOffset;
        unsigned e = unsigned(k % 16) * 2;
        auto nibble = [&](unsigned i) -> uint8_t {
          uint8_t v = i < 16 ? qs[i] & 0xf : qs[i - 16] >> 4;
          return v ^ flip;
        };
        dst[k - first] = uint8_t(nibble(e) | nibble(e + 1) << 4);
      }
    };
  }
  out.push_back(std::move(q));

  std::vector<int64_t> scaleShape = blocks.info.shape;
  if (scaleShape.empty())
    scaleShape.push_back(1);
  else
    scaleShape.back() /= 32;
  for (unsigned part = 0; part < (layout.hasMin ? 2u : 1u); ++part) {
    TensorSource s;
    s.info.name = blocks.info.name + (part ? ".m" : ".d");
    s.info.elementType = *parseElementType("f16");
    s.info.shape = scaleShape;
    s.info.encoding = Encoding::Byte;
    s.info.length = numBlocks * 2;
    uint32_t at = part * 2;
    s.produce = [src, layout, at](uint64_t first, uint64_t n, uint8_t *dst) {
      for (uint64_t k = first; k < first + n; ++k)
        dst[k - first] = src[k / 2 * layout.blockBytes + at + k % 2];
    };
    out.push_back(std::move(s));
  }
  return out;
}
