//===- HfRepack.cpp - GPTQ and AWQ words, repacked ------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The layouts are docs/quant.md section 8's; ggml's Q4_0 and Q8_0 blocks
// section 3's.
//
// Three sets of kernels, one table per dispatch level of the Pack layer
// (kKernels): 64-bit SWAR (the portable, SSE2 and SSE4.1 levels; also
// every vector kernel's tail), AVX2, which moves 8 columns of words per
// step (the same bit moves, on 8 lanes of 32 bits), and, for AWQ <-> GPTQ,
// AVX-512 (F, BW, VBMI), which moves 16 columns of words per step with
// nibble selects and byte permutations instead of shift rounds. All give
// the same bytes (unittests/Quant/HfRepackTest.cpp checks every level
// against an element-by-element reference).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/HfRepack.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 3
#include <immintrin.h>
#define VMPACK_HFREPACK_AVX2 1
#if VMPACK_DISPATCH_MAX >= 4
#define VMPACK_HFREPACK_AVX512 1
#endif
#endif

using namespace vmpack;
using namespace vmpack::quant;

namespace {

uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

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

/// One ggml block of one output row: its scale (2 bytes at `sc`) and the
/// codes of the `bits` words at col, col + stride, ...
inline void ggmlBlock(unsigned bits, const uint8_t *col, uint64_t stride,
                      const uint8_t *sc, uint8_t *dst) {
  std::memcpy(dst, sc, 2);
  if (bits == 4) {
    q4Block(load32(col), load32(col + stride), load32(col + 2 * stride),
            load32(col + 3 * stride), dst + 2);
  } else {
    // Byte k of the 8 words is code k; Q8_0 stores q - 128.
    for (unsigned k = 0; k < 8; ++k)
      store32(dst + 2 + 4 * k, load32(col + k * stride) ^ 0x80808080u);
  }
}

/// A tile of 256 rows reads each of a block's word rows as one 1 KiB run
/// (qweight's rows are a power of two apart, so columns read a few at a
/// time would keep evicting each other from the cache) and writes 256
/// blocks.
constexpr uint64_t kTile = 256;

/// Calls tile(r0, t, rowOut, b, src, sc, dst) for each tile of rows and
/// each block column b of gptqToGgmlRows.
template <typename TileFn>
inline void forEachGgmlTile(unsigned bits, const uint8_t *qweight,
                            const uint8_t *scales, uint64_t in, uint64_t out,
                            uint64_t groupSize, uint64_t first, uint64_t count,
                            uint8_t *blocks, TileFn tile) {
  const uint64_t rowBlocks = in / 32;
  const uint64_t blockBytes = bits == 4 ? 18 : 34;
  const uint64_t rowBytes = rowBlocks * blockBytes;
  const uint64_t wordsPerBlock = bits; // 32 codes of `bits` bits
  const uint64_t stride = out * 4;     // one word row of qweight
  for (uint64_t r0 = first; r0 < first + count; r0 += kTile) {
    const uint64_t t = std::min(kTile, first + count - r0);
    uint8_t *rowOut = blocks + (r0 - first) * rowBytes;
    for (uint64_t b = 0; b < rowBlocks; ++b)
      tile(t, qweight + b * wordsPerBlock * stride + r0 * 4,
           scales + ((b * 32 / groupSize) * out + r0) * 2,
           rowOut + b * blockBytes, stride, rowBytes);
  }
}

void gptqToGgmlRowsScalar(unsigned bits, const uint8_t *qweight,
                          const uint8_t *scales, uint64_t in, uint64_t out,
                          uint64_t groupSize, uint64_t first, uint64_t count,
                          uint8_t *blocks) {
  forEachGgmlTile(
      bits, qweight, scales, in, out, groupSize, first, count, blocks,
      [bits](uint64_t t, const uint8_t *src, const uint8_t *sc, uint8_t *dst,
             uint64_t stride, uint64_t rowBytes) {
        for (uint64_t j = 0; j < t; ++j)
          ggmlBlock(bits, src + 4 * j, stride, sc + 2 * j, dst + j * rowBytes);
      });
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

/// Word columns [c, cols) of awqToGptqWords' word row w.
void awqToGptqColumns(const uint8_t *srcRow, uint64_t cols, uint64_t c,
                      uint8_t *dstRow) {
  // Transposing AWQ's words as they are leaves word k holding the column of
  // nibble k, 8c + kAwqOrder[k]: stored there, no nibble is reordered.
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

/// Word columns [c, cols) of gptqToAwqWords' word row (8 AWQ rows).
void gptqToAwqColumns(const uint8_t *srcRow, uint64_t cols, uint64_t c,
                      uint8_t *dstRow) {
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

void awqToGptqWordsScalar(const uint8_t *awq, uint64_t n, uint64_t firstWord,
                          uint64_t words, uint8_t *gptq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstWord; w < firstWord + words; ++w)
    awqToGptqColumns(awq + 8 * w * cols * 4, cols, 0,
                     gptq + (w - firstWord) * n * 4);
}

void gptqToAwqWordsScalar(const uint8_t *gptq, uint64_t n, uint64_t firstRow,
                          uint64_t rows, uint8_t *awq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstRow / 8; w < (firstRow + rows) / 8; ++w)
    gptqToAwqColumns(gptq + w * n * 4, cols, 0,
                     awq + (8 * w - firstRow) * cols * 4);
}

#if VMPACK_HFREPACK_AVX2
//===----------------------------------------------------------------------===//
// AVX2: 8 columns of words per step
//===----------------------------------------------------------------------===//

#define VMPACK_AVX2 __attribute__((target("avx2")))

VMPACK_AVX2 inline __m256i load256(const uint8_t *p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}
VMPACK_AVX2 inline void store256(uint8_t *p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v);
}
VMPACK_AVX2 inline void store128(uint8_t *p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i *>(p), v);
}

