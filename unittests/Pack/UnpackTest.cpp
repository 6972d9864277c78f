//===- UnpackTest.cpp - Widening to integers and float32 ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/Convert.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

using namespace vmpack;

namespace {

constexpr Encoding kEncodings[] = {Encoding::Packed, Encoding::Word,
                                   Encoding::Byte};

TEST(UnpackToInt, FastMatchesReferenceOnRandomRanges) {
  std::mt19937_64 rng(42);
  for (uint32_t w = 1; w <= 64; ++w) {
    for (unsigned dstBytes : {1u, 2u, 4u, 8u}) {
      if (w > 8 * dstBytes)
        continue;
      for (Encoding enc : kEncodings) {
        for (bool sign : {false, true}) {
          uint64_t n = 1 + rng() % 700;
          std::vector<uint8_t> src(*encodedSize(enc, w, n));
          for (auto &b : src)
            b = uint8_t(rng());
          uint64_t first = rng() % n, count = rng() % (n - first + 1);
          std::vector<uint8_t> fast(count * dstBytes + 8, 0xCC);
          std::vector<uint8_t> slow(count * dstBytes);
          unpackToInt(enc, w, sign, src.data(), first, count, fast.data(),
                      dstBytes);
          reference::unpackToInt(enc, w, sign, src.data(), first, count,
                                 slow.data(), dstBytes);
          ASSERT_TRUE(std::equal(slow.begin(), slow.end(), fast.begin()))
              << "W=" << w << " dst=" << dstBytes << " " << encodingName(enc)
              << " sign=" << sign << " first=" << first << " count=" << count;
          for (size_t i = count * dstBytes; i < fast.size(); ++i)
            ASSERT_EQ(fast[i], 0xCC);
        }
      }
    }
  }
}

TEST(UnpackToInt, Int4SignExtension) {
  // packed i4 [-8, 7, -1, 0, 5] = nibbles 8,7,F,0,5.
  std::vector<uint8_t> packed = {0x78, 0x0F, 0x05};
  int8_t out[5];
  unpackToInt(Encoding::Packed, 4, true, packed.data(), 0, 5, out, 1);
  EXPECT_EQ(std::vector<int8_t>(out, out + 5),
            (std::vector<int8_t>{-8, 7, -1, 0, 5}));
  int32_t wide[3];
  unpackToInt(Encoding::Packed, 4, true, packed.data(), 1, 3, wide, 4);
  EXPECT_EQ(std::vector<int32_t>(wide, wide + 3),
            (std::vector<int32_t>{7, -1, 0}));
  uint16_t unsignedOut[2];
  unpackToInt(Encoding::Packed, 4, false, packed.data(), 0, 2, unsignedOut, 2);
  EXPECT_EQ(unsignedOut[0], 8);
  EXPECT_EQ(unsignedOut[1], 7);
}

struct FloatCase {
  ScalarKind kind;
  uint32_t bits;
  float expected; // NaN means "is NaN"
};

TEST(DecodeFloat, KnownValuesOfEveryFormat) {
  const float nan = std::nanf("");
  const float inf = INFINITY;
  const FloatCase cases[] = {
      {ScalarKind::F4E2M1FN, 0x0, 0.0f},
      {ScalarKind::F4E2M1FN, 0x1, 0.5f},
      {ScalarKind::F4E2M1FN, 0x2, 1.0f},
      {ScalarKind::F4E2M1FN, 0x3, 1.5f},
      {ScalarKind::F4E2M1FN, 0x5, 3.0f},
      {ScalarKind::F4E2M1FN, 0x7, 6.0f},
      {ScalarKind::F4E2M1FN, 0xF, -6.0f},
      {ScalarKind::F6E2M3FN, 0x1F, 7.5f},
      {ScalarKind::F6E2M3FN, 0x01, 0.125f},
      {ScalarKind::F6E3M2FN, 0x1F, 28.0f},
      {ScalarKind::F6E3M2FN, 0x01, 0.0625f},
      {ScalarKind::F8E5M2, 0x3C, 1.0f},
      {ScalarKind::F8E5M2, 0x7B, 57344.0f},
      {ScalarKind::F8E5M2, 0x7C, inf},
      {ScalarKind::F8E5M2, 0xFC, -inf},
      {ScalarKind::F8E5M2, 0x7D, nan},
      {ScalarKind::F8E4M3, 0x38, 1.0f},
      {ScalarKind::F8E4M3, 0x77, 240.0f},
      {ScalarKind::F8E4M3, 0x78, inf},
      {ScalarKind::F8E4M3, 0x79, nan},
      {ScalarKind::F8E4M3FN, 0x38, 1.0f},
      {ScalarKind::F8E4M3FN, 0x7E, 448.0f},
      {ScalarKind::F8E4M3FN, 0x78, 256.0f},
      {ScalarKind::F8E4M3FN, 0x7F, nan},
      {ScalarKind::F8E4M3FN, 0xFF, nan},
      {ScalarKind::F8E4M3FN, 0x01, 0.001953125f},
      {ScalarKind::F8E5M2FNUZ, 0x7F, 57344.0f},
      {ScalarKind::F8E5M2FNUZ, 0x80, nan},
      {ScalarKind::F8E5M2FNUZ, 0x40, 1.0f},
      {ScalarKind::F8E4M3FNUZ, 0x7F, 240.0f},
      {ScalarKind::F8E4M3FNUZ, 0x80, nan},
      {ScalarKind::F8E4M3FNUZ, 0x40, 1.0f},
      {ScalarKind::F8E4M3B11FNUZ, 0x7F, 30.0f},
      {ScalarKind::F8E4M3B11FNUZ, 0x58, 1.0f},
      {ScalarKind::F8E4M3B11FNUZ, 0x80, nan},
      {ScalarKind::F8E3M4, 0x30, 1.0f},
      {ScalarKind::F8E3M4, 0x70, inf},
      {ScalarKind::F8E3M4, 0x6F, 15.5f},
      {ScalarKind::F8E8M0FNU, 0x7F, 1.0f},
      {ScalarKind::F8E8M0FNU, 0x00, std::ldexp(1.0f, -127)},
      {ScalarKind::F8E8M0FNU, 0xFE, std::ldexp(1.0f, 127)},
      {ScalarKind::F8E8M0FNU, 0xFF, nan},
      {ScalarKind::BF16, 0x3F80, 1.0f},
      {ScalarKind::BF16, 0xC040, -3.0f},
      {ScalarKind::F16, 0x3C00, 1.0f},
      {ScalarKind::F16, 0x7BFF, 65504.0f},
      {ScalarKind::F16, 0x0001, std::ldexp(1.0f, -24)},
      {ScalarKind::F16, 0x7C00, inf},
      {ScalarKind::F16, 0x7E00, nan},
      {ScalarKind::TF32, 0x1FC00, 1.0f},
  };
  for (const FloatCase &c : cases) {
    float got = decodeFloat(*floatFormat(c.kind), c.bits);
    std::string what = toString(ScalarType::floatKind(c.kind)) + " 0x" +
                       std::to_string(c.bits);
    if (std::isnan(c.expected))
      EXPECT_TRUE(std::isnan(got)) << what;
    else
      EXPECT_EQ(got, c.expected) << what;
  }
}

TEST(DecodeFloat, NegativeZeroOnlyWhereTheFormatHasOne) {
  EXPECT_TRUE(
      std::signbit(decodeFloat(*floatFormat(ScalarKind::F8E4M3FN), 0x80)));
  EXPECT_EQ(decodeFloat(*floatFormat(ScalarKind::F8E4M3FN), 0x80), 0.0f);
}

const ScalarKind kSmallFloatKinds[] = {
    ScalarKind::F4E2M1FN,   ScalarKind::F6E2M3FN,   ScalarKind::F6E3M2FN,
    ScalarKind::F8E5M2,     ScalarKind::F8E4M3,     ScalarKind::F8E4M3FN,
    ScalarKind::F8E5M2FNUZ, ScalarKind::F8E4M3FNUZ, ScalarKind::F8E4M3B11FNUZ,
    ScalarKind::F8E3M4,     ScalarKind::F8E8M0FNU,  ScalarKind::BF16,
    ScalarKind::F16};

// encodeFloat inverts decodeFloat on every pattern of every format of at
// most 16 bits: each value comes back as the pattern it was decoded from
// (any NaN as a NaN; FNUZ's one zero).
TEST(EncodeFloat, InvertsDecodeOnEveryPattern) {
  for (ScalarKind kind : kSmallFloatKinds) {
    const FloatFormat f = *floatFormat(kind);
    const uint32_t n = 1u << impliedWidth(kind);
    std::vector<float> values;
    for (uint32_t bits = 0; bits < n; ++bits) {
      const float v = decodeFloat(f, bits);
      std::optional<uint32_t> back = encodeFloat(f, v);
      ASSERT_TRUE(back) << int(kind) << " " << bits;
      if (std::isnan(v)) {
        ASSERT_TRUE(std::isnan(decodeFloat(f, *back))) << int(kind) << bits;
        continue;
      }
      ASSERT_EQ(*back, bits) << int(kind) << " value " << v;
      if (std::isfinite(v))
        values.push_back(v);
    }
    // Halfway between neighbours nothing is representable; nor past the
    // largest finite value.
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      if (values[i] == values[i + 1])
        continue; // +0 and -0
      const float mid = values[i] + (values[i + 1] - values[i]) / 2;
      if (mid == values[i] || mid == values[i + 1])
        continue;
      ASSERT_FALSE(encodeFloat(f, mid)) << int(kind) << " " << mid;
    }
    const float largest = values.back();
    if (std::isfinite(largest * 2)) // bf16's largest doubled is infinite
      ASSERT_FALSE(encodeFloat(f, largest * 2)) << int(kind);
    if (!f.hasInfAndNaN)
      ASSERT_FALSE(encodeFloat(f, std::numeric_limits<float>::infinity()));
  }
}

