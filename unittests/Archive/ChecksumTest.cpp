//===- ChecksumTest.cpp - Every CRC-32 implementation agrees
//---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each implementation compiled in (zlib always; ISA-L, libdeflate when found)
// is checked against the CRC-32 check value, against a bit-at-a-time
// reference on random data of many lengths and alignments, and for
// continuation across arbitrary split points.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Checksum.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace vmpack::archive;

namespace {

/// The CRC-32 of ISO 3309 / ITU-T V.42 / ZIP, one bit at a time.
uint32_t referenceCrc32(uint32_t crc, const uint8_t *data, size_t size) {
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::vector<uint8_t> randomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (auto &b : bytes)
    b = uint8_t(rng());
  return bytes;
}

class Crc32Test : public testing::TestWithParam<Crc32Implementation> {};

TEST_P(Crc32Test, CheckValue) {
  const char *check = "123456789";
  EXPECT_EQ(crc32UpdateWith(GetParam(), 0, check, 9), 0xCBF43926u);
  EXPECT_EQ(crc32UpdateWith(GetParam(), 0, check, 0), 0u);
  EXPECT_EQ(crc32UpdateWith(GetParam(), 0x12345678u, check, 0), 0x12345678u);
}

TEST_P(Crc32Test, MatchesReferenceOnRandomData) {
  // Lengths around every kernel's block sizes (16, 64, 256 bytes and more)
  // at every alignment of the start within a 64-byte line.
  std::vector<uint8_t> bytes = randomBytes(70000, 1);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n)
    lengths.push_back(n);
  for (size_t n : {511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 65535,
                   65536, 65537, 69000})
    lengths.push_back(n);
  for (size_t offset = 0; offset < 64; offset += 7)
    for (size_t n : lengths) {
      ASSERT_EQ(crc32UpdateWith(GetParam(), 0, bytes.data() + offset, n),
                referenceCrc32(0, bytes.data() + offset, n))
          << crc32ImplementationName(GetParam()) << " offset " << offset
          << " length " << n;
    }
}

TEST_P(Crc32Test, ContinuesAcrossSplits) {
  std::vector<uint8_t> bytes = randomBytes(1 << 20, 2);
  uint32_t whole = referenceCrc32(0, bytes.data(), bytes.size());
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    size_t a = rng() % bytes.size(), b = rng() % bytes.size();
    if (a > b)
      std::swap(a, b);
    uint32_t crc = crc32UpdateWith(GetParam(), 0, bytes.data(), a);
    crc = crc32UpdateWith(GetParam(), crc, bytes.data() + a, b - a);
    crc = crc32UpdateWith(GetParam(), crc, bytes.data() + b, bytes.size() - b);
    ASSERT_EQ(crc, whole) << "split at " << a << ", " << b;
    // The same pieces computed independently and combined.
    uint32_t c1 = crc32UpdateWith(GetParam(), 0, bytes.data(), a);
    uint32_t c2 = crc32UpdateWith(GetParam(), 0, bytes.data() + a, b - a);
    uint32_t c3 =
        crc32UpdateWith(GetParam(), 0, bytes.data() + b, bytes.size() - b);
    ASSERT_EQ(crc32Combine(crc32Combine(c1, c2, b - a), c3, bytes.size() - b),
              whole);
  }
}

TEST_P(Crc32Test, AgreesWithEveryOtherImplementation) {
  std::vector<uint8_t> bytes = randomBytes(3 << 20, 4);
  uint32_t mine = crc32UpdateWith(GetParam(), 0, bytes.data(), bytes.size());
  for (Crc32Implementation other : availableCrc32Implementations())
    EXPECT_EQ(mine, crc32UpdateWith(other, 0, bytes.data(), bytes.size()))
        << crc32ImplementationName(GetParam()) << " vs "
        << crc32ImplementationName(other);
  EXPECT_EQ(mine, crc32Update(0, bytes.data(), bytes.size()));
}

std::string implName(const testing::TestParamInfo<Crc32Implementation> &i) {
  std::string name = crc32ImplementationName(i.param);
  for (char &c : name)
    if (c == '-')
      c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Available, Crc32Test,
                         testing::ValuesIn(availableCrc32Implementations()),
                         implName);

TEST(Crc32, DefaultIsListedFirstAndZlibIsAlwaysBuilt) {
  auto all = availableCrc32Implementations();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front(), defaultCrc32Implementation());
  EXPECT_EQ(all.back(), Crc32Implementation::Zlib);
}

} // namespace
