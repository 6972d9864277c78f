//===- GgmlConvertTest.cpp - --quant's conversions between ggml types -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// convertGgmlTensor against obvious references:
// - Q8_0 blocks whose codes are even and within -16..14 hold values that a
//   Q4_0 block with twice the scale holds: every one converts exactly
//   (even when the largest code is +14, where neither the code move nor
//   ggml's quantizer finds the block), and the f32 values are the same;
//   a block with a code that is odd and beyond -8..7 is refused, naming an
//   element of that block.
// - A converted tensor's bytes are the same however a writer asks for them
//   (ragged ranges against one whole read).
// - planarSplit then joinPlanar gives the blocks back for every planar type.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/GgmlPlanar.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <regex>
#include <vector>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

TensorSource blockTensor(const std::string &name, uint32_t type,
                         std::vector<int64_t> shape,
                         const std::vector<uint8_t> &bytes) {
  TensorSource t;
  t.info.name = name;
  t.info.ggmlBlockType = type;
  t.info.shape = std::move(shape);
  t.info.elementType = *parseElementType("ui8");
  t.info.length = bytes.size();
  t.data = bytes.data();
  return t;
}

std::vector<uint8_t> readAll(const TensorSource &t) {
  std::vector<uint8_t> out(t.info.length);
  if (t.produce)
    t.produce(0, out.size(), out.data());
  else
    std::memcpy(out.data(), t.data, out.size());
  return out;
}

std::vector<float> decode(uint32_t type, const std::vector<uint8_t> &b) {
  uint64_t n = b.size() / quant::ggmlBlockBytes(type);
  std::vector<float> out(n * quant::ggmlBlockElements(type));
  EXPECT_TRUE(quant::decodeGgmlBlocks(type, b.data(), n, out.data()));
  return out;
}

/// Q8_0 blocks with normal f16 scales and even codes in -16..14, the
/// largest magnitude +14 in every other block.
std::vector<uint8_t> evenQ8_0(uint32_t blocks, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(blocks * 34);
  for (uint32_t i = 0; i < blocks; ++i) {
    uint8_t *blk = b.data() + 34 * i;
    uint16_t d = uint16_t(0x1C00 + rng() % 0x2000) | (rng() % 2 ? 0x8000 : 0);
    blk[0] = uint8_t(d), blk[1] = uint8_t(d >> 8);
    for (int j = 0; j < 32; ++j)
      blk[2 + j] = uint8_t(int8_t(2 * (int(rng() % 15) - 8 + 1) - 2));
    blk[2 + rng() % 32] = uint8_t(int8_t(i % 2 ? 14 : -16));
    for (int j = 0; j < 32; ++j)
      if (i % 2 && int8_t(blk[2 + j]) == -16)
        blk[2 + j] = uint8_t(int8_t(-14));
  }
  return b;
}

TEST(GgmlConvert, EvenQ8_0CodesBecomeQ4_0Exactly) {
  std::vector<uint8_t> q8 = evenQ8_0(64, 1);
  TensorSource src = blockTensor("w", quant::kGgmlQ8_0, {4, 512}, q8);
  RoundingReport report;
  StatusOr<TensorSource> q4 =
      convertGgmlTensor(src, quant::kGgmlQ4_0, false, &report);
  ASSERT_TRUE(q4) << q4.status().message();
  EXPECT_EQ(*q4->info.ggmlBlockType, quant::kGgmlQ4_0);
  EXPECT_EQ(report.blocks, 64u);
  EXPECT_EQ(report.roundedBlocks, 0u);
  std::vector<uint8_t> blocks = readAll(*q4);
  ASSERT_EQ(blocks.size(), 64u * 18);
  std::vector<float> want = decode(quant::kGgmlQ8_0, q8),
                     got = decode(quant::kGgmlQ4_0, blocks);
  EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * 4), 0);
  // Ragged reads give the same bytes.
  std::vector<uint8_t> ragged(blocks.size());
  for (uint64_t at = 0, step = 1; at < ragged.size(); at += step, step += 7)
    q4->produce(at, std::min<uint64_t>(step, ragged.size() - at),
                ragged.data() + at);
  EXPECT_EQ(ragged, blocks);
}

