//===- DequantizeTest.cpp - Dequantize kernels against their references ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The f16 and bf16 rounding against independent definitions; every kernel
// at every dispatch level this build and CPU carry against the portable
// level, byte for byte, for random blocks (every f16 scale pattern: NaN,
// infinities, subnormals), odd lengths and exact output sizes; the portable
// level against ggml's own dequantize_row_* from libggml-base.so, bit for
// bit, on random blocks and on blocks from ggml's quantizer; ranges that
// start and end inside blocks, on several threads; and the planar form
// against the obvious formula and against the ggml blocks it came from.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/Parallel.h"

#include "GgmlLibrary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;
using vmpack::testing::GgmlLibrary;

namespace {

struct TypeCase {
  uint32_t ggmlType;
  const char *name; // ggml's dequantize_row_<name>
};
constexpr TypeCase kTypes[] = {{2, "q4_0"},  {3, "q4_1"},  {6, "q5_0"},
                               {7, "q5_1"},  {8, "q8_0"},  {12, "q4_K"},
                               {14, "q6_K"}, {39, "mxfp4"}};
constexpr FloatType kFloatTypes[] = {FloatType::F32, FloatType::F16,
                                     FloatType::BF16};

uint32_t bitsOf(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}
float floatOf(uint32_t v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

std::vector<uint8_t> randomBytes(size_t n, std::mt19937_64 &rng) {
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(rng());
  return v;
}

std::vector<DispatchLevel> supportedLevels() {
  std::vector<DispatchLevel> levels;
  for (unsigned i = 0; i < kNumDispatchLevels; ++i)
    if (isDispatchLevelSupported(DispatchLevel(i)))
      levels.push_back(DispatchLevel(i));
  return levels;
}

/// The value of a half, by its definition (not by vmpack's code).
double halfValue(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
  return h & 0x8000 ? -v : v;
}

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

/// The nearest half to a finite float, ties to the even pattern, found by
/// comparing distances in double (exact for these magnitudes).
uint16_t nearestHalf(float f) {
  double x = std::fabs(double(f));
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (x >= 65520.0)
    return sign | 0x7c00;
  // Binary search over the ordered finite non-negative halves.
  uint16_t lo = 0, hi = 0x7bff;
  while (lo < hi) {
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (halfValue(mid) <= x)
      lo = mid;
    else
      hi = uint16_t(mid - 1);
  }
  if (lo == 0x7bff) // [65504, 65520)
    return sign | lo;
  double down = x - halfValue(lo), up = halfValue(lo + 1) - x;
  uint16_t r = down < up   ? lo
               : up < down ? uint16_t(lo + 1)
               : (lo & 1)  ? uint16_t(lo + 1)
                           : lo;
  return sign | r;
}

TEST(FloatRounding, HalfIsNearestTiesToEven) {
  std::mt19937_64 rng(1);
  std::vector<float> values;
  // Every half, the midpoints between neighbours and their neighbours.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    float v = float(halfValue(uint16_t(h)));
    values.push_back(v);
    float mid = float((halfValue(uint16_t(h)) + halfValue(uint16_t(h + 1))) /
                      2); // exact: a half has 11 significant bits
    values.push_back(mid);
    values.push_back(std::nextafter(mid, 0.0f));
    values.push_back(std::nextafter(mid, 1e30f));
  }
  for (int i = 0; i < 200000; ++i)
    values.push_back(floatOf(uint32_t(rng())));
  for (float v : {0.0f, 1e-30f, 65504.0f, 65519.99f, 65520.0f, 1e30f, INFINITY,
                  0x1p-25f, 0x1.000002p-25f, 0x1p-24f})
    values.push_back(v);
  for (float v : values) {
    if (std::isnan(v))
      continue;
    for (float s : {v, -v}) {
      uint16_t expected =
          std::isinf(s) ? uint16_t(s < 0 ? 0xfc00 : 0x7c00) : nearestHalf(s);
      ASSERT_EQ(floatToHalf(s), expected) << "f32 0x" << std::hex << bitsOf(s);
    }
  }
}

TEST(FloatRounding, NaNStaysNaN) {
  for (uint32_t payload : {0x1u, 0x2000u, 0x400000u, 0x7fffffu, 0x123456u}) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      float nan = floatOf(sign | 0x7f800000u | payload);
      uint16_t h = floatToHalf(nan);
      EXPECT_EQ(h & 0x7e00, 0x7e00) << payload; // a quiet NaN
      EXPECT_EQ(h & 0x8000, sign >> 16);
      EXPECT_EQ(h & 0x1ff, (payload >> 13) & 0x1ff);
      uint16_t b = floatToBFloat16(nan);
      EXPECT_EQ(b & 0x7fc0, 0x7fc0) << payload;
      EXPECT_EQ(b & 0x8000, sign >> 16);
      EXPECT_EQ(b & 0x3f, (payload >> 16) & 0x3f);
    }
  }
}

