//===- TestVectorsTest.cpp - docs/packing.md's test vectors, exactly ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/Convert.h"

#include <gtest/gtest.h>

#include <vector>

using namespace vmpack;

namespace {

/// Elements given as values, laid out as MLIR stores them (`byte`: ceil(W/8)
/// little-endian bytes each).
std::vector<uint8_t> byteLayout(uint32_t bitWidth,
                                const std::vector<uint64_t> &values) {
  uint32_t stride = (bitWidth + 7) / 8;
  std::vector<uint8_t> bytes(values.size() * stride);
  for (size_t i = 0; i < values.size(); ++i)
    for (uint32_t b = 0; b < stride; ++b)
      bytes[i * stride + b] = uint8_t(values[i] >> (8 * b));
  return bytes;
}

struct Vector {
  const char *name;
  Encoding encoding;
  uint32_t bitWidth;
  std::vector<uint64_t> values;
  std::vector<uint8_t> expected;
};

class TestVectors : public ::testing::TestWithParam<Vector> {};

TEST_P(TestVectors, FastAndReferenceGiveTheSpecBytes) {
  const Vector &v = GetParam();
  std::vector<uint8_t> in = byteLayout(v.bitWidth, v.values);
  ASSERT_EQ(*encodedSize(v.encoding, v.bitWidth, v.values.size()),
            v.expected.size());
  std::vector<uint8_t> fast(v.expected.size(), 0xAA);
  std::vector<uint8_t> slow(v.expected.size(), 0xAA);
  convert(Encoding::Byte, v.encoding, v.bitWidth, in.data(), fast.data(),
          v.values.size());
  reference::convert(Encoding::Byte, v.encoding, v.bitWidth, in.data(),
                     slow.data(), v.values.size());
  EXPECT_EQ(fast, v.expected);
  EXPECT_EQ(slow, v.expected);

  // And back: every element reads as its value.
  for (size_t i = 0; i < v.values.size(); ++i) {
    EXPECT_EQ(readElement(v.encoding, v.bitWidth, fast.data(), i), v.values[i]);
  }
  std::vector<uint8_t> back(in.size());
  convert(v.encoding, Encoding::Byte, v.bitWidth, fast.data(), back.data(),
          v.values.size());
  EXPECT_EQ(back, in);
}

std::vector<Vector> specVectors() {
  using E = Encoding;
  return {
      // `word`: IREE's own expectations for its VM rodata.
      {"word_i2", E::Word, 2, {0, 1, 2, 3, 2, 2, 1, 0, 3}, {228, 26, 3}},
      {"word_i3", E::Word, 3, {0, 1, 2, 3, 4, 5, 6, 7}, {8, 26, 44, 62}},
      {"word_i4",
       E::Word,
       4,
       {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14},
       {16, 50, 84, 118, 152, 186, 220, 254, 14}},
      {"word_i5", E::Word, 5, {2, 3, 4, 5, 6, 7}, {98, 16, 197, 28}},
      {"word_i9", E::Word, 9, {1, 2, 3, 4, 5}, {1, 4, 12, 0, 4, 10, 0, 0}},
      {"word_f16",
       E::Word,
       16,
       {0x3C00, 0x4000, 0x4200},
       {0, 60, 0, 64, 0, 66}},
      {"word_i1", E::Word, 1, {1, 0, 1, 1}, {1, 0, 1, 1}},
      // `packed`.
      {"packed_i3", E::Packed, 3, {0, 1, 2, 3, 4, 5, 6, 7}, {0x88, 0xC6, 0xFA}},
      {"packed_i1", E::Packed, 1, {1, 0, 1, 1, 0, 0, 0, 0, 1, 1}, {0x0D, 0x03}},
      {"packed_i4", E::Packed, 4, {1, 2, 3, 4, 5}, {0x21, 0x43, 0x05}},
      {"packed_i2", E::Packed, 2, {3, 0, 1, 2, 1}, {0x93, 0x01}},
      {"packed_i5", E::Packed, 5, {2, 3, 4, 5, 6, 7}, {0x62, 0x90, 0x62, 0x0E}},
      {"packed_i12",
       E::Packed,
       12,
       {0xABC, 0x123, 0xFFF},
       {0xBC, 0x3A, 0x12, 0xFF, 0x0F}},
      // `byte`.
      {"byte_i3", E::Byte, 3, {7, 0, 5}, {7, 0, 5}},
      {"byte_i12", E::Byte, 12, {0xABC, 0x123}, {0xBC, 0x0A, 0x23, 0x01}},
      {"byte_i17", E::Byte, 17, {0x1FFFF}, {0xFF, 0xFF, 0x01}},
  };
}

INSTANTIATE_TEST_SUITE_P(Spec, TestVectors, ::testing::ValuesIn(specVectors()),
                         [](const auto &info) { return info.param.name; });

TEST(TestVectors, HighBitsOfMlirStorageAreIgnored) {
  // MLIR does not mask unused high bits; the kernels must.
  std::vector<uint8_t> in = {0xF3, 0x7E, 0xA1};
  std::vector<uint8_t> packed(2), word(2), byte(3);
  convert(Encoding::Byte, Encoding::Packed, 4, in.data(), packed.data(), 3);
  convert(Encoding::Byte, Encoding::Word, 4, in.data(), word.data(), 3);
  convert(Encoding::Byte, Encoding::Byte, 4, in.data(), byte.data(), 3);
  EXPECT_EQ(packed, (std::vector<uint8_t>{0xE3, 0x01}));
  EXPECT_EQ(word, (std::vector<uint8_t>{0xE3, 0x01}));
  EXPECT_EQ(byte, (std::vector<uint8_t>{0x03, 0x0E, 0x01}));
}

TEST(TestVectors, MlirI1StorageIsThePackedBitmask) {
  EXPECT_EQ(mlirStorageEncoding(1), Encoding::Packed);
  EXPECT_EQ(mlirStorageEncoding(4), Encoding::Byte);
  EXPECT_EQ(mlirStorageEncoding(16), Encoding::Byte);
  // MLIR's bitmask of [1,0,1,1,0,0,0,0,1,1] with garbage past element 10.
  std::vector<uint8_t> mlir = {0x0D, 0xFF};
  std::vector<uint8_t> packed(2), word(10);
  convert(mlirStorageEncoding(1), Encoding::Packed, 1, mlir.data(),
          packed.data(), 10);
  convert(mlirStorageEncoding(1), Encoding::Word, 1, mlir.data(), word.data(),
          10);
  EXPECT_EQ(packed, (std::vector<uint8_t>{0x0D, 0x03}));
  EXPECT_EQ(word, (std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 0, 1, 1}));
}

} // namespace