TEST(GgmlConvert, RefusesTheFirstElementNoBlockHolds) {
  std::vector<uint8_t> q8 = evenQ8_0(8, 2);
  // Block 5, element 9: an odd code beyond -8..7 (no Q4_0 scale holds both
  // it and the block's +14 or -16).
  q8[34 * 5 + 2 + 9] = uint8_t(int8_t(9));
  TensorSource src = blockTensor("w", quant::kGgmlQ8_0, {2, 128}, q8);
  StatusOr<TensorSource> q4 = convertGgmlTensor(src, quant::kGgmlQ4_0, false);
  ASSERT_FALSE(q4);
  // The element named is in block 5 (row 1, elements 32..63): the first
  // whose value ggml's quantizer would change there.
  std::smatch m;
  const std::string message = q4.status().message();
  ASSERT_TRUE(std::regex_search(
      message, m,
      std::regex("^tensor 'w': element \\[1, ([0-9]+)\\] would change from ")))
      << message;
  EXPECT_GE(std::stoi(m[1]), 32);
  EXPECT_LT(std::stoi(m[1]), 64);
  EXPECT_NE(q4.status().message().find("--allow-rounding"), std::string::npos);
  // Allowed: only that block is rounded.
  RoundingReport report;
  q4 = convertGgmlTensor(src, quant::kGgmlQ4_0, true, &report);
  ASSERT_TRUE(q4);
  EXPECT_EQ(report.roundedBlocks, 1u);
  EXPECT_EQ(report.blocks, 8u);
  EXPECT_GT(report.maxAbsError, 0.0);
  EXPECT_EQ(report.maxAbsAt / 32, 5u);
}

TEST(GgmlConvert, PlanarSplitJoinsBack) {
  std::mt19937 rng(3);
  for (const quant::GgmlTypeTraits &t : quant::ggmlTypes()) {
    if (!quant::hasGgmlPlanarForm(t.type))
      continue;
    std::vector<uint8_t> bytes(3 * 4 * t.typeSize);
    for (uint8_t &b : bytes)
      b = uint8_t(rng());
    TensorSource src =
        blockTensor("x", t.type, {3, int64_t(4 * t.blockSize)}, bytes);
    ASSERT_TRUE(checkGgmlBlockTensor(src.info));
    std::vector<TensorSource> parts = planarSplit(src);
    ASSERT_EQ(parts.size(), quant::ggmlPlanarParts(t.type).size()) << t.name;
    std::vector<std::vector<uint8_t>> kept;
    std::vector<TensorSource> stored;
    for (TensorSource &p : parts) {
      kept.push_back(readAll(p));
      TensorSource s = p;
      s.produce = nullptr;
      s.data = kept.back().data();
      stored.push_back(s);
    }
    TensorSource joined = joinPlanar(t.type, "x", stored);
    EXPECT_EQ(joined.info.shape, src.info.shape);
    EXPECT_EQ(readAll(joined), bytes) << t.name;
  }
}

TEST(GgmlConvert, ParsesTargetsAndRecords) {
  EXPECT_EQ(parseQuantTarget("planar")->kind, QuantTarget::Planar);
  EXPECT_EQ(parseQuantTarget("ggml")->kind, QuantTarget::Recorded);
  EXPECT_EQ(parseQuantTarget("gptq_v2")->kind, QuantTarget::HfScheme);
  EXPECT_EQ(parseQuantTarget("compressed-tensors")->kind,
            QuantTarget::HfScheme);
  EXPECT_EQ(parseQuantTarget("mlx")->kind, QuantTarget::HfScheme);
  EXPECT_EQ(parseQuantTarget("bnb-nf4")->kind, QuantTarget::HfScheme);
  EXPECT_FALSE(parseQuantTarget("bnb-fp4"));
  EXPECT_EQ(parseQuantTarget("Q4_K")->ggmlType, quant::kGgmlQ4_K);
  EXPECT_FALSE(parseQuantTarget("iq2_xxs")); // no planar form
  EXPECT_FALSE(parseQuantTarget("q4"));
  EXPECT_EQ(*parsePlanarRecord("nvfp4"), quant::kGgmlNVFP4);
  EXPECT_FALSE(parsePlanarRecord("Q8_1"));
  EXPECT_FALSE(parsePlanarRecord(""));
  EXPECT_EQ(planarRecordKey("blk.0.w"), "vmpack.planar.blk.0.w");
}

} // namespace
