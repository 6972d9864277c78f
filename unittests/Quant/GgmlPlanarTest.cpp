//===- GgmlPlanarTest.cpp - ggml blocks to and from the planar form -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// - ggml -> planar -> ggml gives the blocks back byte for byte, for random
//   bytes and for blocks ggml's quantizer made; ggml decodes the joined
//   blocks to the same bits.
// - The planar parts mean what docs/quant.md says: a slow reference reads
//   every element of every part with the packing library's readElement and
//   applies the documented formula; it matches ggml's decode bit for bit.
// - Every dispatch level's Q4_0 and Q8_0 kernels give the scalar
//   reference's bytes.
// - repackToGgml re-expresses group-quantized weights exactly or refuses,
//   naming the tensor and the element.
//
//===----------------------------------------------------------------------===//

#include "GgmlLibrary.h"

#include "vmpack/Pack/Convert.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlTables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;
using vmpack::testing::GgmlLibrary;

namespace {

std::vector<uint32_t> planarTypes() {
  std::vector<uint32_t> out;
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (hasGgmlPlanarForm(t.type))
      out.push_back(t.type);
  return out;
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

struct Planar {
  std::vector<std::vector<uint8_t>> parts;
  std::vector<uint8_t *> ptrs() {
    std::vector<uint8_t *> p;
    for (auto &v : parts)
      p.push_back(v.data());
    return p;
  }
  std::vector<const uint8_t *> cptrs() const {
    std::vector<const uint8_t *> p;
    for (auto &v : parts)
      p.push_back(v.data());
    return p;
  }
};

Planar split(uint32_t type, const std::vector<uint8_t> &blocks) {
  uint64_t n = blocks.size() / ggmlBlockBytes(type);
  Planar p;
  for (const PlanarPart &part : ggmlPlanarParts(type))
    p.parts.emplace_back(n * part.bytesPerBlock(), 0xEE);
  std::vector<uint8_t *> ptrs = p.ptrs();
  EXPECT_TRUE(ggmlToPlanar(type, blocks.data(), n, ptrs.data()));
  return p;
}

std::vector<uint8_t> randomBlocks(uint32_t type, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(size_t(n) * ggmlBlockBytes(type));
  for (uint8_t &x : b)
    x = uint8_t(rng());
  return b;
}

float halfAt(const uint8_t *p, uint64_t i) {
  return ggmlHalfToFloat(uint16_t(p[2 * i] | p[2 * i + 1] << 8));
}

int64_t codeAt(const PlanarPart &part, const uint8_t *p, uint64_t i) {
  uint64_t u = readElement(Encoding::Packed, part.bits, p, i);
  if (part.type[0] == 's' && (u >> (part.bits - 1)) & 1)
    return int64_t(u) - (int64_t(1) << part.bits);
  return int64_t(u);
}

/// docs/quant.md's formula for element i of a planar weight, with the
/// float32 operations in the documented order.
float planarValue(uint32_t type, const Planar &p, uint64_t i) {
  const std::vector<PlanarPart> &parts = ggmlPlanarParts(type);
  auto part = [&](const char *suffix) -> size_t {
    for (size_t k = 0; k < parts.size(); ++k)
      if (std::strcmp(parts[k].suffix, suffix) == 0)
        return k;
    return size_t(-1);
  };
  size_t qp = part("q");
  int64_t q = codeAt(parts[qp], p.parts[qp].data(), i);
  const uint8_t *d = p.parts[part("d")].data();
  switch (type) {
  case kGgmlQ4_0:
  case kGgmlQ5_0:
  case kGgmlQ8_0:
    return float(q) * halfAt(d, i / 32);
  case kGgmlQ4_1:
  case kGgmlQ5_1:
    return float(q) * halfAt(d, i / 32) +
           halfAt(p.parts[part("m")].data(), i / 32);
  case kGgmlIQ4_NL:
    return halfAt(d, i / 32) * float(kIq4nlValues[q]);
  case kGgmlMXFP4: {
    // value = (2 * E2M1(q)) * 2^(e - 128), ggml's halved E8M0 scale.
    uint8_t e = d[i / 32];
    uint32_t bits = e < 2 ? uint32_t(0x00200000) << e : uint32_t(e - 1) << 23;
    float s;
    std::memcpy(&s, &bits, 4);
    return float(kFp4Values[q]) * s;
  }
  case kGgmlNVFP4: {
    uint8_t x = d[i / 16];
    float s = 0.0f;
    if (x != 0 && x != 0x7F) {
      int exp = (x >> 3) & 0xF, man = x & 7;
      s = (exp == 0 ? std::ldexp(float(man), -9)
                    : std::ldexp(1.0f + float(man) / 8.0f, exp - 7)) *
          0.5f;
    }
    return float(kFp4Values[q]) * s;
  }
  default:
    break;
  }
  // K-quants: (d * sd) * q - (dmin * sm), or (d * sd) * q.
  float dd = halfAt(d, i / 256);
  size_t sdp = part("sd");
  uint64_t sub = i / (256 / parts[sdp].perBlock);
  int64_t sd = codeAt(parts[sdp], p.parts[sdp].data(), sub);
  if (type == kGgmlQ3_K || type == kGgmlQ6_K)
    return dd * float(sd) * float(q);
  size_t smp = part("sm");
  int64_t sm = codeAt(parts[smp], p.parts[smp].data(), sub);
  float dmin = halfAt(p.parts[part("m")].data(), i / 256);
  float dl = dd * float(sd), ml = dmin * float(sm);
  return dl * float(q) - ml;
}

class GgmlPlanarTypes : public ::testing::TestWithParam<uint32_t> {};

std::string typeParamName(const ::testing::TestParamInfo<uint32_t> &info) {
  return ggmlTypeTraits(info.param)->name;
}

TEST_P(GgmlPlanarTypes, RandomBlocksRoundTripByteForByte) {
  uint32_t type = GetParam();
  std::vector<uint8_t> blocks = randomBlocks(type, 512, type * 31 + 7);
  Planar p = split(type, blocks);
  std::vector<uint8_t> back(blocks.size(), 0xCC);
  std::vector<const uint8_t *> ptrs = p.cptrs();
  ASSERT_TRUE(planarToGgml(type, ptrs.data(), 512, back.data()));
  EXPECT_EQ(back, blocks);
  // The planar decode and the documented formula both equal the blocks'.
  uint64_t n = 512ull * ggmlBlockElements(type);
  std::vector<float> want(n), got(n);
  ASSERT_TRUE(decodeGgmlBlocks(type, blocks.data(), 512, want.data()));
  ASSERT_TRUE(decodeGgmlPlanar(type, ptrs.data(), 512, got.data()));
  EXPECT_EQ(std::memcmp(want.data(), got.data(), n * 4), 0);
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(bitsOf(planarValue(type, p, i)), bitsOf(want[i]))
        << "element " << i;
}

TEST_P(GgmlPlanarTypes, GgmlQuantizedBlocksRoundTripAndDecodeInGgml) {
  const GgmlLibrary *g = GgmlLibrary::get();
  if (!g)
    GTEST_SKIP() << GgmlLibrary::whyMissing();
  uint32_t type = GetParam();
  const int64_t perRow = 1024, rows = 8;
  std::mt19937 rng(type);
  std::normal_distribution<float> normal;
  std::vector<float> x(perRow * rows);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] =
        i / perRow == 0 ? 0.0f : normal(rng) * (i / perRow == 1 ? 1e-5f : 1.0f);
  std::vector<uint8_t> blocks(rows * perRow / ggmlBlockElements(type) *
                              ggmlBlockBytes(type));
  ASSERT_EQ(
      g->quantizeChunk(type, x.data(), blocks.data(), rows, perRow, nullptr),
      blocks.size());
  Planar p = split(type, blocks);
  std::vector<uint8_t> back(blocks.size());
  std::vector<const uint8_t *> ptrs = p.cptrs();
  uint64_t nb = blocks.size() / ggmlBlockBytes(type);
  ASSERT_TRUE(planarToGgml(type, ptrs.data(), nb, back.data()));
  EXPECT_EQ(back, blocks);
  std::vector<float> want(x.size()), got(x.size());
  g->toFloat(type)(blocks.data(), want.data(), int64_t(x.size()));
  g->toFloat(type)(back.data(), got.data(), int64_t(x.size()));
  EXPECT_EQ(std::memcmp(want.data(), got.data(), x.size() * 4), 0);
  ASSERT_TRUE(decodeGgmlPlanar(type, ptrs.data(), nb, got.data()));
  EXPECT_EQ(std::memcmp(want.data(), got.data(), x.size() * 4), 0);
}

INSTANTIATE_TEST_SUITE_P(Types, GgmlPlanarTypes,
                         ::testing::ValuesIn(planarTypes()), typeParamName);

// Every dispatch level's Q4_0 and Q8_0 kernels against the portable
// (scalar) ones, both ways, on random bytes: block counts around the
// vector steps (32 blocks for AVX-512) and their tails, at unaligned
// addresses, with guard bytes after every output.
TEST(GgmlPlanarKernels, EveryLevelEqualsTheScalarReference) {
  const uint64_t counts[] = {0, 1, 3, 31, 32, 33, 63, 64, 65, 97, 129, 1000};
  std::mt19937 rng(41);
  for (uint32_t type : {kGgmlQ4_0, kGgmlQ8_0}) {
    const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
    const uint32_t bytes = ggmlBlockBytes(type);
    for (uint64_t n : counts) {
      std::vector<uint8_t> blocks(n * bytes + 1);
      for (uint8_t &b : blocks)
        b = uint8_t(rng());
      // Random parts for the join (every bit of a part is a bit of a block).
      std::vector<std::vector<uint8_t>> src(layout.size());
      std::vector<const uint8_t *> srcPtrs;
      for (size_t p = 0; p < layout.size(); ++p) {
        src[p].resize(n * layout[p].bytesPerBlock() + 1);
        for (uint8_t &b : src[p])
          b = uint8_t(rng());
        srcPtrs.push_back(src[p].data() + 1);
      }
      auto splitAt = [&](DispatchLevel level) {
        std::vector<std::vector<uint8_t>> parts(layout.size());
        std::vector<uint8_t *> ptrs;
        for (size_t p = 0; p < layout.size(); ++p) {
          parts[p].assign(n * layout[p].bytesPerBlock() + 17, 0xA5);
          ptrs.push_back(parts[p].data() + 1);
        }
        EXPECT_TRUE(
            ggmlToPlanarAt(level, type, blocks.data() + 1, n, ptrs.data()));
        return parts;
      };
      auto joinAt = [&](DispatchLevel level) {
        std::vector<uint8_t> out(n * bytes + 17, 0x5A);
        EXPECT_TRUE(
            planarToGgmlAt(level, type, srcPtrs.data(), n, out.data() + 1));
        return out;
      };
      const auto wantParts = splitAt(DispatchLevel::Portable);
      const auto wantBlocks = joinAt(DispatchLevel::Portable);
      for (unsigned l = 1; l < kNumDispatchLevels; ++l) {
        const DispatchLevel level = DispatchLevel(l);
        if (!isDispatchLevelSupported(level))
          continue;
        SCOPED_TRACE(std::string(ggmlTypeTraits(type)->name) + ", " +
                     dispatchLevelName(level) + ", " + std::to_string(n) +
                     " blocks");
        EXPECT_EQ(splitAt(level), wantParts);
        EXPECT_EQ(joinAt(level), wantBlocks);
      }
      // The scalar join undoes the scalar split.
      std::vector<const uint8_t *> back;
      for (const auto &part : wantParts)
        back.push_back(part.data() + 1);
      std::vector<uint8_t> again(n * bytes);
      ASSERT_TRUE(planarToGgmlAt(DispatchLevel::Portable, type, back.data(), n,
                                 again.data()));
      EXPECT_TRUE(std::equal(again.begin(), again.end(), blocks.begin() + 1));
    }
  }
}

TEST(GgmlPlanar, PartsAndShapes) {
  EXPECT_EQ(planarTypes().size(), 13u);
  for (uint32_t t : {kGgmlQ8_1, kGgmlQ8_K, kGgmlIQ2_XXS, kGgmlTQ1_0, kGgmlF16})
    EXPECT_FALSE(hasGgmlPlanarForm(t)) << t;
  const std::vector<PlanarPart> &q4k = ggmlPlanarParts(kGgmlQ4_K);
  ASSERT_EQ(q4k.size(), 5u);
  EXPECT_EQ(planarPartShape(kGgmlQ4_K, q4k[0], {3, 512}),
            (std::vector<int64_t>{3, 512}));
  EXPECT_EQ(planarPartShape(kGgmlQ4_K, q4k[1], {3, 512}),
            (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(planarPartShape(kGgmlQ4_K, q4k[3], {3, 512}),
            (std::vector<int64_t>{3, 16}));
  // Every part of every block ends on a byte.
  for (uint32_t t : planarTypes()) {
    uint32_t bits = 0;
    for (const PlanarPart &part : ggmlPlanarParts(t)) {
      EXPECT_EQ(part.bits * part.perBlock % 8, 0u) << t;
      bits += part.bits * part.perBlock;
    }
    // The parts hold every bit of a block.
    EXPECT_EQ(bits, ggmlBlockBytes(t) * 8) << ggmlTypeTraits(t)->name;
  }
  std::vector<uint8_t> blk(34);
  uint8_t *none[1] = {nullptr};
  EXPECT_EQ(ggmlToPlanar(kGgmlQ8_1, blk.data(), 1, none).code(),
            archive::StatusCode::Unsupported);
}

TEST(GgmlPlanar, Q4_0GoldenBlock) {
  // d = 1.5 (0x3E00); byte 0 = 0x1F: element 0 = 0xF - 8 = 7, element 16 =
  // 0x1 - 8 = -7; the rest 0x88: elements 0.
  std::vector<uint8_t> blk(18, 0x88);
  blk[0] = 0x00, blk[1] = 0x3E, blk[2] = 0x1F;
  Planar p = split(kGgmlQ4_0, blk);
  // q: si4 packed, element 0 in the low nibble of byte 0; element 16 is the
  // low nibble of byte 8: -7 = 0x9.
  EXPECT_EQ(p.parts[0][0], 0x07);
  EXPECT_EQ(p.parts[0][8], 0x09);
  EXPECT_EQ(p.parts[1], (std::vector<uint8_t>{0x00, 0x3E}));
  std::vector<float> y(32);
  ASSERT_TRUE(decodeGgmlBlocks(kGgmlQ4_0, blk.data(), 1, y.data()));
  EXPECT_EQ(y[0], 10.5f);
  EXPECT_EQ(y[16], -10.5f);
  EXPECT_EQ(y[1], 0.0f);
}

GroupQuantSource i4Source(const std::vector<uint8_t> &codes,
                          const std::vector<uint8_t> &scales,
                          uint64_t groupSize, const char *scaleType) {
  GroupQuantSource s;
  s.name = "w";
  s.shape = {2, 256};
  s.codeType = "si4";
  s.codes = codes.data();
  s.groupSize = groupSize;
  s.scaleType = scaleType;
  s.scales = scales.data();
  return s;
}

TEST(GgmlRepack, PlanarQ4_0BackToGgmlBytes) {
  std::vector<uint8_t> blocks = randomBlocks(kGgmlQ4_0, 16, 3);
  // Finite scales (any other bit pattern, subnormals included).
  for (size_t b = 0; b < 16; ++b)
    if ((blocks[18 * b + 1] & 0x7C) == 0x7C)
      blocks[18 * b + 1] ^= 0x40;
  Planar p = split(kGgmlQ4_0, blocks);
  GroupQuantSource s = i4Source(p.parts[0], p.parts[1], 32, "f16");
  std::vector<uint8_t> out(blocks.size());
  Status st = repackToGgml(kGgmlQ4_0, s, out.data());
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(out, blocks);
  // A NaN or infinite scale, which ggml's validation refuses, is refused.
  p.parts[1][2 * 5 + 1] = 0x7C; // block 5: +inf or NaN
  st = repackToGgml(kGgmlQ4_0, s, out.data());
  EXPECT_EQ(st.code(), archive::StatusCode::Format);
  EXPECT_NE(st.message().find("of element [0, 160] is "), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("which ggml Q4_0 forbids"), std::string::npos)
      << st.message();
}

TEST(GgmlRepack, Group128F32ScalesIntoQ4_0) {
  std::mt19937 rng(1);
  std::vector<uint8_t> codes(2 * 256 / 2);
  for (uint8_t &c : codes)
    c = uint8_t(rng());
  // Four groups of 128, f32 scales that float16 holds exactly.
  std::vector<float> sc = {0.125f, -3.5f, 1.0f / 1024, 65504.0f};
  std::vector<uint8_t> scales(16);
  std::memcpy(scales.data(), sc.data(), 16);
  GroupQuantSource s = i4Source(codes, scales, 128, "f32");
  std::vector<uint8_t> out(16 * 18);
  Status st = repackToGgml(kGgmlQ4_0, s, out.data());
  ASSERT_TRUE(st) << st.message();
  std::vector<float> want(512), got(512);
  ASSERT_TRUE(decodeGroupQuant(s, want.data()));
  ASSERT_TRUE(decodeGgmlBlocks(kGgmlQ4_0, out.data(), 16, got.data()));
  EXPECT_EQ(std::memcmp(want.data(), got.data(), 512 * 4), 0);
  if (const GgmlLibrary *g = GgmlLibrary::get()) {
    g->toFloat(kGgmlQ4_0)(out.data(), got.data(), 512);
    EXPECT_EQ(std::memcmp(want.data(), got.data(), 512 * 4), 0);
  }
  // A scale float16 cannot hold is refused, naming the tensor and element.
  sc[2] = 0.1f;
  std::memcpy(scales.data(), sc.data(), 16);
  st = repackToGgml(kGgmlQ4_0, s, out.data());
  EXPECT_EQ(st.code(), archive::StatusCode::Format);
  EXPECT_NE(st.message().find("tensor 'w': the scale 0.100000001"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("of element [1, 0] is not exact in float16"),
            std::string::npos)
      << st.message();
}

TEST(GgmlRepack, RefusesCodesOutOfRangeAndChangedValues) {
  // ui4 codes with no zero point are 0..15: Q4_0 holds -8..7.
  std::vector<uint8_t> codes(256, 0x00);
  codes[70] = 0x80; // element 141: code 8
  std::vector<uint8_t> scales(8 * 2);
  for (int g = 0; g < 8; ++g)
    scales[2 * g + 1] = 0x38; // 0.5
  GroupQuantSource s = i4Source(codes, scales, 64, "f16");
  s.codeType = "ui4";
  std::vector<uint8_t> out(16 * 20);
  Status st = repackToGgml(kGgmlQ4_0, s, out.data());
  EXPECT_NE(st.message().find("tensor 'w': element [0, 141] has the code 8, "
                              "outside ggml Q4_0's -8..7"),
            std::string::npos)
      << st.message();
  // Into Q4_1 with a zero point of 8: value = (q - 8) * s becomes
  // q * s + (-(8 * s)), the same float32 for every code here.
  std::vector<uint8_t> zeros(4, 0x88); // ui4 zero points, 8 groups
  s.offsetKind = OffsetKind::ZeroPoint;
  s.offsets = zeros.data();
  st = repackToGgml(kGgmlQ4_1, s, out.data());
  ASSERT_TRUE(st) << st.message();
  std::vector<float> want(512), got(512);
  ASSERT_TRUE(decodeGroupQuant(s, want.data()));
  ASSERT_TRUE(decodeGgmlBlocks(kGgmlQ4_1, out.data(), 16, got.data()));
  EXPECT_EQ(std::memcmp(want.data(), got.data(), 512 * 4), 0);
  // With a negative scale, code 8 is (8 - 8) * -0.5 = -0 in the source but
  // 8 * -0.5 + 4 = +0 in Q4_1: refused.
  scales[5] = 0xB8; // group 2 (elements 128..191 of row 0): -0.5
  st = repackToGgml(kGgmlQ4_1, s, out.data());
  EXPECT_EQ(st.code(), archive::StatusCode::Format);
  EXPECT_NE(st.message().find("tensor 'w': element [0, 141] would change "
                              "from -0 (0x80000000) to 0 (0x0) in ggml Q4_1"),
            std::string::npos)
      << st.message();
  // A minimum float16 cannot hold: zero point 9 times 0x2E66.
  scales[4] = 0x66, scales[5] = 0x2E;
  zeros[1] = 0x99;
  st = repackToGgml(kGgmlQ4_1, s, out.data());
  EXPECT_NE(st.message().find("is not exact in float16; not repacked into "
                              "ggml Q4_1"),
            std::string::npos)
      << st.message();
}

TEST(GgmlRepack, HostileSources) {
  std::vector<uint8_t> codes(128), scales(16);
  GroupQuantSource s = i4Source(codes, scales, 48, "f16");
  std::vector<uint8_t> out(16 * 18);
  EXPECT_EQ(repackToGgml(kGgmlQ4_0, s, out.data()).code(),
            archive::StatusCode::Format); // 256 % 48
  s.groupSize = 16;
  EXPECT_EQ(repackToGgml(kGgmlQ4_0, s, out.data()).code(),
            archive::StatusCode::Format); // groups smaller than blocks
  s.groupSize = 32;
  s.codeType = "f16";
  EXPECT_EQ(repackToGgml(kGgmlQ4_0, s, out.data()).code(),
            archive::StatusCode::Unsupported);
  s.codeType = "si4";
  s.scaleType = "f64";
  EXPECT_EQ(repackToGgml(kGgmlQ4_0, s, out.data()).code(),
            archive::StatusCode::Unsupported);
  s.scaleType = "f16";
  s.scales = nullptr;
  EXPECT_EQ(repackToGgml(kGgmlQ4_0, s, out.data()).code(),
            archive::StatusCode::InvalidArgument);
  s.scales = scales.data();
  EXPECT_EQ(repackToGgml(kGgmlQ4_K, s, out.data()).code(),
            archive::StatusCode::Unsupported);
}

TEST(QuantScheme, TypesByName) {
  EXPECT_EQ(ggmlTypeByName("q4_k")->type, kGgmlQ4_K);
  EXPECT_EQ(ggmlTypeByName("IQ4_NL")->type, kGgmlIQ4_NL);
  EXPECT_EQ(ggmlTypeByName("mxfp4")->type, kGgmlMXFP4);
  EXPECT_EQ(ggmlTypeByName("f16")->type, kGgmlF16);
  EXPECT_EQ(ggmlTypeByName("q4"), nullptr);
  EXPECT_EQ(ggmlTypeByName(""), nullptr);
}

TEST(QuantScheme, DescribesGgmlTypes) {
  std::optional<QuantScheme> s = ggmlScheme(kGgmlQ4_K);
  ASSERT_TRUE(s);
  EXPECT_EQ(describe(*s),
            "ggml.q4_k: ui4 codes, groups of 32, scales f16 x ui6 "
            "(super-block 256), minimums f16 x ui6 subtracted");
  EXPECT_EQ(describe(*ggmlScheme(kGgmlQ4_0)),
            "ggml.q4_0: si4 codes, groups of 32, scales f16");
  EXPECT_FALSE(ggmlScheme(kGgmlF16));
  EXPECT_FALSE(ggmlScheme(4));
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (t.blockSize > 1) {
      std::optional<QuantScheme> q = ggmlScheme(t.type);
      ASSERT_TRUE(q) << t.name;
      EXPECT_EQ(q->ggmlType, t.type);
      EXPECT_EQ(t.blockSize % q->groupSize, 0u) << t.name;
    }
}

} // namespace

namespace {

TEST(GgmlValidate, AgreesWithGgmlValidateRowData) {
  const GgmlLibrary *g = GgmlLibrary::get();
  if (!g)
    GTEST_SKIP() << GgmlLibrary::whyMissing();
  // ggml prints each refusal to stderr: silence it for the loop.
  fflush(stderr);
  int saved = dup(2);
  int devnull = open("/dev/null", O_WRONLY);
  dup2(devnull, 2);
  uint64_t refused = 0, compared = 0;
  for (const GgmlTypeTraits &t : ggmlTypes()) {
    // ggml's validator has no case for Q8_1 and refuses it whole.
    if (t.blockSize == 1 || t.type == kGgmlQ8_1)
      continue;
    std::vector<uint8_t> blocks = randomBlocks(t.type, 1024, t.type + 99);
    for (uint32_t i = 0; i < 1024; ++i) {
      const uint8_t *b = blocks.data() + size_t(i) * t.typeSize;
      bool ggml = g->validateRow(t.type, b, t.typeSize);
      bool ours = validateGgmlBlocks(t.type, b, 1).isOk();
      refused += !ours;
      ++compared;
      if (ggml != ours) {
        dup2(saved, 2);
        FAIL() << t.name << " block " << i << ": ggml " << ggml << ", vmpack "
               << ours;
      }
    }
  }
  fflush(stderr);
  dup2(saved, 2);
  close(devnull);
  close(saved);
  EXPECT_GT(refused, 100u) << "random blocks should hit NaN/inf scales";
  std::cout << "  " << compared << " blocks judged alike, " << refused
            << " refused\n";
  std::vector<uint8_t> blk(18, 0);
  blk[1] = 0x7C; // +inf
  Status s = validateGgmlBlocks(kGgmlQ4_0, blk.data(), 1);
  EXPECT_NE(s.message().find("ggml Q4_0 block 0: the float16 field at byte 0 "
                             "is infinite (0x7c00)"),
            std::string::npos)
      << s.message();
}

std::vector<PlanarTensorInfo> q4kSet() {
  // A [4, 512] Q4_K weight: 8 blocks.
  return {{"w.q", "ui4", {4, 512}, 1024}, {"w.d", "f16", {4, 2}, 16},
          {"w.m", "f16", {4, 2}, 16},     {"w.sd", "ui6", {4, 16}, 48},
          {"w.sm", "ui6", {4, 16}, 48},   {"other.q", "si4", {3}, 2}};
}

TEST(GgmlPlanarSet, AcceptsTheRightPartsAndNamesWhatIsWrong) {
  EXPECT_TRUE(checkPlanarSet(kGgmlQ4_K, "w", q4kSet()));
  // planarTensors declares exactly that set.
  std::vector<PlanarTensorInfo> declared =
      planarTensors(kGgmlQ4_K, "w", {4, 512});
  std::vector<PlanarTensorInfo> want = q4kSet();
  want.pop_back();
  ASSERT_EQ(declared.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(declared[i].name, want[i].name);
    EXPECT_EQ(declared[i].type, want[i].type);
    EXPECT_EQ(declared[i].shape, want[i].shape);
    EXPECT_EQ(declared[i].byteLength, want[i].byteLength);
  }
  EXPECT_TRUE(planarTensors(kGgmlQ4_K, "w", {4, 500}).empty());
  EXPECT_TRUE(planarTensors(kGgmlIQ2_S, "w", {4, 512}).empty());
  auto expectError = [](std::vector<PlanarTensorInfo> set,
                        const std::string &text) {
    Status s = checkPlanarSet(kGgmlQ4_K, "w", set);
    EXPECT_EQ(s.code(), archive::StatusCode::Format) << text;
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  std::vector<PlanarTensorInfo> set = q4kSet();
  set.erase(set.begin() + 1);
  expectError(set, "tensor 'w.q' has no 'w.d' beside it");
  set = q4kSet();
  set.erase(set.begin());
  expectError(set, "has no codes tensor 'w.q'");
  set = q4kSet();
  set[3].shape = {4, 8};
  expectError(set, "tensor 'w.sd' has shape [4, 8]; codes of shape [4, 512] "
                   "need [4, 16]");
  set = q4kSet();
  set[1].type = "bf16";
  expectError(set, "tensor 'w.d' is bf16; the planar form of ggml Q4_K "
                   "stores it as f16");
  set = q4kSet();
  set[4].byteLength = 47;
  expectError(set, "tensor 'w.sm' holds 47 bytes; its shape needs 48");
  set = q4kSet();
  set.push_back({"w.z", "f16", {4}, 8});
  expectError(set, "tensor 'w.z': the planar form of ggml Q4_K has no part "
                   "'z'");
  set = q4kSet();
  set.push_back(set[2]);
  expectError(set, "tensor 'w.m' appears 2 times");
  set = q4kSet();
  set[0].shape = {4, 500};
  expectError(set, "the last dimension 500 is not a positive multiple of "
                   "ggml Q4_K's 256-element blocks");
  EXPECT_EQ(checkPlanarSet(kGgmlIQ2_XXS, "w", q4kSet()).code(),
            archive::StatusCode::Unsupported);
}

} // namespace
