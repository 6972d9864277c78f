//===- GgmlQuantizeTest.cpp - vmpack's quantizers against ggml's ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// quantizeGgmlBlocks must write, byte for byte, what libggml-base.so's
// ggml_quantize_chunk writes for Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 (no
// importance matrix: ggml's reference quantizers), for rows of zeros,
// normal values, huge and tiny magnitudes, subnormals, ties, spikes, small
// integers, and infinities and NaNs. ggmlFloatToHalf must agree with
// ggml's float16 (checked through the Q8_0 scale of one-value blocks) and
// with round-to-nearest-even computed in double.
//
//===----------------------------------------------------------------------===//

#include "GgmlLibrary.h"

#include "vmpack/Quant/GgmlQuantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace vmpack::quant;
using vmpack::testing::GgmlLibrary;

namespace {

const uint32_t kTypes[] = {kGgmlQ4_0, kGgmlQ4_1, kGgmlQ5_0, kGgmlQ5_1,
                           kGgmlQ8_0};

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Rows of 256 values of every kind the quantizers meet.
std::vector<std::vector<float>> testRows(bool withNonFinite) {
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<uint32_t> any;
  std::vector<std::vector<float>> rows;
  auto row = [&](auto gen) {
    std::vector<float> r(256);
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = gen(i);
    rows.push_back(std::move(r));
  };
  row([](size_t) { return 0.0f; });
  row([](size_t i) { return i % 2 ? -0.0f : 0.0f; });
  for (int k = 0; k < 8; ++k)
    row([&](size_t) { return normal(rng); });
  row([&](size_t) { return normal(rng) * 1e30f; });
  row([&](size_t) { return normal(rng) * 6e4f; });   // near float16's max
  row([&](size_t) { return normal(rng) * 1e-6f; });  // float16 subnormal d
  row([&](size_t) { return normal(rng) * 1e-40f; }); // float32 subnormals
  row([&](size_t i) { return float(int(i % 17) - 8); });
  row([&](size_t i) { return float(int(i % 32) - 16) * 0.5f; });
  row([&](size_t i) { return i % 32 == 5 ? 100.0f : normal(rng) * 0.01f; });
  row([&](size_t i) { return i % 32 == 7 ? -100.0f : normal(rng) * 0.01f; });
  row([&](size_t) { return 3.0f; });
  row([&](size_t i) { return i < 128 ? 1.0f : -1.0f; });
  row([&](size_t) { // random finite bit patterns
    float f;
    do
      f = fromBits(any(rng));
    while (!std::isfinite(f));
    return f;
  });
  if (withNonFinite) {
    const float inf = std::numeric_limits<float>::infinity();
    row([&](size_t i) { return i % 32 == 3 ? inf : normal(rng); });
    row([&](size_t i) { return i % 32 == 9 ? -inf : normal(rng); });
    row([&](size_t i) {
      return i % 32 == 1 ? std::numeric_limits<float>::quiet_NaN()
                         : normal(rng);
    });
  }
  return rows;
}

TEST(GgmlQuantize, MatchesGgmlQuantizeChunk) {
  const GgmlLibrary *ggml = GgmlLibrary::get();
  if (!ggml)
    GTEST_SKIP() << GgmlLibrary::whyMissing();
  for (uint32_t type : kTypes) {
    ASSERT_TRUE(hasGgmlQuantizer(type));
    size_t rowIndex = 0;
    for (const std::vector<float> &row : testRows(false)) {
      const uint64_t blocks = row.size() / 32;
      std::vector<uint8_t> want(blocks * ggmlBlockBytes(type), 0xAA),
          got(want.size(), 0x55);
      size_t n = ggml->quantizeChunk(type, row.data(), want.data(), 1,
                                     int64_t(row.size()), nullptr);
      ASSERT_EQ(n, want.size());
      ASSERT_TRUE(quantizeGgmlBlocks(type, row.data(), blocks, got.data()));
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i])
            << ggml->typeName(type) << " row " << rowIndex << " byte " << i
            << " (block " << i / ggmlBlockBytes(type) << ")";
      ++rowIndex;
    }
  }
}

// Infinities and NaNs: ggml's C converts NaN to an integer with undefined
// behaviour, and its compiled code's choice is what vmpack reproduces
// (x86's truncation); the library is the judge.
TEST(GgmlQuantize, NonFiniteInputsMatchGgml) {
  const GgmlLibrary *ggml = GgmlLibrary::get();
  if (!ggml)
    GTEST_SKIP() << GgmlLibrary::whyMissing();
  std::vector<std::vector<float>> rows = testRows(true);
  for (uint32_t type : kTypes)
    for (size_t r = rows.size() - 3; r < rows.size(); ++r) {
      const std::vector<float> &row = rows[r];
      std::vector<uint8_t> want(row.size() / 32 * ggmlBlockBytes(type)),
          got(want.size());
      ggml->quantizeChunk(type, row.data(), want.data(), 1, int64_t(row.size()),
                          nullptr);
      ASSERT_TRUE(
          quantizeGgmlBlocks(type, row.data(), row.size() / 32, got.data()));
      EXPECT_EQ(got, want) << ggml->typeName(type) << " row " << r;
    }
}

TEST(GgmlQuantize, HalfConversion) {
  // Round to nearest even, computed in double, for every float16 value and
  // the midpoints around it.
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    int e = int(h >> 10), m = int(h & 0x3FF);
    double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
    EXPECT_EQ(ggmlFloatToHalf(float(v)), h);
    EXPECT_EQ(ggmlFloatToHalf(float(-v)), h | 0x8000);
    double up = e ? std::ldexp(1, e - 26) : std::ldexp(1, -25); // half a place
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    if (h + 1 < 0x7C00 || (h & 1) == 0)
      EXPECT_EQ(ggmlFloatToHalf(float(v + up)), even) << std::hex << h;
  }
  EXPECT_EQ(ggmlFloatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(ggmlFloatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(ggmlFloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(ggmlFloatToHalf(-std::numeric_limits<float>::quiet_NaN()), 0xFE00);
  EXPECT_EQ(ggmlFloatToHalf(fromBits(0x7F800001)), 0x7E00);
  EXPECT_EQ(ggmlFloatToHalf(fromBits(0x33000000)), 0x0000); // 2^-25 tie
  EXPECT_EQ(ggmlFloatToHalf(fromBits(0x33000001)), 0x0001);
}

TEST(GgmlQuantize, HandChecked) {
  // Q4_0: the largest magnitude is -8 at element 3, so d = -8 / -8 = 1 and
  // each code is the value + 8 (0.5 rounds up: 8.5 + 0.5 -> 9).
  std::vector<float> x(32, 0.0f);
  x[3] = -8.0f, x[16] = 7.0f, x[1] = 0.5f;
  std::vector<uint8_t> b(18);
  ASSERT_TRUE(quantizeGgmlBlocks(kGgmlQ4_0, x.data(), 1, b.data()));
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x3C);        // d = 1.0
  EXPECT_EQ(b[2], 0x08 | 0xF0); // elements 0 (0 -> 8) and 16 (7 -> 15)
  EXPECT_EQ(b[3], 0x09 | 0x80); // element 1: 0.5 -> 9
  EXPECT_EQ(b[5], 0x00 | 0x80); // element 3: -8 -> 0
  EXPECT_FALSE(hasGgmlQuantizer(kGgmlQ4_K));
  EXPECT_FALSE(quantizeGgmlBlocks(kGgmlQ4_K, x.data(), 0, b.data()));
}

} // namespace
