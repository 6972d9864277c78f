//===- PropertyTest.cpp - Fast kernels against the reference --------------===//
//
// For every width 1 ... 64 (and some wider), every pair of encodings, many
// lengths including odd tails, and unaligned buffers: the fast kernels give
// exactly the reference's bytes, never write outside their output, and
// never read outside their input (the input ends exactly where its
// encoding ends, so AddressSanitizer sees any over-read).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace vmpack;

namespace {

constexpr Encoding kEncodings[] = {Encoding::Packed, Encoding::Word,
                                   Encoding::Byte};

std::vector<uint32_t> widthsUnderTest() {
  std::vector<uint32_t> widths;
  for (uint32_t w = 1; w <= 64; ++w)
    widths.push_back(w);
  for (uint32_t w : {65u, 72u, 80u, 100u, 128u})
    widths.push_back(w);
  return widths;
}

std::vector<uint64_t> lengthsFor(uint32_t bitWidth, std::mt19937_64 &rng) {
  std::vector<uint64_t> lengths = {0,  1,  2,  3,  7,  8,  9,
                                   15, 16, 17, 63, 64, 65, 1000};
  uint64_t g = elementGranule(bitWidth);
  for (uint64_t k : {1, 2, 5})
    for (int64_t d : {-1, 0, 1})
      lengths.push_back(uint64_t(int64_t(k * g) + d));
  for (int i = 0; i < 6; ++i)
    lengths.push_back(rng() % 1001);
  return lengths;
}

/// A buffer whose usable bytes start `misalign` bytes into an allocation of
/// exactly misalign + size bytes.
struct Buffer {
  std::vector<uint8_t> storage;
  size_t misalign;
  Buffer(size_t size, size_t misalign, uint8_t fill)
      : storage(size + misalign, fill), misalign(misalign) {}
  uint8_t *data() { return storage.data() + misalign; }
  size_t size() const { return storage.size() - misalign; }
};

class PackProperty : public ::testing::TestWithParam<uint32_t> {};

TEST_P(PackProperty, FastMatchesReferenceForEveryEncodingPair) {
  uint32_t w = GetParam();
  std::mt19937_64 rng(0x5eed0000 + w);
  for (Encoding from : kEncodings) {
    if (!isEncodable(from, w))
      continue;
    for (Encoding to : kEncodings) {
      if (!isEncodable(to, w))
        continue;
      for (uint64_t n : lengthsFor(w, rng)) {
        SCOPED_TRACE(testing::Message()
                     << "W=" << w << " " << encodingName(from) << "->"
                     << encodingName(to) << " n=" << n);
        // Random source bytes, garbage in unused bits included.
        Buffer src(*encodedSize(from, w, n), rng() % 8, 0);
        for (size_t i = 0; i < src.size(); ++i)
          src.data()[i] = uint8_t(rng());
        size_t dstSize = *encodedSize(to, w, n);
        constexpr size_t kGuard = 16;
        std::vector<uint8_t> fast(dstSize + kGuard, 0xA5);
        std::vector<uint8_t> slow(dstSize, 0x5A);
        size_t off = rng() % 8;
        std::vector<uint8_t> fastMisaligned(off + dstSize + kGuard, 0xA5);
        convert(from, to, w, src.data(), fast.data(), n);
        convert(from, to, w, src.data(), fastMisaligned.data() + off, n);
        reference::convert(from, to, w, src.data(), slow.data(), n);
        ASSERT_TRUE(std::equal(slow.begin(), slow.end(), fast.begin()));
        ASSERT_TRUE(
            std::equal(slow.begin(), slow.end(), fastMisaligned.begin() + off));
        for (size_t i = 0; i < kGuard; ++i)
          ASSERT_EQ(fast[dstSize + i], 0xA5) << "wrote past the end";
      }
    }
  }
}

TEST_P(PackProperty, ChunkedConversionEqualsWholeConversion) {
  uint32_t w = GetParam();
  std::mt19937_64 rng(0xC4A7 + w);
  uint64_t g = elementGranule(w);
  uint64_t n = 37 * g + rng() % g;
  for (Encoding from : kEncodings) {
    for (Encoding to : kEncodings) {
      if (!isEncodable(from, w) || !isEncodable(to, w))
        continue;
      std::vector<uint8_t> src(*encodedSize(from, w, n));
      for (auto &b : src)
        b = uint8_t(rng());
      std::vector<uint8_t> whole(*encodedSize(to, w, n));
      std::vector<uint8_t> chunked(whole.size(), 0xEE);
      convert(from, to, w, src.data(), whole.data(), n);
      for (uint64_t first = 0; first < n;) {
        uint64_t len = std::min<uint64_t>((1 + rng() % 5) * g, n - first);
        convert(from, to, w, src.data() + granuleByteOffset(from, w, first),
                chunked.data() + granuleByteOffset(to, w, first), len);
        first += len;
      }
      EXPECT_EQ(whole, chunked)
          << encodingName(from) << "->" << encodingName(to);
    }
  }
}

TEST_P(PackProperty, RoundTripThroughEveryEncodingIsLossless) {
  uint32_t w = GetParam();
  std::mt19937_64 rng(0xB00 + w);
  uint64_t n = 1 + rng() % 1000;
  std::vector<uint8_t> mlir(*encodedSize(Encoding::Byte, w, n));
  for (auto &b : mlir)
    b = uint8_t(rng());
  std::vector<uint8_t> normalized(mlir.size());
  reference::convert(Encoding::Byte, Encoding::Byte, w, mlir.data(),
                     normalized.data(), n);
  for (Encoding via : kEncodings) {
    if (!isEncodable(via, w))
      continue;
    std::vector<uint8_t> mid(*encodedSize(via, w, n)), back(mlir.size());
    convert(Encoding::Byte, via, w, mlir.data(), mid.data(), n);
    convert(via, Encoding::Byte, w, mid.data(), back.data(), n);
    EXPECT_EQ(back, normalized) << encodingName(via);
  }
}

class ReadProperty : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ReadProperty, ReadElementMatchesReference) {
  uint32_t w = GetParam();
  std::mt19937_64 rng(0xE1E + w);
  uint64_t n = 1 + rng() % 300;
  for (Encoding enc : kEncodings) {
    Buffer src(*encodedSize(enc, w, n), rng() % 8, 0);
    for (size_t i = 0; i < src.size(); ++i)
      src.data()[i] = uint8_t(rng());
    for (uint64_t k = 0; k < n; ++k)
      ASSERT_EQ(readElement(enc, w, src.data(), k),
                reference::readElement(enc, w, src.data(), k))
          << encodingName(enc) << " k=" << k;
  }
}

INSTANTIATE_TEST_SUITE_P(AllWidths, PackProperty,
                         ::testing::ValuesIn(widthsUnderTest()),
                         [](const auto &info) {
                           return "W" + std::to_string(info.param);
                         });

INSTANTIATE_TEST_SUITE_P(Widths1To64, ReadProperty, ::testing::Range(1u, 65u),
                         [](const auto &info) {
                           return "W" + std::to_string(info.param);
                         });

} // namespace
