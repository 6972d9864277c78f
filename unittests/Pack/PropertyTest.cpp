//===- PropertyTest.cpp - Fast kernels against the reference --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For every width 1 ... 64 (and some wider), every pair of encodings, many
// lengths including odd tails, and unaligned buffers: the fast kernels give
// exactly the reference's bytes, never write outside their output, and
// never read outside their input (the input ends exactly where its
// encoding ends, so AddressSanitizer sees any over-read). The same for
// widening to integers and decoding floats.
//
// The kernels run at the level Dispatch.h chooses; CTest runs this file once
// per level the build carries, with VMPACK_DISPATCH set.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"
#include "vmpack/Pack/Dispatch.h"

#include <gtest/gtest.h>

#include <iostream>

#include <cmath>
#include <cstdlib>
#include <cstring>
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

TEST(Dispatch, RequestedLevelIsActive) {
  const char *env = std::getenv("VMPACK_DISPATCH");
  std::cout << "dispatch level: " << dispatchLevelName(activeDispatchLevel())
            << " (best " << dispatchLevelName(bestDispatchLevel()) << ")\n";
  if (!env)
    GTEST_SKIP() << "VMPACK_DISPATCH is not set";
  std::optional<DispatchLevel> wanted = parseDispatchLevel(env);
  ASSERT_TRUE(wanted) << env;
  if (!isDispatchLevelSupported(*wanted))
    GTEST_SKIP() << "level " << env << " is not supported on this machine";
  EXPECT_EQ(activeDispatchLevel(), *wanted);
}

TEST(Dispatch, NamesRoundTrip) {
  for (unsigned i = 0; i < kNumDispatchLevels; ++i)
    EXPECT_EQ(parseDispatchLevel(dispatchLevelName(DispatchLevel(i))),
              DispatchLevel(i));
  EXPECT_FALSE(parseDispatchLevel("avx"));
  EXPECT_TRUE(isDispatchLevelSupported(DispatchLevel::Portable));
  EXPECT_TRUE(isDispatchLevelSupported(bestDispatchLevel()));
}

class UnpackProperty : public ::testing::TestWithParam<uint32_t> {};

TEST_P(UnpackProperty, UnpackToIntMatchesReference) {
  uint32_t w = GetParam();
  std::mt19937_64 rng(0x1A7 + w);
  for (Encoding enc : kEncodings) {
    for (unsigned dstBytes : {1u, 2u, 4u, 8u}) {
      if (w > 8 * dstBytes)
        continue;
      for (bool sign : {false, true}) {
        for (uint64_t count : lengthsFor(w, rng)) {
          uint64_t first = rng() % 3 == 0 ? 0 : rng() % 70;
          SCOPED_TRACE(testing::Message()
                       << "W=" << w << " " << encodingName(enc)
                       << " dst=" << dstBytes << " sign=" << sign
                       << " first=" << first << " count=" << count);
          // The source ends exactly after the last element read.
          Buffer src(*encodedSize(enc, w, first + count), rng() % 8, 0);
          for (size_t i = 0; i < src.size(); ++i)
            src.data()[i] = uint8_t(rng());
          size_t size = count * dstBytes;
          Buffer fast(size, rng() % 8, 0xA5);
          std::vector<uint8_t> slow(size);
          unpackToInt(enc, w, sign, src.data(), first, count, fast.data(),
                      dstBytes);
          reference::unpackToInt(enc, w, sign, src.data(), first, count,
                                 slow.data(), dstBytes);
          ASSERT_TRUE(std::equal(slow.begin(), slow.end(), fast.data()));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths1To64, UnpackProperty, ::testing::Range(1u, 65u),
                         [](const auto &info) {
                           return "W" + std::to_string(info.param);
                         });

/// The same value, or both NaN.
bool sameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

TEST(UnpackProperty, UnpackToFloat32MatchesReference) {
  std::mt19937_64 rng(0xF10A7);
  for (unsigned k = 0; k < 64; ++k) {
    auto kind = ScalarKind(k);
    if (!floatFormat(kind))
      continue;
    uint32_t w = impliedWidth(kind);
    for (Encoding enc : kEncodings) {
      if (!isEncodable(enc, w))
        continue;
      for (uint64_t count : lengthsFor(w, rng)) {
        uint64_t first = rng() % 3 == 0 ? 0 : rng() % 70;
        SCOPED_TRACE(testing::Message() << toString(ScalarType::floatKind(kind))
                                        << " " << encodingName(enc) << " first="
                                        << first << " count=" << count);
        Buffer src(*encodedSize(enc, w, first + count), rng() % 8, 0);
        for (size_t i = 0; i < src.size(); ++i)
          src.data()[i] = uint8_t(rng());
        Buffer fast(count * 4, 4 * (rng() % 2), 0xA5);
        std::vector<float> slow(count);
        auto *out = reinterpret_cast<float *>(fast.data());
        unpackToFloat32(enc, kind, src.data(), first, count, out);
        reference::unpackToFloat32(enc, kind, src.data(), first, count,
                                   slow.data());
        for (uint64_t i = 0; i < count; ++i)
          ASSERT_TRUE(sameFloat(out[i], slow[i]))
              << "element " << i << ": " << out[i] << " vs " << slow[i];
      }
    }
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