/// Transposes the 8 x 8 matrix of 32-bit words r[0..7] (row i, lane j) in
/// place: afterwards r[j] holds column j.
VMPACK_AVX2 inline void transposeWords8(__m256i r[8]) {
  __m256i t[8], u[8];
  for (unsigned k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
  }
  // u[0..3]: words 0..3 (lanes 4..7 in the upper half) of rows 0..3;
  // u[4..7] the same of rows 4..7.
  for (unsigned h = 0; h < 8; h += 4) {
    u[h] = _mm256_unpacklo_epi64(t[h], t[h + 2]);
    u[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);
    u[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);
    u[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);
  }
  for (unsigned j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x20);
    r[j + 4] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x31);
  }
}

/// transposeNibbles8 in each of the 8 lanes of m[0..7].
VMPACK_AVX2 inline void transposeNibbles8x8(__m256i m[8]) {
  for (unsigned j = 0; j < 4; ++j) {
    __m256i a = m[j], b = m[j + 4];
    m[j] = _mm256_blend_epi16(a, _mm256_slli_epi32(b, 16), 0xAA);
    m[j + 4] = _mm256_blend_epi16(_mm256_srli_epi32(a, 16), b, 0xAA);
  }
  const __m256i lowBytes = _mm256_set1_epi16(0x00FF);
  for (unsigned k = 0; k < 8; k += 4)
    for (unsigned j = 0; j < 2; ++j) {
      __m256i a = m[k + j], b = m[k + j + 2];
      m[k + j] = _mm256_or_si256(_mm256_and_si256(a, lowBytes),
                                 _mm256_slli_epi16(b, 8));
      m[k + j + 2] = _mm256_or_si256(_mm256_srli_epi16(a, 8),
                                     _mm256_andnot_si256(lowBytes, b));
    }
  const __m256i lowNibbles = _mm256_set1_epi8(0x0F);
  for (unsigned k = 0; k < 8; k += 2) {
    __m256i a = m[k], b = m[k + 1];
    m[k] = _mm256_or_si256(
        _mm256_and_si256(a, lowNibbles),
        _mm256_andnot_si256(lowNibbles, _mm256_slli_epi16(b, 4)));
    m[k + 1] =
        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(a, 4), lowNibbles),
                        _mm256_andnot_si256(lowNibbles, b));
  }
}

