//===- EncodingTest.cpp ---------------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/Encoding.h"

#include <gtest/gtest.h>

using namespace vmpack;

namespace {

TEST(Encoding, Names) {
  for (Encoding e : {Encoding::Packed, Encoding::Word, Encoding::Byte})
    EXPECT_EQ(parseEncoding(encodingName(e)), e);
  EXPECT_FALSE(parseEncoding("foo"));
  EXPECT_FALSE(parseEncoding("Packed"));
}

TEST(Encoding, WordLayoutFollowsTheFormula) {
  // (W, P, E) from docs/packing.md.
  const uint32_t table[][3] = {
      {1, 8, 1},   {2, 8, 4},   {3, 8, 2},   {4, 8, 2},   {5, 16, 3},
      {6, 16, 2},  {7, 16, 2},  {9, 32, 3},  {12, 32, 2}, {15, 32, 2},
      {17, 64, 3}, {19, 64, 3}, {21, 64, 3}, {31, 64, 2}, {33, 64, 1},
      {63, 64, 1}, {8, 8, 1},   {16, 16, 1}, {24, 24, 1}, {80, 80, 1}};
  for (const auto &row : table) {
    WordLayout l = wordLayout(row[0]);
    EXPECT_EQ(l.wordBits, row[1]) << "W=" << row[0];
    EXPECT_EQ(l.elementsPerWord, row[2]) << "W=" << row[0];
  }
}

TEST(Encoding, Sizes) {
  EXPECT_EQ(encodedSize(Encoding::Packed, 4, 17), 9u);
  EXPECT_EQ(encodedSize(Encoding::Packed, 3, 8), 3u);
  EXPECT_EQ(encodedSize(Encoding::Packed, 1, 10), 2u);
  EXPECT_EQ(encodedSize(Encoding::Packed, 65, 1), 9u);
  EXPECT_EQ(encodedSize(Encoding::Word, 9, 5), 8u);
  EXPECT_EQ(encodedSize(Encoding::Word, 1, 10), 10u);
  EXPECT_EQ(encodedSize(Encoding::Byte, 17, 2), 6u);
  EXPECT_EQ(encodedSize(Encoding::Packed, 4, 0), 0u);
  EXPECT_FALSE(encodedSize(Encoding::Word, 65, 1));
  EXPECT_EQ(encodedSize(Encoding::Word, 72, 2), 18u);
  EXPECT_FALSE(isEncodable(Encoding::Packed, 0));
}

TEST(Encoding, SizesNeverOverflowSilently) {
  EXPECT_FALSE(encodedSize(Encoding::Byte, 64, UINT64_MAX));
  EXPECT_FALSE(encodedSize(Encoding::Packed, 64, UINT64_MAX));
  EXPECT_EQ(encodedSize(Encoding::Packed, 4, UINT64_MAX), UINT64_MAX / 2 + 1);
  EXPECT_EQ(encodedSize(Encoding::Word, 4, UINT64_MAX), UINT64_MAX / 2 + 1);
  EXPECT_FALSE(encodedSize(Encoding::Word, 64, UINT64_MAX));
}

TEST(Encoding, GranulesStartOnByteBoundaries) {
  for (uint32_t w = 1; w <= 64; ++w) {
    uint64_t g = elementGranule(w);
    EXPECT_EQ(g * w % 8, 0u) << w;
    EXPECT_EQ(g % wordLayout(w).elementsPerWord, 0u) << w;
    for (Encoding e : {Encoding::Packed, Encoding::Word, Encoding::Byte})
      EXPECT_EQ(granuleByteOffset(e, w, 3 * g), *encodedSize(e, w, 3 * g)) << w;
  }
}

} // namespace