TEST(FloatRounding, BFloat16IsNearestTiesToEven) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 1000000; ++i) {
    uint32_t x = uint32_t(rng());
    if (i < 1000) // ties and their neighbours
      x = (x & 0xffff0000u) | (0x8000u + uint32_t(i % 3) - 1);
    float f = floatOf(x);
    if (std::isnan(f))
      continue;
    uint32_t down = x & 0xffff0000u, up = down + 0x10000u;
    double dd = std::fabs(double(f) - double(floatOf(down)));
    double du =
        (up & 0x7f800000u) == 0x7f800000u && (down & 0x7fffffffu) == 0x7f7f0000u
            ? std::fabs(double(f) - std::ldexp(1.0, 128) * (f < 0 ? -1 : 1))
            : std::fabs(double(floatOf(up)) - double(f));
    uint16_t expected = uint16_t(
        (dd < du || (dd == du && !((down >> 16) & 1)) ? down : up) >> 16);
    if (std::isinf(f))
      expected = uint16_t(x >> 16);
    ASSERT_EQ(floatToBFloat16(f), expected) << std::hex << x;
  }
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

TEST(Dequantize, KernelTypes) {
  for (const TypeCase &t : kTypes)
    EXPECT_TRUE(hasGgmlDequantizeKernel(t.ggmlType)) << t.name;
  EXPECT_FALSE(hasGgmlDequantizeKernel(kGgmlF32));
  EXPECT_FALSE(canDequantizeGgml(kGgmlF32));
  EXPECT_FALSE(hasGgmlDequantizeKernel(kGgmlIQ2_XXS));
  EXPECT_TRUE(canDequantizeGgml(kGgmlIQ2_XXS));
}

TEST(Dequantize, EveryLevelMatchesPortable) {
  std::mt19937_64 rng(3);
  std::vector<DispatchLevel> levels = supportedLevels();
  ASSERT_FALSE(levels.empty());
  for (const TypeCase &t : kTypes) {
    uint32_t bs = ggmlBlockElements(t.ggmlType),
             bb = ggmlBlockBytes(t.ggmlType);
    for (uint64_t blocks : {0, 1, 2, 3, 5, 17, 64}) {
      std::vector<uint8_t> in = randomBytes(blocks * bb, rng);
      for (FloatType ft : kFloatTypes) {
        size_t outBytes = blocks * bs * floatTypeBytes(ft);
        std::vector<uint8_t> expected(outBytes + 64, 0xa5);
        dequantizeGgmlBlocksAt(DispatchLevel::Portable, t.ggmlType, in.data(),
                               blocks, ft, expected.data());
        for (DispatchLevel level : levels) {
          SCOPED_TRACE(::testing::Message()
                       << t.name << " " << blocks << " blocks to "
                       << floatTypeName(ft) << " at "
                       << dispatchLevelName(level));
          std::vector<uint8_t> got(outBytes + 64, 0xa5);
          dequantizeGgmlBlocksAt(level, t.ggmlType, in.data(), blocks, ft,
                                 got.data());
          ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.size()));
        }
        for (size_t i = outBytes; i < expected.size(); ++i)
          ASSERT_EQ(expected[i], 0xa5) << "wrote past the end";
      }
    }
  }
}