VMPACK_AVX2 void gptqToGgmlRowsAVX2(unsigned bits, const uint8_t *qweight,
                                    const uint8_t *scales, uint64_t in,
                                    uint64_t out, uint64_t groupSize,
                                    uint64_t first, uint64_t count,
                                    uint8_t *blocks) {
  auto tile4 = [](uint64_t t, const uint8_t *src, const uint8_t *sc,
                  uint8_t *dst, uint64_t stride,
                  uint64_t rowBytes) VMPACK_AVX2 {
    const __m256i m = _mm256_set1_epi8(0x0F);
    uint64_t j = 0;
    for (; j + 8 <= t; j += 8) {
      const uint8_t *col = src + 4 * j;
      // Lane i: the words of output row j + i; codes 0..7, 8..15, 16..23,
      // 24..31 of the block.
      __m256i w0 = load256(col), w1 = load256(col + stride),
              w2 = load256(col + 2 * stride), w3 = load256(col + 3 * stride);
      // Byte k of a lane of e0: code 2k | code 2k+16 << 4 (the block's byte
      // 2k); of o0: byte 2k + 1. e1, o1: bytes 8 + 2k, 9 + 2k.
      __m256i e0 =
          _mm256_or_si256(_mm256_and_si256(w0, m),
                          _mm256_slli_epi16(_mm256_and_si256(w2, m), 4));
      __m256i o0 =
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w0, 4), m),
                          _mm256_andnot_si256(m, w2));
      __m256i e1 =
          _mm256_or_si256(_mm256_and_si256(w1, m),
                          _mm256_slli_epi16(_mm256_and_si256(w3, m), 4));
      __m256i o1 =
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(w1, 4), m),
                          _mm256_andnot_si256(m, w3));
      // Interleaved: bytes 0..7 of rows (0, 1 | 4, 5) in l0, (2, 3 | 6, 7)
      // in h0; bytes 8..15 in l1, h1.
      __m256i l0 = _mm256_unpacklo_epi8(e0, o0),
              h0 = _mm256_unpackhi_epi8(e0, o0);
      __m256i l1 = _mm256_unpacklo_epi8(e1, o1),
              h1 = _mm256_unpackhi_epi8(e1, o1);
      __m256i r04 = _mm256_unpacklo_epi64(l0, l1),
              r15 = _mm256_unpackhi_epi64(l0, l1),
              r26 = _mm256_unpacklo_epi64(h0, h1),
              r37 = _mm256_unpackhi_epi64(h0, h1);
      uint8_t *d = dst + j * rowBytes;
      const uint8_t *s = sc + 2 * j;
      for (unsigned i = 0; i < 8; ++i)
        std::memcpy(d + i * rowBytes, s + 2 * i, 2);
      store128(d + 2, _mm256_castsi256_si128(r04));
      store128(d + rowBytes + 2, _mm256_castsi256_si128(r15));
      store128(d + 2 * rowBytes + 2, _mm256_castsi256_si128(r26));
      store128(d + 3 * rowBytes + 2, _mm256_castsi256_si128(r37));
      store128(d + 4 * rowBytes + 2, _mm256_extracti128_si256(r04, 1));
      store128(d + 5 * rowBytes + 2, _mm256_extracti128_si256(r15, 1));
      store128(d + 6 * rowBytes + 2, _mm256_extracti128_si256(r26, 1));
      store128(d + 7 * rowBytes + 2, _mm256_extracti128_si256(r37, 1));
    }
    for (; j < t; ++j)
      ggmlBlock(4, src + 4 * j, stride, sc + 2 * j, dst + j * rowBytes);
  };
  auto tile8 = [](uint64_t t, const uint8_t *src, const uint8_t *sc,
                  uint8_t *dst, uint64_t stride,
                  uint64_t rowBytes) VMPACK_AVX2 {
    const __m256i flip = _mm256_set1_epi8(char(0x80));
    uint64_t j = 0;
    for (; j + 8 <= t; j += 8) {
      // Row k: word k (codes 4k..4k+3) of output rows j..j+7.
      __m256i r[8];
      for (unsigned k = 0; k < 8; ++k)
        r[k] = load256(src + 4 * j + k * stride);
      transposeWords8(r);
      uint8_t *d = dst + j * rowBytes;
      const uint8_t *s = sc + 2 * j;
      for (unsigned i = 0; i < 8; ++i) {
        std::memcpy(d + i * rowBytes, s + 2 * i, 2);
        store256(d + i * rowBytes + 2, _mm256_xor_si256(r[i], flip));
      }
    }
    for (; j < t; ++j)
      ggmlBlock(8, src + 4 * j, stride, sc + 2 * j, dst + j * rowBytes);
  };
  if (bits == 4)
    forEachGgmlTile(bits, qweight, scales, in, out, groupSize, first, count,
                    blocks, tile4);
  else
    forEachGgmlTile(bits, qweight, scales, in, out, groupSize, first, count,
                    blocks, tile8);
}

