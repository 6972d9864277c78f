//===- HfRepack.cpp - GPTQ and AWQ words, repacked ------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The layouts are docs/quant.md section 8's; ggml's Q4_0 and Q8_0 blocks
// section 3's.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/HfRepack.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace vmpack::quant;

namespace {

uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

/// Nibble j of w to the low nibble of byte j.
uint64_t spreadNibbles(uint32_t w) {
  uint64_t t = w;
  t = (t | t << 16) & 0x0000FFFF0000FFFFull;
  t = (t | t << 8) & 0x00FF00FF00FF00FFull;
  t = (t | t << 4) & 0x0F0F0F0F0F0F0F0Full;
  return t;
}

/// AWQ keeps column j of 8 in nibble kNibble[j]; GPTQ in nibble j.
constexpr unsigned kAwqNibble[8] = {0, 4, 1, 5, 2, 6, 3, 7};

/// AWQ word order -> natural order of the 8 nibbles of w, and back: a fixed
/// permutation of nibbles.
uint32_t awqToNatural(uint32_t w) {
  uint32_t r = 0;
  for (unsigned j = 0; j < 8; ++j)
    r |= ((w >> (4 * kAwqNibble[j])) & 15u) << (4 * j);
  return r;
}
uint32_t naturalToAwq(uint32_t w) {
  uint32_t r = 0;
  for (unsigned j = 0; j < 8; ++j)
    r |= ((w >> (4 * j)) & 15u) << (4 * kAwqNibble[j]);
  return r;
}

/// Transposes an 8 x 8 matrix of nibbles held as 8 words (word r, nibble
/// c) in place: afterwards word c, nibble r.
void transposeNibbles8(uint32_t m[8]) {
  // Three rounds of swapping off-diagonal blocks (4x4, 2x2, 1x1).
  for (unsigned j = 0; j < 4; ++j) {
    uint32_t a = m[j], b = m[j + 4];
    m[j] = (a & 0x0000FFFFu) | (b << 16);
    m[j + 4] = (a >> 16) | (b & 0xFFFF0000u);
  }
  for (unsigned k = 0; k < 8; k += 4)
    for (unsigned j = 0; j < 2; ++j) {
      uint32_t a = m[k + j], b = m[k + j + 2];
      m[k + j] = (a & 0x00FF00FFu) | ((b << 8) & 0xFF00FF00u);
      m[k + j + 2] = ((a >> 8) & 0x00FF00FFu) | (b & 0xFF00FF00u);
    }
  for (unsigned k = 0; k < 8; k += 2) {
    uint32_t a = m[k], b = m[k + 1];
    m[k] = (a & 0x0F0F0F0Fu) | ((b << 4) & 0xF0F0F0F0u);
    m[k + 1] = ((a >> 4) & 0x0F0F0F0Fu) | (b & 0xF0F0F0F0u);
  }
}

bool shiftNibbles(uint32_t w, int delta, uint32_t &out) {
  if (delta == 0) {
    out = w;
    return true;
  }
  uint32_t r = 0;
  for (unsigned j = 0; j < 8; ++j) {
    int v = int((w >> (4 * j)) & 15u) + delta;
    if (v < 0 || v > 15)
      return false;
    r |= uint32_t(v) << (4 * j);
  }
  out = r;
  return true;
}

} // namespace