TEST(Dequantize, F16AndBF16AreTheRoundedF32) {
  std::mt19937_64 rng(4);
  for (const TypeCase &t : kTypes) {
    uint32_t bs = ggmlBlockElements(t.ggmlType);
    std::vector<uint8_t> in = randomBytes(40 * ggmlBlockBytes(t.ggmlType), rng);
    std::vector<float> f32(40 * bs);
    std::vector<uint16_t> f16(40 * bs), bf16(40 * bs);
    dequantizeGgmlBlocks(t.ggmlType, in.data(), 40, FloatType::F32, f32.data());
    dequantizeGgmlBlocks(t.ggmlType, in.data(), 40, FloatType::F16, f16.data());
    dequantizeGgmlBlocks(t.ggmlType, in.data(), 40, FloatType::BF16,
                         bf16.data());
    for (size_t i = 0; i < f32.size(); ++i) {
      ASSERT_EQ(f16[i], floatToHalf(f32[i])) << t.name << " " << i;
      ASSERT_EQ(bf16[i], floatToBFloat16(f32[i])) << t.name << " " << i;
    }
  }
}

class GgmlReference : public ::testing::Test {
protected:
  void SetUp() override {
    lib = GgmlLibrary::get();
    if (!lib)
      GTEST_SKIP() << GgmlLibrary::whyMissing();
  }
  /// The portable level and the active level against ggml, bit for bit.
  void expectLikeGgml(const TypeCase &t, const std::vector<uint8_t> &blocks,
                      const char *what) {
    GgmlLibrary::ToFloat row = lib->dequantizeRow(t.name);
    ASSERT_NE(row, nullptr) << "dequantize_row_" << t.name;
    uint64_t n = blocks.size() / ggmlBlockBytes(t.ggmlType);
    uint64_t k = n * ggmlBlockElements(t.ggmlType);
    std::vector<float> expected(k), got(k), active(k);
    row(blocks.data(), expected.data(), int64_t(k));
    dequantizeGgmlBlocksAt(DispatchLevel::Portable, t.ggmlType, blocks.data(),
                           n, FloatType::F32, got.data());
    dequantizeGgmlBlocks(t.ggmlType, blocks.data(), n, FloatType::F32,
                         active.data());
    for (uint64_t i = 0; i < k; ++i) {
      ASSERT_EQ(bitsOf(got[i]), bitsOf(expected[i]))
          << t.name << " " << what << " element " << i << ": vmpack " << got[i]
          << ", ggml " << expected[i];
      ASSERT_EQ(bitsOf(active[i]), bitsOf(expected[i]))
          << t.name << " " << what << " element " << i << " at "
          << dispatchLevelName(activeDispatchLevel());
    }
  }
  const GgmlLibrary *lib = nullptr;
};

TEST_F(GgmlReference, RandomBlocksDecodeLikeGgml) {
  std::mt19937_64 rng(5);
  for (const TypeCase &t : kTypes)
    expectLikeGgml(t, randomBytes(500 * ggmlBlockBytes(t.ggmlType), rng),
                   "random blocks");
}

TEST_F(GgmlReference, QuantizedRowsDecodeLikeGgml) {
  std::mt19937_64 rng(6);
  std::normal_distribution<float> normal;
  const int64_t perRow = 1024, rows = 6;
  std::vector<float> src(perRow * rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < perRow; ++i) {
      float v = normal(rng);
      // Rows of zeros, huge, tiny and mixed magnitudes.
      float scale = r == 0 ? 0.0f : r == 1 ? 6e4f : r == 2 ? 1e-6f : 1.0f;
      if (r == 5 && i % 7 == 0)
        v *= 1000;
      src[r * perRow + i] = v * scale;
    }
  for (const TypeCase &t : kTypes) {
    std::vector<uint8_t> blocks(
        size_t(rows * perRow / ggmlBlockElements(t.ggmlType) *
               ggmlBlockBytes(t.ggmlType)));
    size_t written = lib->quantizeChunk(t.ggmlType, src.data(), blocks.data(),
                                        rows, perRow, nullptr);
    ASSERT_EQ(written, blocks.size()) << t.name;
    expectLikeGgml(t, blocks, "quantized rows");
  }
}