/// Word columns [c, cols) of awqToGptqWords' word row: 8 at a time, then
/// the 64-bit SWAR tail.
VMPACK_AVX2 void awqToGptqColumnsAVX2(const uint8_t *srcRow, uint64_t cols,
                                      uint64_t c, uint8_t *dstRow) {
  for (; c + 8 <= cols; c += 8) {
    // m[r], lane i: AWQ row 8w + r, word column c + i.
    __m256i m[8];
    for (unsigned r = 0; r < 8; ++r)
      m[r] = load256(srcRow + (r * cols + c) * 4);
    transposeNibbles8x8(m);
    // Lane i of m[k] is GPTQ column 8(c + i) + kAwqOrder[k]: the 8
    // vectors in column order, transposed, are the 8 runs of 8 words.
    __m256i o[8] = {m[0], m[4], m[1], m[5], m[2], m[6], m[3], m[7]};
    transposeWords8(o);
    for (unsigned i = 0; i < 8; ++i)
      store256(dstRow + 8 * (c + i) * 4, o[i]);
  }
  awqToGptqColumns(srcRow, cols, c, dstRow);
}

/// Word columns [c, cols) of gptqToAwqWords' word row (8 AWQ rows).
VMPACK_AVX2 void gptqToAwqColumnsAVX2(const uint8_t *srcRow, uint64_t cols,
                                      uint64_t c, uint8_t *dstRow) {
  for (; c + 8 <= cols; c += 8) {
    // o[i]: GPTQ columns 8(c + i)..8(c + i) + 7; transposed, o[p] lane i
    // is column 8(c + i) + p.
    __m256i o[8];
    for (unsigned i = 0; i < 8; ++i)
      o[i] = load256(srcRow + 8 * (c + i) * 4);
    transposeWords8(o);
    __m256i m[8];
    for (unsigned k = 0; k < 8; ++k)
      m[k] = o[kAwqOrder[k]];
    transposeNibbles8x8(m);
    for (unsigned r = 0; r < 8; ++r)
      store256(dstRow + (r * cols + c) * 4, m[r]);
  }
  gptqToAwqColumns(srcRow, cols, c, dstRow);
}

VMPACK_AVX2 void awqToGptqWordsAVX2(const uint8_t *awq, uint64_t n,
                                    uint64_t firstWord, uint64_t words,
                                    uint8_t *gptq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstWord; w < firstWord + words; ++w)
    awqToGptqColumnsAVX2(awq + 8 * w * cols * 4, cols, 0,
                         gptq + (w - firstWord) * n * 4);
}

VMPACK_AVX2 void gptqToAwqWordsAVX2(const uint8_t *gptq, uint64_t n,
                                    uint64_t firstRow, uint64_t rows,
                                    uint8_t *awq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstRow / 8; w < (firstRow + rows) / 8; ++w)
    gptqToAwqColumnsAVX2(gptq + w * n * 4, cols, 0,
                         awq + (8 * w - firstRow) * cols * 4);
}

#if VMPACK_HFREPACK_AVX512
//===----------------------------------------------------------------------===//
// AVX-512 (F, BW, VBMI): 16 columns of words per step
//===----------------------------------------------------------------------===//
//
// The 8 AWQ rows r of a step hold, in byte q of word i, nibbles 2q (low)
// and 2q + 1 (high) of word column c + i. For a pair of rows 2p, 2p + 1,
// L_p keeps the low nibbles of both (row 2p's low) and H_p the high ones:
// byte q of word i of L_p (H_p) is byte p of the GPTQ word that holds AWQ
// nibble 2q (2q + 1) of word column c + i. The GPTQ words are then byte p
// of L_p or H_p, p = 0..3: one two-source byte permutation of (L_p, H_p),
// the same for every p, puts the bytes where a 4-way byte interleave of
// the 4 results (two rounds of in-lane unpacks) leaves each GPTQ word in
// its column order. GPTQ to AWQ runs the same steps backwards.

