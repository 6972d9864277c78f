//===- HfRepackTest.cpp - GPTQ/AWQ repack kernels at every level ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Property tests of vmpack/Quant/HfRepack.h's word kernels: at every
// dispatch level this build and CPU support, on random words (with
// all-zero, all-one and sign-bit patterns mixed in) of shapes that cross the
// 8-column vector steps and the 256-row tiles, split into ragged calls, the
// bytes must equal an element-by-element reference written from the
// layouts of docs/quant.md sections 3 and 8.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/HfRepack.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;

namespace {

std::vector<DispatchLevel> supportedLevels() {
  std::vector<DispatchLevel> levels;
  for (unsigned i = 0; i < kNumDispatchLevels; ++i)
    if (isDispatchLevelSupported(DispatchLevel(i)))
      levels.push_back(DispatchLevel(i));
  return levels;
}

/// Random words, one in eight of them an edge pattern.
std::vector<uint32_t> randomWords(std::mt19937 &rng, uint64_t n) {
  static const uint32_t kEdges[] = {0u,          0xFFFFFFFFu, 0x88888888u,
                                    0x80808080u, 0x77777777u, 0x7F7F7F7Fu,
                                    0x0F0F0F0Fu, 0xF0F0F0F0u};
  std::vector<uint32_t> w(n);
  for (auto &v : w)
    v = rng() % 8 == 0 ? kEdges[rng() % 8] : uint32_t(rng());
  return w;
}

template <typename T> const uint8_t *bytesOf(const std::vector<T> &v) {
  return reinterpret_cast<const uint8_t *>(v.data());
}
template <typename T> uint8_t *bytesOf(std::vector<T> &v) {
  return reinterpret_cast<uint8_t *>(v.data());
}

/// Code [i, o] of a GPTQ qweight [in * bits / 32, out]: bits * (i % per)
/// up in word (i / per, o), per = 32 / bits.
unsigned gptqCode(const std::vector<uint32_t> &qweight, uint64_t out,
                  unsigned bits, uint64_t i, uint64_t o) {
  const unsigned per = 32 / bits;
  return (qweight[(i / per) * out + o] >> (bits * (i % per))) &
         ((1u << bits) - 1);
}

/// Rows [first, first + count) as Q4_0 (18-byte blocks: f16 d, then byte j
/// = code j | code j + 16 << 4) or Q8_0 (34 bytes: d, then code - 128).
std::vector<uint8_t> referenceBlocks(unsigned bits,
                                     const std::vector<uint32_t> &qweight,
                                     const std::vector<uint16_t> &scales,
                                     uint64_t in, uint64_t out, uint64_t group,
                                     uint64_t first, uint64_t count) {
  const uint64_t blockBytes = bits == 4 ? 18 : 34;
  std::vector<uint8_t> blocks;
  for (uint64_t o = first; o < first + count; ++o)
    for (uint64_t b = 0; b < in / 32; ++b) {
      uint16_t d = scales[(32 * b / group) * out + o];
      uint8_t block[34];
      std::memcpy(block, &d, 2);
      for (unsigned j = 0; j < 32; ++j) {
        unsigned q = gptqCode(qweight, out, bits, 32 * b + j, o);
        if (bits == 8)
          block[2 + j] = uint8_t(q - 128);
        else if (j < 16)
          block[2 + j] = uint8_t(q);
        else
          block[2 + j - 16] |= uint8_t(q << 4);
      }
      blocks.insert(blocks.end(), block, block + blockBytes);
    }
  return blocks;
}

TEST(HfRepackKernels, GptqToGgmlRowsEqualsTheReferenceAtEveryLevel) {
  struct Shape {
    uint64_t in, out, group;
  };
  // out: a lone row, vector steps with and without a tail, one and two
  // 256-row tiles with ragged ends.
  const Shape shapes[] = {{32, 1, 32},   {64, 7, 32},     {32, 8, 32},
                          {96, 9, 32},   {128, 13, 64},   {256, 64, 128},
                          {64, 257, 64}, {256, 300, 256}, {128, 520, 32}};
  std::mt19937 rng(22);
  for (unsigned bits : {4u, 8u})
    for (const Shape &s : shapes) {
      std::vector<uint32_t> qweight =
          randomWords(rng, s.in * bits / 32 * s.out);
      std::vector<uint16_t> scales(s.in / s.group * s.out);
      for (auto &v : scales)
        v = uint16_t(rng()); // any bits: the kernels copy them
      const uint64_t blockBytes = bits == 4 ? 18 : 34;
      const uint64_t rowBytes = s.in / 32 * blockBytes;
      const std::vector<uint8_t> want = referenceBlocks(
          bits, qweight, scales, s.in, s.out, s.group, 0, s.out);
      for (DispatchLevel level : supportedLevels()) {
        SCOPED_TRACE(std::string(dispatchLevelName(level)) + ", " +
                     std::to_string(bits) + " bits, [" + std::to_string(s.out) +
                     ", " + std::to_string(s.in) + "], group " +
                     std::to_string(s.group));
        std::vector<uint8_t> got(s.out * rowBytes, 0xA5);
        gptqToGgmlRowsAt(level, bits, bytesOf(qweight), bytesOf(scales), s.in,
                         s.out, s.group, 0, s.out, got.data());
        EXPECT_EQ(got, want);
        // Ragged calls: rows [0, 3), [3, out - 1), [out - 1, out).
        if (s.out < 4)
          continue;
        std::vector<uint8_t> parts(s.out * rowBytes, 0x5A);
        const uint64_t cuts[] = {0, 3, s.out - 1, s.out};
        for (unsigned k = 0; k < 3; ++k)
          gptqToGgmlRowsAt(level, bits, bytesOf(qweight), bytesOf(scales), s.in,
                           s.out, s.group, cuts[k], cuts[k + 1] - cuts[k],
                           parts.data() + cuts[k] * rowBytes);
        EXPECT_EQ(parts, want);
      }
    }
}

TEST(HfRepackKernels, AwqAndGptqWordsEqualTheReferenceAtEveryLevel) {
  constexpr unsigned kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  struct Shape {
    uint64_t k, n;
  };
  // n / 8 word columns: 1, 7, 8, 9, 16, 17, 31, 32, 33 and 57 (the 8- and
  // 16-column vector steps and their tails).
  const Shape shapes[] = {{8, 8},    {16, 56},  {8, 64},  {24, 72},  {64, 128},
                          {40, 136}, {16, 248}, {8, 256}, {24, 264}, {32, 456}};
  std::mt19937 rng(23);
  for (const Shape &s : shapes) {
    // The matrix, code by code, packed both ways.
    std::vector<uint8_t> q(s.k * s.n);
    for (auto &v : q)
      v = uint8_t(rng() % 5 == 0 ? (rng() % 2) * 15 : rng() & 15);
    std::vector<uint32_t> awq(s.k * s.n / 8, 0), gptq(s.k / 8 * s.n, 0);
    for (uint64_t i = 0; i < s.k; ++i)
      for (uint64_t c = 0; c < s.n / 8; ++c)
        for (unsigned j = 0; j < 8; ++j)
          awq[i * (s.n / 8) + c] |= uint32_t(q[i * s.n + 8 * c + kAwqOrder[j]])
                                    << (4 * j);
    for (uint64_t w = 0; w < s.k / 8; ++w)
      for (uint64_t o = 0; o < s.n; ++o)
        for (unsigned r = 0; r < 8; ++r)
          gptq[w * s.n + o] |= uint32_t(q[(8 * w + r) * s.n + o]) << (4 * r);
    for (DispatchLevel level : supportedLevels()) {
      SCOPED_TRACE(std::string(dispatchLevelName(level)) + ", [" +
                   std::to_string(s.k) + ", " + std::to_string(s.n) + "]");
      std::vector<uint32_t> got(gptq.size(), 0xA5A5A5A5u);
      awqToGptqWordsAt(level, bytesOf(awq), s.n, 0, s.k / 8, bytesOf(got));
      EXPECT_EQ(got, gptq);
      std::vector<uint32_t> back(awq.size(), 0x5A5A5A5Au);
      gptqToAwqWordsAt(level, bytesOf(gptq), s.n, 0, s.k, bytesOf(back));
      EXPECT_EQ(back, awq);
      if (s.k < 16)
        continue;
      // In two calls each: word row 1 first, then the rest.
      std::fill(got.begin(), got.end(), 0);
      awqToGptqWordsAt(level, bytesOf(awq), s.n, 1, s.k / 8 - 1,
                       bytesOf(got) + s.n * 4);
      awqToGptqWordsAt(level, bytesOf(awq), s.n, 0, 1, bytesOf(got));
      EXPECT_EQ(got, gptq);
      std::fill(back.begin(), back.end(), 0);
      gptqToAwqWordsAt(level, bytesOf(gptq), s.n, 8, s.k - 8,
                       bytesOf(back) + 8 * (s.n / 8) * 4);
      gptqToAwqWordsAt(level, bytesOf(gptq), s.n, 0, 8, bytesOf(back));
      EXPECT_EQ(back, awq);
    }
  }
}

} // namespace