void vmpack::quant::gptqToGgmlRows(unsigned bits, const uint8_t *qweight,
                                   const uint8_t *scales, uint64_t in,
                                   uint64_t out, uint64_t groupSize,
                                   uint64_t first, uint64_t count,
                                   uint8_t *blocks) {
  const uint64_t words = in * bits / 32;
  const uint64_t rowBlocks = in / 32;
  const uint64_t blockBytes = bits == 4 ? 18 : 34;
  const uint64_t wordsPerBlock = bits; // 32 codes of `bits` bits
  constexpr uint64_t kTile = 16;
  std::vector<uint32_t> tile(kTile * words);
  for (uint64_t r0 = first; r0 < first + count; r0 += kTile) {
    const uint64_t t = std::min(kTile, first + count - r0);
    // Gather: word row w's t columns are contiguous.
    for (uint64_t w = 0; w < words; ++w) {
      const uint8_t *src = qweight + (w * out + r0) * 4;
      for (uint64_t j = 0; j < t; ++j)
        tile[j * words + w] = load32(src + 4 * j);
    }
    for (uint64_t j = 0; j < t; ++j) {
      const uint32_t *col = tile.data() + j * words;
      const uint64_t row = r0 + j;
      uint8_t *dst = blocks + (row - first) * rowBlocks * blockBytes;
      for (uint64_t b = 0; b < rowBlocks; ++b, dst += blockBytes) {
        const uint64_t g = b * 32 / groupSize;
        std::memcpy(dst, scales + (g * out + row) * 2, 2);
        const uint32_t *w = col + b * wordsPerBlock;
        if (bits == 4) {
          // Codes 0-7, 8-15, 16-23, 24-31 in w[0..3]; byte j holds code j
          // low and code j + 16 high.
          uint64_t lo = spreadNibbles(w[0]) | spreadNibbles(w[2]) << 4;
          uint64_t hi = spreadNibbles(w[1]) | spreadNibbles(w[3]) << 4;
          std::memcpy(dst + 2, &lo, 8);
          std::memcpy(dst + 10, &hi, 8);
        } else {
          // Byte k of the 8 words is code k; Q8_0 stores q - 128.
          for (unsigned k = 0; k < 8; ++k)
            store32(dst + 2 + 4 * k, w[k] ^ 0x80808080u);
        }
      }
    }
  }
}

void vmpack::quant::awqToGptqWords(const uint8_t *awq, uint64_t n,
                                   uint64_t firstWord, uint64_t words,
                                   uint8_t *gptq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstWord; w < firstWord + words; ++w)
    for (uint64_t c = 0; c < cols; ++c) {
      // m[r] = AWQ row 8w + r, columns 8c..8c+7 in natural order.
      uint32_t m[8];
      for (unsigned r = 0; r < 8; ++r)
        m[r] = awqToNatural(load32(awq + ((8 * w + r) * cols + c) * 4));
      transposeNibbles8(m);
      // Now m[j] = column 8c + j, rows 8w..8w+7: GPTQ's word (w, 8c + j).
      uint8_t *dst = gptq + ((w - firstWord) * n + 8 * c) * 4;
      for (unsigned j = 0; j < 8; ++j)
        store32(dst + 4 * j, m[j]);
    }
}

void vmpack::quant::gptqToAwqWords(const uint8_t *gptq, uint64_t n,
                                   uint64_t firstRow, uint64_t rows,
                                   uint8_t *awq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstRow / 8; w < (firstRow + rows) / 8; ++w)
    for (uint64_t c = 0; c < cols; ++c) {
      uint32_t m[8];
      const uint8_t *src = gptq + (w * n + 8 * c) * 4;
      for (unsigned j = 0; j < 8; ++j)
        m[j] = load32(src + 4 * j);
      transposeNibbles8(m);
      for (unsigned r = 0; r < 8; ++r)
        store32(awq + ((8 * w + r - firstRow) * cols + c) * 4,
                naturalToAwq(m[r]));
    }
}

bool vmpack::quant::awqToGptqZeroWords(const uint8_t *awq, uint64_t count,
                                       int delta, uint8_t *gptq) {
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t v;
    if (!shiftNibbles(awqToNatural(load32(awq + 4 * i)), delta, v))
      return false;
    store32(gptq + 4 * i, v);
  }
  return true;
}

bool vmpack::quant::gptqToAwqZeroWords(const uint8_t *gptq, uint64_t count,
                                       int delta, uint8_t *awq) {
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t v;
    if (!shiftNibbles(load32(gptq + 4 * i), delta, v))
      return false;
    store32(awq + 4 * i, naturalToAwq(v));
  }
  return true;
}