#define VMPACK_AVX512                                                          \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))

struct ByteIndex {
  alignas(64) uint8_t b[64];
};

/// AWQ nibble of natural column j of 8 (kAwqNibble) and its inverse.
/// For the permutation of set s (GPTQ output vectors 4s..4s+3, each two
/// word columns): byte 16l + 4m + d of Y_p is byte p of output vector
/// 4s + m's word 4l + d, taken from byte 4i + q of L_p (index < 64) or of
/// H_p (64 + 4i + q).
constexpr ByteIndex awqToGptqIndex(unsigned s) {
  ByteIndex x{};
  for (unsigned l = 0; l < 4; ++l)
    for (unsigned m = 0; m < 4; ++m)
      for (unsigned d = 0; d < 4; ++d) {
        const unsigned z = 4 * s + m, i = 2 * z + (l >> 1), j = 4 * (l & 1) + d,
                       n = kAwqNibble[j];
        x.b[16 * l + 4 * m + d] = uint8_t((n & 1 ? 64 : 0) + 4 * i + (n >> 1));
      }
  return x;
}

/// The inverse for L_p (t = 0) or H_p (t = 1): byte 4i + q of it from the
/// concatenation of Y_p of sets 0 and 1.
constexpr ByteIndex gptqToAwqIndex(unsigned t) {
  ByteIndex x{};
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned q = 0; q < 4; ++q) {
      const unsigned n = 2 * q + t, j = kAwqOrder[n], z = i / 2,
                     e = 8 * (i % 2) + j, s = z / 4, m = z % 4, l = e / 4,
                     d = e % 4;
      x.b[4 * i + q] = uint8_t(64 * s + 16 * l + 4 * m + d);
    }
  return x;
}

constexpr ByteIndex kAwqToGptqIndex[2] = {awqToGptqIndex(0), awqToGptqIndex(1)};
constexpr ByteIndex kGptqToAwqIndex[2] = {gptqToAwqIndex(0), gptqToAwqIndex(1)};

/// Within each 16-byte lane, byte 4p + d from byte 4d + p (a 4 x 4 byte
/// transposition).
constexpr ByteIndex transposeBytes4Index() {
  ByteIndex x{};
  for (unsigned l = 0; l < 4; ++l)
    for (unsigned p = 0; p < 4; ++p)
      for (unsigned d = 0; d < 4; ++d)
        x.b[16 * l + 4 * p + d] = uint8_t(4 * d + p);
  return x;
}
constexpr ByteIndex kTransposeBytes4 = transposeBytes4Index();

VMPACK_AVX512 inline __m512i load512(const uint8_t *p) {
  return _mm512_loadu_si512(p);
}
VMPACK_AVX512 inline void store512(uint8_t *p, __m512i v) {
  _mm512_storeu_si512(p, v);
}
/// Bitwise lowNibbles ? a : b.
VMPACK_AVX512 inline __m512i selectNibbles(__m512i lowNibbles, __m512i a,
                                           __m512i b) {
  return _mm512_ternarylogic_epi32(lowNibbles, a, b, 0xCA);
}