TEST(Dequantize, RangesInsideBlocksOnThreads) {
  std::mt19937_64 rng(7);
  for (const TypeCase &t : kTypes) {
    uint32_t bs = ggmlBlockElements(t.ggmlType);
    uint64_t blocks = (uint64_t(1) << 20) / bs + 3; // enough to split
    std::vector<uint8_t> in =
        randomBytes(blocks * ggmlBlockBytes(t.ggmlType), rng);
    uint64_t total = blocks * bs;
    for (FloatType ft : {FloatType::F32, FloatType::BF16}) {
      unsigned b = floatTypeBytes(ft);
      std::vector<uint8_t> whole(total * b);
      dequantizeGgmlBlocks(t.ggmlType, in.data(), blocks, ft, whole.data());
      struct Range {
        uint64_t first, count;
      };
      for (Range r :
           {Range{0, total}, Range{1, 1}, Range{bs - 1, 2}, Range{3, bs},
            Range{bs + 5, total - bs - 11}, Range{total - 1, 1}, Range{7, 0}}) {
        for (unsigned threads : {1u, 2u, 3u}) {
          std::vector<uint8_t> got(r.count * b + 8, 0x5a);
          dequantizeGgmlRange(t.ggmlType, in.data(), r.first, r.count, ft,
                              got.data(), threads);
          ASSERT_EQ(0, std::memcmp(got.data(), whole.data() + r.first * b,
                                   r.count * b))
              << t.name << " [" << r.first << ", +" << r.count << ") on "
              << threads << " threads";
          for (size_t i = r.count * b; i < got.size(); ++i)
            ASSERT_EQ(got[i], 0x5a);
        }
      }
    }
  }
}

/// Types without a kernel go through the reference decoder: the same
/// values as decodeGgmlBlocks, rounded as the kernels round, for every
/// quantized ggml type.
TEST(Dequantize, TypesWithoutKernelsUseTheDecoder) {
  std::mt19937_64 rng(10);
  unsigned withoutKernel = 0;
  for (const GgmlTypeTraits &t : ggmlTypes()) {
    if (!isGgmlBlockType(t.type))
      continue;
    ASSERT_TRUE(canDequantizeGgml(t.type)) << t.name;
    withoutKernel += !hasGgmlDequantizeKernel(t.type);
    uint64_t blocks = 21, n = blocks * t.blockSize;
    std::vector<uint8_t> in = randomBytes(blocks * t.typeSize, rng);
    std::vector<float> ref(n);
    ASSERT_TRUE(decodeGgmlBlocks(t.type, in.data(), blocks, ref.data()));
    std::vector<float> f32(n);
    std::vector<uint16_t> f16(n), bf16(n);
    dequantizeGgmlRange(t.type, in.data(), 0, n, FloatType::F32, f32.data());
    dequantizeGgmlRange(t.type, in.data(), 0, n, FloatType::F16, f16.data());
    dequantizeGgmlRange(t.type, in.data(), 0, n, FloatType::BF16, bf16.data());
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(bitsOf(f32[i]), bitsOf(ref[i])) << t.name << " " << i;
      ASSERT_EQ(f16[i], floatToHalf(ref[i])) << t.name << " " << i;
      ASSERT_EQ(bf16[i], floatToBFloat16(ref[i])) << t.name << " " << i;
    }
    // A range inside blocks.
    uint64_t first = t.blockSize / 2 + 1, count = n - t.blockSize - 3;
    std::vector<uint16_t> part(count);
    dequantizeGgmlRange(t.type, in.data(), first, count, FloatType::F16,
                        part.data(), 2);
    ASSERT_EQ(0, std::memcmp(part.data(), f16.data() + first, 2 * count))
        << t.name;
  }
  EXPECT_GE(withoutKernel, 19u);
}