TEST(EncodeFloat, SpecialValues) {
  const FloatFormat e8m0 = *floatFormat(ScalarKind::F8E8M0FNU);
  EXPECT_FALSE(encodeFloat(e8m0, 0.0f));
  EXPECT_FALSE(encodeFloat(e8m0, -1.0f));
  EXPECT_EQ(encodeFloat(e8m0, 1.0f), 127u);
  EXPECT_EQ(encodeFloat(e8m0, std::nanf("")), 0xFFu);
  const FloatFormat fnuz = *floatFormat(ScalarKind::F8E4M3FNUZ);
  EXPECT_EQ(encodeFloat(fnuz, -0.0f), 0u);
  EXPECT_EQ(encodeFloat(fnuz, std::nanf("")), 0x80u);
  const FloatFormat fn = *floatFormat(ScalarKind::F8E4M3FN);
  EXPECT_EQ(encodeFloat(fn, -0.0f), 0x80u);
  EXPECT_EQ(encodeFloat(fn, 448.0f), 0x7Eu);
  EXPECT_EQ(encodeFloat(fn, std::nanf("")), 0x7Fu);
  EXPECT_FALSE(encodeFloat(fn, 480.0f)); // would be the NaN pattern
  const FloatFormat f4 = *floatFormat(ScalarKind::F4E2M1FN);
  EXPECT_FALSE(encodeFloat(f4, std::nanf("")));
  EXPECT_EQ(encodeFloat(f4, -6.0f), 0xFu);
  EXPECT_EQ(encodeFloat(*floatFormat(ScalarKind::F8E5M2),
                        -std::numeric_limits<float>::infinity()),
            0xFCu);
}

