//===- DequantSplitTest.cpp - Q4_0, Q4_1, Q8_0 as integers and scales -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The split tensors must give, element by element, exactly the value of
// ggml's reference dequantization (ggml-org/ggml src/ggml-quants.c,
// dequantize_row_q4_0 / _q4_1 / _q8_0), computed here straight from the
// block bytes as that code does.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/DequantSplit.h"

#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Convert.h"

#include <gtest/gtest.h>

#include <random>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

float half(const uint8_t *p) {
  return decodeFloat(*floatFormat(ScalarKind::F16), uint32_t(p[0] | p[1] << 8));
}

/// ggml's dequantize_row_* for one block, as a list of floats.
std::vector<float> reference(uint32_t type, const uint8_t *block) {
  std::vector<float> y(32);
  float d = half(block);
  if (type == 8) {
    for (int j = 0; j < 32; ++j)
      y[j] = float(int8_t(block[2 + j])) * d;
    return y;
  }
  bool q41 = type == 3;
  float m = q41 ? half(block + 2) : 0.0f;
  const uint8_t *qs = block + (q41 ? 4 : 2);
  for (int j = 0; j < 16; ++j) {
    int x0 = (qs[j] & 0x0F) - (q41 ? 0 : 8);
    int x1 = (qs[j] >> 4) - (q41 ? 0 : 8);
    y[j] = x0 * d + m;
    y[j + 16] = x1 * d + m;
  }
  return y;
}

/// All of a computed tensor's bytes, produced in random-sized pieces.
std::vector<uint8_t> produceAll(const TensorSource &t, std::mt19937_64 &rng) {
  std::vector<uint8_t> out(t.info.length);
  for (uint64_t at = 0; at < t.info.length;) {
    uint64_t n = std::min<uint64_t>(1 + rng() % 40, t.info.length - at);
    t.produce(at, n, out.data() + at);
    at += n;
  }
  return out;
}

TEST(DequantSplit, MatchesGgmlReferenceDequantization) {
  std::mt19937_64 rng(5);
  for (uint32_t type : {2u, 3u, 8u}) {
    SCOPED_TRACE(type);
    const GgmlTypeTraits *traits = ggmlTypeTraits(type);
    TensorSource blocks;
    blocks.info.name = "w";
    blocks.info.ggmlBlockType = type;
    blocks.info.shape = {3, 64}; // 6 blocks
    blocks.info.length = 6 * traits->typeSize;
    std::vector<uint8_t> bytes(blocks.info.length);
    for (uint8_t &b : bytes)
      b = uint8_t(rng());
    // Finite scales: f16 exponents below all ones.
    for (size_t i = 0; i < 6; ++i)
      for (size_t s = 0; s < (type == 3 ? 2u : 1u); ++s)
        bytes[i * traits->typeSize + 2 * s + 1] &= 0x3b;
    blocks.data = bytes.data();

    std::vector<TensorSource> split = dequantSplit(blocks);
    ASSERT_EQ(split.size(), type == 3 ? 3u : 2u);
    const TensorSource &q = split[0], &d = split[1];
    EXPECT_EQ(q.info.name, "w.q");
    EXPECT_EQ(d.info.name, "w.d");
    EXPECT_EQ(toString(q.info.elementType), type == 2   ? "i4"
                                            : type == 3 ? "ui4"
                                                        : "i8");
    EXPECT_EQ(q.info.shape, (std::vector<int64_t>{3, 64}));
    EXPECT_EQ(d.info.shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(toString(d.info.elementType), "f16");
    EXPECT_EQ(storedSize(q.info.elementType, q.info.shape, q.info.encoding),
              q.info.length);
    std::vector<uint8_t> qb = produceAll(q, rng), db = produceAll(d, rng);
    std::vector<uint8_t> mb;
    if (type == 3) {
      EXPECT_EQ(split[2].info.name, "w.m");
      mb = produceAll(split[2], rng);
    }
    uint32_t w = q.info.elementType.scalarBits();
    bool isSigned = type != 3;
    for (uint64_t b = 0; b < 6; ++b) {
      std::vector<float> want =
          reference(type, bytes.data() + b * traits->typeSize);
      float scale = half(db.data() + 2 * b);
      float min = type == 3 ? half(mb.data() + 2 * b) : 0.0f;
      for (uint64_t e = 0; e < 32; ++e) {
        uint64_t raw = readElement(q.info.encoding, w, qb.data(), b * 32 + e);
        int64_t v = isSigned && (raw >> (w - 1))
                        ? int64_t(raw) - (int64_t(1) << w)
                        : int64_t(raw);
        EXPECT_EQ(float(v) * scale + min, want[e])
            << "block " << b << " element " << e;
      }
    }
  }
}

TEST(DequantSplit, GoldenQ4_0Block) {
  // d = 1.0 (f16 0x3c00); qs[0] = 0x1f: element 0 = 15 - 8 = 7, element 16
  // = 1 - 8 = -7 (i4 0x9); all other quants 0x88: elements 0.
  std::vector<uint8_t> block(18, 0x88);
  block[0] = 0x00;
  block[1] = 0x3c;
  block[2] = 0x1f;
  TensorSource blocks;
  blocks.info.name = "b";
  blocks.info.ggmlBlockType = 2;
  blocks.info.shape = {32};
  blocks.info.length = 18;
  blocks.data = block.data();
  std::vector<TensorSource> split = dequantSplit(blocks);
  std::vector<uint8_t> q(16), d(2);
  split[0].produce(0, 16, q.data());
  split[1].produce(0, 2, d.data());
  std::vector<uint8_t> expected(16, 0);
  expected[0] = 0x07; // elements 0 (7) and 1 (0)
  expected[8] = 0x09; // elements 16 (-7) and 17 (0)
  EXPECT_EQ(q, expected);
  EXPECT_EQ(d, (std::vector<uint8_t>{0x00, 0x3c}));
  EXPECT_TRUE(canDequantSplit(2) && canDequantSplit(3) && canDequantSplit(8));
  // Every type with a planar form splits (Q5_0, Q4_K, MXFP4), the others
  // (F32, Q8_1, IQ2_XXS, TQ1_0) do not.
  EXPECT_TRUE(canDequantSplit(6) && canDequantSplit(12) && canDequantSplit(39));
  EXPECT_FALSE(canDequantSplit(0) || canDequantSplit(9) ||
               canDequantSplit(16) || canDequantSplit(34));
}

} // namespace
