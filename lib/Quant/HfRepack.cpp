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

/// A Q4_0 block's 16 code bytes from the 4 words of 32 codes (code e in
/// nibble e % 8 of word e / 8): byte j holds code j low, code j + 16 high.
inline void q4Block(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3,
                    uint8_t *qs) {
  const uint64_t m = 0x0F0F0F0F0F0F0F0Full;
  const uint64_t a = uint64_t(w0) | uint64_t(w1) << 32; // codes 0..15
  const uint64_t b = uint64_t(w2) | uint64_t(w3) << 32; // codes 16..31
  // Byte k of `even`: code 2k | code 2k+16 << 4; of `odd`: 2k+1, 2k+17.
  const uint64_t even = (a & m) | (b & m) << 4;
  const uint64_t odd = (a >> 4 & m) | (b & ~m);
  auto spreadBytes = [](uint32_t x) {
    uint64_t t = x;
    t = (t | t << 16) & 0x0000FFFF0000FFFFull;
    return (t | t << 8) & 0x00FF00FF00FF00FFull;
  };
  const uint64_t lo = spreadBytes(uint32_t(even)) | spreadBytes(uint32_t(odd))
                                                        << 8;
  const uint64_t hi =
      spreadBytes(uint32_t(even >> 32)) | spreadBytes(uint32_t(odd >> 32)) << 8;
  std::memcpy(qs, &lo, 8);
  std::memcpy(qs + 8, &hi, 8);
}

void vmpack::quant::gptqToGgmlRows(unsigned bits, const uint8_t *qweight,
                                   const uint8_t *scales, uint64_t in,
                                   uint64_t out, uint64_t groupSize,
                                   uint64_t first, uint64_t count,
                                   uint8_t *blocks) {
  const uint64_t rowBlocks = in / 32;
  const uint64_t blockBytes = bits == 4 ? 18 : 34;
  const uint64_t rowBytes = rowBlocks * blockBytes;
  const uint64_t wordsPerBlock = bits; // 32 codes of `bits` bits
  const uint64_t stride = out * 4;     // one word row of qweight
  // A tile of 256 rows reads each of a block's word rows as one 1 KiB run
  // (qweight's rows are a power of two apart, so columns read a few at a
  // time would keep evicting each other from the cache) and writes 256
  // blocks.
  constexpr uint64_t kTile = 256;
  for (uint64_t r0 = first; r0 < first + count; r0 += kTile) {
    const uint64_t t = std::min(kTile, first + count - r0);
    uint8_t *rowOut = blocks + (r0 - first) * rowBytes;
    for (uint64_t b = 0; b < rowBlocks; ++b) {
      const uint8_t *src = qweight + b * wordsPerBlock * stride + r0 * 4;
      const uint8_t *sc = scales + ((b * 32 / groupSize) * out + r0) * 2;
      uint8_t *dst = rowOut + b * blockBytes;
      for (uint64_t j = 0; j < t; ++j, dst += rowBytes) {
        std::memcpy(dst, sc + 2 * j, 2);
        const uint8_t *col = src + 4 * j;
        if (bits == 4) {
          q4Block(load32(col), load32(col + stride), load32(col + 2 * stride),
                  load32(col + 3 * stride), dst + 2);
        } else {
          // Byte k of the 8 words is code k; Q8_0 stores q - 128.
          for (unsigned k = 0; k < 8; ++k)
            store32(dst + 2 + 4 * k, load32(col + k * stride) ^ 0x80808080u);
        }
      }
    }
  }
}