// A count the caller gives is split down to 2^14 elements a thread; left to
// vmpack (0), a range is split only where each thread gets 2^20 elements,
// since starting one costs more than decoding a 256 KiB chunk.
TEST(Dequantize, ThreadsStartOnlyWhereAskedOrLongEnough) {
  constexpr uint32_t kQ8_0 = 8; // 32 values in 34 bytes
  const uint64_t n = uint64_t(1) << 21;
  std::mt19937_64 rng(7);
  std::vector<uint8_t> in = randomBytes(n / 32 * 34, rng);
  std::vector<uint16_t> one(n), out(n);
  auto started = [&](uint64_t count, unsigned threads) {
    uint64_t before = splitRangeThreadsStarted();
    dequantizeGgmlRange(kQ8_0, in.data(), 0, count, FloatType::F16, out.data(),
                        threads);
    EXPECT_EQ(0, std::memcmp(out.data(), one.data(), 2 * count))
        << count << " on " << threads;
    return splitRangeThreadsStarted() - before;
  };
  dequantizeGgmlRange(kQ8_0, in.data(), 0, n, FloatType::F16, one.data(), 1);
  EXPECT_EQ(started(uint64_t(1) << 17, 2), 1u);
  EXPECT_EQ(started(uint64_t(1) << 17, 0), 0u);
  EXPECT_EQ(started(uint64_t(1) << 19, 0), 0u);
  if (std::thread::hardware_concurrency() >= 2)
    EXPECT_GE(started(n, 0), 1u);
}

//===----------------------------------------------------------------------===//
// Planar
//===----------------------------------------------------------------------===//

/// The obvious formula of Dequantize.h's PlanarView (finite scales).
float planarValue(const PlanarView &v, uint64_t e) {
  uint64_t g = e / v.groupSize;
  auto half = [](const uint8_t *p) {
    return float(halfValue(uint16_t(p[0] | p[1] << 8)));
  };
  int code;
  if (v.codeBits == 4) {
    int nib = (v.codes[e / 2] >> (4 * (e % 2))) & 15;
    code = v.signedCodes && nib >= 8 ? nib - 16 : nib;
  } else {
    code = v.signedCodes ? int(int8_t(v.codes[e])) : int(v.codes[e]);
  }
  float r = float(code) * half(v.scales + 2 * g);
  if (v.minimums)
    r = r + half(v.minimums + 2 * g);
  return r;
}

TEST(Planar, EveryLevelMatchesFormulaAndPortable) {
  std::mt19937_64 rng(8);
  std::vector<DispatchLevel> levels = supportedLevels();
  for (uint32_t bits : {4u, 8u})
    for (bool isSigned : {true, false})
      for (bool withMin : {false, true})
        for (uint64_t group : {32u, 64u, 128u, 48u, 7u}) {
          uint64_t groups = 37, n = groups * group;
          std::vector<uint8_t> codes = randomBytes((n * bits + 7) / 8, rng);
          std::vector<uint8_t> scales(groups * 2), mins(groups * 2);
          for (uint64_t i = 0; i < groups; ++i) {
            // Finite halves, including subnormals.
            uint16_t s = uint16_t(rng() % 0x7c00 | (rng() & 1) << 15);
            uint16_t m = uint16_t(rng() % 0x7c00 | (rng() & 1) << 15);
            std::memcpy(&scales[2 * i], &s, 2);
            std::memcpy(&mins[2 * i], &m, 2);
          }
          PlanarView view;
          view.codeBits = bits;
          view.signedCodes = isSigned;
          view.codes = codes.data();
          view.scales = scales.data();
          view.minimums = withMin ? mins.data() : nullptr;
          view.groupSize = group;
          std::vector<float> whole(n);
          dequantizePlanarRangeAt(DispatchLevel::Portable, view, 0, n,
                                  FloatType::F32, whole.data());
          for (uint64_t e = 0; e < n; ++e)
            ASSERT_EQ(bitsOf(whole[e]), bitsOf(planarValue(view, e)))
                << bits << "-bit group " << group << " element " << e;
          for (FloatType ft : kFloatTypes) {
            unsigned b = floatTypeBytes(ft);
            std::vector<uint8_t> expected(n * b);
            dequantizePlanarRangeAt(DispatchLevel::Portable, view, 0, n, ft,
                                    expected.data());
            for (DispatchLevel level : levels)
              for (uint64_t first :
                   {uint64_t(0), uint64_t(1), uint64_t(33), group + 3}) {
                uint64_t count = n - first - (first % 5);
                std::vector<uint8_t> got(count * b + 8, 0x77);
                dequantizePlanarRangeAt(level, view, first, count, ft,
                                        got.data());
                ASSERT_EQ(0,
                          std::memcmp(got.data(), expected.data() + first * b,
                                      count * b))
                    << bits << "-bit group " << group << " to "
                    << floatTypeName(ft) << " from " << first << " at "
                    << dispatchLevelName(level);
                ASSERT_EQ(got[count * b], 0x77);
              }
          }
        }
}