VMPACK_AVX512 void awqToGptqColumnsAVX512(const uint8_t *srcRow, uint64_t cols,
                                          uint64_t c, uint8_t *dstRow) {
  const __m512i lowNibbles = _mm512_set1_epi8(0x0F);
  const __m512i idx0 = load512(kAwqToGptqIndex[0].b),
                idx1 = load512(kAwqToGptqIndex[1].b);
  for (; c + 16 <= cols; c += 16) {
    __m512i y[2][4];
    for (unsigned p = 0; p < 4; ++p) {
      __m512i r0 = load512(srcRow + (2 * p * cols + c) * 4),
              r1 = load512(srcRow + ((2 * p + 1) * cols + c) * 4);
      // Each row is used twice: keep the compiler from loading it twice.
      asm("" : "+v"(r0), "+v"(r1));
      const __m512i l = selectNibbles(lowNibbles, r0, _mm512_slli_epi16(r1, 4));
      const __m512i h = selectNibbles(lowNibbles, _mm512_srli_epi16(r0, 4), r1);
      y[0][p] = _mm512_permutex2var_epi8(l, idx0, h);
      y[1][p] = _mm512_permutex2var_epi8(l, idx1, h);
    }
    for (unsigned s = 0; s < 2; ++s) {
      const __m512i a = _mm512_unpacklo_epi8(y[s][0], y[s][1]),
                    b = _mm512_unpackhi_epi8(y[s][0], y[s][1]),
                    e = _mm512_unpacklo_epi8(y[s][2], y[s][3]),
                    f = _mm512_unpackhi_epi8(y[s][2], y[s][3]);
      uint8_t *d = dstRow + (8 * c + 64 * s) * 4;
      store512(d, _mm512_unpacklo_epi16(a, e));
      store512(d + 64, _mm512_unpackhi_epi16(a, e));
      store512(d + 128, _mm512_unpacklo_epi16(b, f));
      store512(d + 192, _mm512_unpackhi_epi16(b, f));
    }
  }
  awqToGptqColumnsAVX2(srcRow, cols, c, dstRow);
}

VMPACK_AVX512 void gptqToAwqColumnsAVX512(const uint8_t *srcRow, uint64_t cols,
                                          uint64_t c, uint8_t *dstRow) {
  const __m512i lowNibbles = _mm512_set1_epi8(0x0F);
  const __m512i idxL = load512(kGptqToAwqIndex[0].b),
                idxH = load512(kGptqToAwqIndex[1].b),
                bytes4 = load512(kTransposeBytes4.b);
  for (; c + 16 <= cols; c += 16) {
    __m512i y[2][4];
    for (unsigned s = 0; s < 2; ++s) {
      const uint8_t *src = srcRow + (8 * c + 64 * s) * 4;
      __m512i t[4];
      for (unsigned m = 0; m < 4; ++m)
        t[m] = _mm512_shuffle_epi8(load512(src + 64 * m), bytes4);
      const __m512i lo01 = _mm512_unpacklo_epi32(t[0], t[1]),
                    hi01 = _mm512_unpackhi_epi32(t[0], t[1]),
                    lo23 = _mm512_unpacklo_epi32(t[2], t[3]),
                    hi23 = _mm512_unpackhi_epi32(t[2], t[3]);
      y[s][0] = _mm512_unpacklo_epi64(lo01, lo23);
      y[s][1] = _mm512_unpackhi_epi64(lo01, lo23);
      y[s][2] = _mm512_unpacklo_epi64(hi01, hi23);
      y[s][3] = _mm512_unpackhi_epi64(hi01, hi23);
    }
    for (unsigned p = 0; p < 4; ++p) {
      const __m512i l = _mm512_permutex2var_epi8(y[0][p], idxL, y[1][p]),
                    h = _mm512_permutex2var_epi8(y[0][p], idxH, y[1][p]);
      store512(dstRow + (2 * p * cols + c) * 4,
               selectNibbles(lowNibbles, l, _mm512_slli_epi16(h, 4)));
      store512(dstRow + ((2 * p + 1) * cols + c) * 4,
               selectNibbles(lowNibbles, _mm512_srli_epi16(l, 4), h));
    }
  }
  gptqToAwqColumnsAVX2(srcRow, cols, c, dstRow);
}

VMPACK_AVX512 void awqToGptqWordsAVX512(const uint8_t *awq, uint64_t n,
                                        uint64_t firstWord, uint64_t words,
                                        uint8_t *gptq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstWord; w < firstWord + words; ++w)
    awqToGptqColumnsAVX512(awq + 8 * w * cols * 4, cols, 0,
                           gptq + (w - firstWord) * n * 4);
}

VMPACK_AVX512 void gptqToAwqWordsAVX512(const uint8_t *gptq, uint64_t n,
                                        uint64_t firstRow, uint64_t rows,
                                        uint8_t *awq) {
  const uint64_t cols = n / 8;
  for (uint64_t w = firstRow / 8; w < (firstRow + rows) / 8; ++w)
    gptqToAwqColumnsAVX512(gptq + w * n * 4, cols, 0,
                           awq + (8 * w - firstRow) * cols * 4);
}

#undef VMPACK_AVX512
#endif // VMPACK_HFREPACK_AVX512