// bf16, tf32 and f32 against the obvious rule: a float32 is exactly
// representable when the mantissa bits the format drops are zero (the
// exponent ranges are float32's).
TEST(EncodeFloat, Bf16Tf32F32OnRandomFloats) {
  std::mt19937 rng(7);
  const std::pair<ScalarKind, unsigned> kinds[] = {
      {ScalarKind::BF16, 16}, {ScalarKind::TF32, 13}, {ScalarKind::F32, 0}};
  for (int i = 0; i < 200000; ++i) {
    uint32_t b = rng();
    const unsigned dropped = kinds[i % 3].second;
    if (i & 8)
      b &= ~((1u << dropped) - 1); // half of them representable
    float v;
    std::memcpy(&v, &b, 4);
    if (std::isnan(v))
      continue;
    const FloatFormat f = *floatFormat(kinds[i % 3].first);
    std::optional<uint32_t> e = encodeFloat(f, v);
    const bool representable = (b & ((1u << dropped) - 1)) == 0;
    ASSERT_EQ(bool(e), representable) << b;
    if (e)
      ASSERT_EQ(*e, b >> dropped) << b;
  }
}

#if defined(__FLT16_MAX__)
TEST(DecodeFloat, EveryHalfMatchesTheCompiler) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = uint16_t(bits);
    _Float16 value;
    std::memcpy(&value, &h, 2);
    float expected = float(value);
    float got = decodeFloat(*floatFormat(ScalarKind::F16), bits);
    if (std::isnan(expected))
      ASSERT_TRUE(std::isnan(got)) << bits;
    else
      ASSERT_EQ(got, expected) << bits;
  }
}
#endif

TEST(UnpackToFloat32, PackedF4AndWordF6AndByteBf16) {
  // f4E2M1FN [0.5, 6, -1, 3] packed: nibbles 1,7,A,5.
  std::vector<uint8_t> f4 = {0x71, 0x5A};
  float out[4];
  unpackToFloat32(Encoding::Packed, ScalarKind::F4E2M1FN, f4.data(), 0, 4, out);
  EXPECT_EQ(std::vector<float>(out, out + 4),
            (std::vector<float>{0.5f, 6.0f, -1.0f, 3.0f}));
  unpackToFloat32(Encoding::Packed, ScalarKind::F4E2M1FN, f4.data(), 1, 2, out);
  EXPECT_EQ(out[0], 6.0f);
  EXPECT_EQ(out[1], -1.0f);

  // f6E3M2FN [28, 0.0625] in `word`: P = 16, E = 2.
  std::vector<uint8_t> f6 = {0x1F | (0x01 << 6), 0x00};
  unpackToFloat32(Encoding::Word, ScalarKind::F6E3M2FN, f6.data(), 0, 2, out);
  EXPECT_EQ(out[0], 28.0f);
  EXPECT_EQ(out[1], 0.0625f);

  std::vector<uint8_t> bf = {0x80, 0x3F, 0x40, 0xC0};
  unpackToFloat32(Encoding::Byte, ScalarKind::BF16, bf.data(), 0, 2, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -3.0f);
}

} // namespace