/// The planar form of Q4_0, Q4_1 and Q8_0 blocks (the rule of
/// --dequant-split, Formats/DequantSplit.h) decodes to the blocks' values.
TEST(Planar, SplitGgmlBlocksDecodeAlike) {
  std::mt19937_64 rng(9);
  const uint64_t blocks = 300, n = blocks * 32;
  for (uint32_t type : {2u, 3u, 8u}) {
    uint32_t bb = ggmlBlockBytes(type);
    std::vector<uint8_t> in = randomBytes(blocks * bb, rng);
    bool q8 = type == 8, hasMin = type == 3;
    std::vector<uint8_t> codes(q8 ? n : n / 2), d(blocks * 2), m(blocks * 2);
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint8_t *blk = in.data() + b * bb;
      std::memcpy(&d[2 * b], blk, 2);
      if (hasMin)
        std::memcpy(&m[2 * b], blk + 2, 2);
      const uint8_t *qs = blk + (hasMin ? 4 : 2);
      for (unsigned e = 0; e < 32; ++e) {
        if (q8) {
          codes[b * 32 + e] = qs[e];
          continue;
        }
        uint8_t nib = e < 16 ? qs[e] & 15 : qs[e - 16] >> 4;
        if (type == 2)
          nib ^= 8; // nibble - 8 as a 4-bit two's complement code
        uint64_t k = b * 32 + e;
        codes[k / 2] |= uint8_t(nib << (4 * (k % 2)));
      }
    }
    PlanarView view;
    view.codeBits = q8 ? 8 : 4;
    view.signedCodes = type != 3;
    view.codes = codes.data();
    view.scales = d.data();
    view.minimums = hasMin ? m.data() : nullptr;
    view.groupSize = 32;
    for (FloatType ft : kFloatTypes) {
      unsigned b = floatTypeBytes(ft);
      std::vector<uint8_t> fromBlocks(n * b), fromPlanar(n * b);
      dequantizeGgmlBlocks(type, in.data(), blocks, ft, fromBlocks.data());
      dequantizePlanarRange(view, 0, n, ft, fromPlanar.data(), 1);
      ASSERT_EQ(fromBlocks, fromPlanar) << type << " " << floatTypeName(ft);
    }
  }
}

} // namespace

namespace {

/// docs/dequantize.md's rounding vectors, section 2.
TEST(FloatRounding, DocumentedVectors) {
  struct Vector {
    uint32_t f32;
    uint16_t f16, bf16;
  };
  const Vector kVectors[] = {
      {0x3f800000, 0x3c00, 0x3f80}, {0x3f801000, 0x3c00, 0x3f80},
      {0x3f803000, 0x3c02, 0x3f80}, {0x3f808000, 0x3c04, 0x3f80},
      {0x3f818000, 0x3c0c, 0x3f82}, {0x477fefff, 0x7bff, 0x4780},
      {0x477ff000, 0x7c00, 0x4780}, {0x7f7fffff, 0x7c00, 0x7f80},
      {0x38800000, 0x0400, 0x3880}, {0x33000000, 0x0000, 0x3300},
      {0x33000001, 0x0001, 0x3300}, {0xc0490fdb, 0xc248, 0xc049},
      {0xffc00001, 0xfe00, 0xffc0}, {0x7fa00000, 0x7f00, 0x7fe0},
  };
  for (const Vector &v : kVectors) {
    EXPECT_EQ(floatToHalf(floatOf(v.f32)), v.f16) << std::hex << v.f32;
    EXPECT_EQ(floatToBFloat16(floatOf(v.f32)), v.bf16) << std::hex << v.f32;
  }
}

} // namespace