#undef VMPACK_AVX2
#endif // VMPACK_HFREPACK_AVX2

/// The word kernels of one dispatch level.
struct RepackKernels {
  void (*gptqToGgmlRows)(unsigned, const uint8_t *, const uint8_t *, uint64_t,
                         uint64_t, uint64_t, uint64_t, uint64_t, uint8_t *);
  void (*awqToGptqWords)(const uint8_t *, uint64_t, uint64_t, uint64_t,
                         uint8_t *);
  void (*gptqToAwqWords)(const uint8_t *, uint64_t, uint64_t, uint64_t,
                         uint8_t *);
};

constexpr RepackKernels kScalarKernels = {
    gptqToGgmlRowsScalar, awqToGptqWordsScalar, gptqToAwqWordsScalar};
#if VMPACK_HFREPACK_AVX2
constexpr RepackKernels kAVX2Kernels = {gptqToGgmlRowsAVX2, awqToGptqWordsAVX2,
                                        gptqToAwqWordsAVX2};
#else
constexpr RepackKernels kAVX2Kernels = kScalarKernels;
#endif
#if VMPACK_HFREPACK_AVX512
constexpr RepackKernels kAVX512Kernels = {
    gptqToGgmlRowsAVX2, awqToGptqWordsAVX512, gptqToAwqWordsAVX512};
#else
constexpr RepackKernels kAVX512Kernels = kAVX2Kernels;
#endif

/// Indexed by DispatchLevel: the 64-bit SWAR kernels below AVX2 (SSE2 and
/// SSE4.1 gain nothing over them here); levels this build does not carry
/// fall back to the highest one it does.
constexpr RepackKernels kKernels[kNumDispatchLevels] = {
    kScalarKernels, kScalarKernels, kScalarKernels, kAVX2Kernels,
    kAVX512Kernels};

const RepackKernels &kernelsAt(DispatchLevel level) {
  return kKernels[unsigned(level) < kNumDispatchLevels ? unsigned(level) : 0];
}

DispatchLevel activeLevel() {
  static const DispatchLevel level = activeDispatchLevel();
  return level;
}

} // namespace

void vmpack::quant::gptqToGgmlRowsAt(DispatchLevel level, unsigned bits,
                                     const uint8_t *qweight,
                                     const uint8_t *scales, uint64_t in,
                                     uint64_t out, uint64_t groupSize,
                                     uint64_t first, uint64_t count,
                                     uint8_t *blocks) {
  kernelsAt(level).gptqToGgmlRows(bits, qweight, scales, in, out, groupSize,
                                  first, count, blocks);
}

void vmpack::quant::gptqToGgmlRows(unsigned bits, const uint8_t *qweight,
                                   const uint8_t *scales, uint64_t in,
                                   uint64_t out, uint64_t groupSize,
                                   uint64_t first, uint64_t count,
                                   uint8_t *blocks) {
  gptqToGgmlRowsAt(activeLevel(), bits, qweight, scales, in, out, groupSize,
                   first, count, blocks);
}

void vmpack::quant::awqToGptqWordsAt(DispatchLevel level, const uint8_t *awq,
                                     uint64_t n, uint64_t firstWord,
                                     uint64_t words, uint8_t *gptq) {
  kernelsAt(level).awqToGptqWords(awq, n, firstWord, words, gptq);
}

void vmpack::quant::awqToGptqWords(const uint8_t *awq, uint64_t n,
                                   uint64_t firstWord, uint64_t words,
                                   uint8_t *gptq) {
  awqToGptqWordsAt(activeLevel(), awq, n, firstWord, words, gptq);
}

void vmpack::quant::gptqToAwqWordsAt(DispatchLevel level, const uint8_t *gptq,
                                     uint64_t n, uint64_t firstRow,
                                     uint64_t rows, uint8_t *awq) {
  kernelsAt(level).gptqToAwqWords(gptq, n, firstRow, rows, awq);
}

void vmpack::quant::gptqToAwqWords(const uint8_t *gptq, uint64_t n,
                                   uint64_t firstRow, uint64_t rows,
                                   uint8_t *awq) {
  gptqToAwqWordsAt(activeLevel(), gptq, n, firstRow, rows, awq);
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