/// The 8 x 8 nibble transposition of transposeNibbles8 on two 32-bit lanes
/// at once.
inline void transposeNibbles8x2(uint64_t m[8]) {
  for (unsigned j = 0; j < 4; ++j) {
    uint64_t a = m[j], b = m[j + 4];
    m[j] = (a & 0x0000FFFF0000FFFFull) | (b << 16 & 0xFFFF0000FFFF0000ull);
    m[j + 4] = (a >> 16 & 0x0000FFFF0000FFFFull) | (b & 0xFFFF0000FFFF0000ull);
  }
  for (unsigned k = 0; k < 8; k += 4)
    for (unsigned j = 0; j < 2; ++j) {
      uint64_t a = m[k + j], b = m[k + j + 2];
      m[k + j] = (a & 0x00FF00FF00FF00FFull) | (b << 8 & 0xFF00FF00FF00FF00ull);
      m[k + j + 2] =
          (a >> 8 & 0x00FF00FF00FF00FFull) | (b & 0xFF00FF00FF00FF00ull);
    }
  for (unsigned k = 0; k < 8; k += 2) {
    uint64_t a = m[k], b = m[k + 1];
    m[k] = (a & 0x0F0F0F0F0F0F0F0Full) | (b << 4 & 0xF0F0F0F0F0F0F0F0ull);
    m[k + 1] = (a >> 4 & 0x0F0F0F0F0F0F0F0Full) | (b & 0xF0F0F0F0F0F0F0F0ull);
  }
}

constexpr unsigned kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

void vmpack::quant::awqToGptqWords(const uint8_t *awq, uint64_t n,
                                   uint64_t firstWord, uint64_t words,
                                   uint8_t *gptq) {
  // Transposing AWQ's words as they are leaves word k holding the column of
  // nibble k, 8c + kAwqOrder[k]: stored there, no nibble is reordered.
  const uint64_t cols = n / 8;
  for (uint64_t w = firstWord; w < firstWord + words; ++w) {
    uint8_t *dstRow = gptq + (w - firstWord) * n * 4;
    const uint8_t *srcRow = awq + 8 * w * cols * 4;
    uint64_t c = 0;
    for (; c + 2 <= cols; c += 2) {
      uint64_t m[8];
      for (unsigned r = 0; r < 8; ++r)
        std::memcpy(&m[r], srcRow + (r * cols + c) * 4, 8);
      transposeNibbles8x2(m);
      for (unsigned k = 0; k < 8; ++k) {
        store32(dstRow + (8 * c + kAwqOrder[k]) * 4, uint32_t(m[k]));
        store32(dstRow + (8 * c + 8 + kAwqOrder[k]) * 4, uint32_t(m[k] >> 32));
      }
    }
    for (; c < cols; ++c) {
      uint32_t m[8];
      for (unsigned r = 0; r < 8; ++r)
        m[r] = load32(srcRow + (r * cols + c) * 4);
      transposeNibbles8(m);
      for (unsigned k = 0; k < 8; ++k)
        store32(dstRow + (8 * c + kAwqOrder[k]) * 4, m[k]);
    }
  }
}

void vmpack::quant::gptqToAwqWords(const uint8_t *gptq, uint64_t n,
                                   uint64_t firstRow, uint64_t rows,
                                   uint8_t *awq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstRow / 8; w < (firstRow + rows) / 8; ++w) {
    const uint8_t *srcRow = gptq + w * n * 4;
    uint8_t *dstRow = awq + (8 * w - firstRow) * cols * 4;
    uint64_t c = 0;
    for (; c + 2 <= cols; c += 2) {
      uint64_t m[8];
      for (unsigned k = 0; k < 8; ++k)
        m[k] = uint64_t(load32(srcRow + (8 * c + kAwqOrder[k]) * 4)) |
               uint64_t(load32(srcRow + (8 * c + 8 + kAwqOrder[k]) * 4)) << 32;
      transposeNibbles8x2(m);
      for (unsigned r = 0; r < 8; ++r)
        std::memcpy(dstRow + (r * cols + c) * 4, &m[r], 8);
    }
    for (; c < cols; ++c) {
      uint32_t m[8];
      for (unsigned k = 0; k < 8; ++k)
        m[k] = load32(srcRow + (8 * c + kAwqOrder[k]) * 4);
      transposeNibbles8(m);
      for (unsigned r = 0; r < 8; ++r)
        store32(dstRow + (r * cols + c) * 4, m[r]);
    }
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
