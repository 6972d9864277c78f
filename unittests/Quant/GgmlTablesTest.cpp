//===- GgmlTablesTest.cpp - Every grid entry against ggml's decode --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The code books and grids in lib/Quant/GgmlTables.cpp are checked entry by
// entry against ggml's own dequantizers: each test builds blocks whose
// scale turns every decoded value into a known multiple of one grid byte
// (scale code 0 and d = 1), runs ggml's dequantize_row_* on them and
// compares with the table. The same measurement wrote the tables
// (scripts/gen-ggml-tables.py).
//
//===----------------------------------------------------------------------===//

#include "GgmlLibrary.h"

#include "vmpack/Quant/GgmlTables.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

using namespace vmpack::quant;
using vmpack::testing::GgmlLibrary;

namespace {

constexpr uint8_t kHalfOne[2] = {0x00, 0x3C}; // float16 1.0

class GgmlTables : public ::testing::Test {
protected:
  void SetUp() override {
    lib = GgmlLibrary::get();
    if (!lib)
      GTEST_SKIP() << GgmlLibrary::whyMissing();
  }
  std::vector<float> decode(const char *name, const std::vector<uint8_t> &blk,
                            int n) {
    std::vector<float> y(n);
    auto fn = lib->dequantizeRow(name);
    EXPECT_NE(fn, nullptr) << name;
    if (fn)
      fn(blk.data(), y.data(), n);
    return y;
  }
  std::vector<uint8_t> start() { return {kHalfOne[0], kHalfOne[1]}; }
  const GgmlLibrary *lib = nullptr;
};

void push16(std::vector<uint8_t> &v, unsigned x) {
  v.push_back(uint8_t(x));
  v.push_back(uint8_t(x >> 8));
}

template <typename Row>
void expectRow(Row row, const float *y, unsigned n, float scale, float add,
               unsigned entry) {
  for (unsigned j = 0; j < n; ++j) {
    int8_t want = int8_t(uint8_t(row >> (8 * j)));
    float w = std::is_same<Row, uint64_t>::value && add != 0
                  ? float(want)
                  : float(uint8_t(row >> (8 * j)));
    EXPECT_EQ(y[j], (w + add) * scale) << "entry " << entry << " byte " << j;
  }
}

TEST_F(GgmlTables, Iq2xxsGrid) {
  for (unsigned b = 0; b < 256 / 32; ++b) {
    std::vector<uint8_t> blk = start();
    for (unsigned ib = 0; ib < 8; ++ib) {
      for (unsigned l = 0; l < 4; ++l)
        blk.push_back(uint8_t(32 * b + 4 * ib + l));
      blk.insert(blk.end(), 4, 0);
    }
    std::vector<float> y = decode("iq2_xxs", blk, 256);
    for (unsigned e = 0; e < 32; ++e)
      expectRow(kIq2xxsGrid[32 * b + e], &y[8 * e], 8, 0.125f, 0, 32 * b + e);
  }
}

TEST_F(GgmlTables, Iq2xsGrid) {
  for (unsigned b = 0; b < 512 / 32; ++b) {
    std::vector<uint8_t> blk = start();
    for (unsigned e = 0; e < 32; ++e)
      push16(blk, 32 * b + e);
    blk.insert(blk.end(), 8, 0);
    std::vector<float> y = decode("iq2_xs", blk, 256);
    for (unsigned e = 0; e < 32; ++e)
      expectRow(kIq2xsGrid[32 * b + e], &y[8 * e], 8, 0.125f, 0, 32 * b + e);
  }
}

TEST_F(GgmlTables, Iq2sGrid) {
  for (unsigned b = 0; b < 1024 / 32; ++b) {
    std::vector<uint8_t> qs, qh;
    for (unsigned ib = 0; ib < 8; ++ib) {
      unsigned h = 0;
      for (unsigned l = 0; l < 4; ++l) {
        unsigned idx = 32 * b + 4 * ib + l;
        qs.push_back(uint8_t(idx));
        h |= (idx >> 8) << (2 * l);
      }
      qh.push_back(uint8_t(h));
    }
    std::vector<uint8_t> blk = start();
    blk.insert(blk.end(), qs.begin(), qs.end());
    blk.insert(blk.end(), 32, 0); // signs
    blk.insert(blk.end(), qh.begin(), qh.end());
    blk.insert(blk.end(), 8, 0); // scales
    std::vector<float> y = decode("iq2_s", blk, 256);
    for (unsigned e = 0; e < 32; ++e)
      expectRow(kIq2sGrid[32 * b + e], &y[8 * e], 8, 0.125f, 0, 32 * b + e);
  }
}

TEST_F(GgmlTables, Iq3xxsGrid) {
  for (unsigned b = 0; b < 256 / 64; ++b) {
    std::vector<uint8_t> blk = start();
    for (unsigned e = 0; e < 64; ++e)
      blk.push_back(uint8_t(64 * b + e));
    blk.insert(blk.end(), 32, 0);
    std::vector<float> y = decode("iq3_xxs", blk, 256);
    for (unsigned e = 0; e < 64; ++e)
      expectRow(kIq3xxsGrid[64 * b + e], &y[4 * e], 4, 0.25f, 0, 64 * b + e);
  }
}

TEST_F(GgmlTables, Iq3sGrid) {
  for (unsigned b = 0; b < 512 / 64; ++b) {
    std::vector<uint8_t> blk = start();
    for (unsigned e = 0; e < 64; ++e)
      blk.push_back(uint8_t(64 * b + e));
    blk.insert(blk.end(), 8, b >= 4 ? 0xFF : 0); // ninth index bits
    blk.insert(blk.end(), 32 + 4, 0);            // signs, scales
    std::vector<float> y = decode("iq3_s", blk, 256);
    for (unsigned e = 0; e < 64; ++e)
      expectRow(kIq3sGrid[64 * b + e], &y[4 * e], 4, 1.0f, 0, 64 * b + e);
  }
}

TEST_F(GgmlTables, Iq1sGrid) {
  for (unsigned b = 0; b < 2048 / 32; ++b) {
    std::vector<uint8_t> qs, qh;
    for (unsigned ib = 0; ib < 8; ++ib) {
      unsigned h = 0;
      for (unsigned l = 0; l < 4; ++l) {
        unsigned idx = 32 * b + 4 * ib + l;
        qs.push_back(uint8_t(idx));
        h |= (idx >> 8) << (3 * l);
      }
      push16(qh, h);
    }
    std::vector<uint8_t> blk = start();
    blk.insert(blk.end(), qs.begin(), qs.end());
    blk.insert(blk.end(), qh.begin(), qh.end());
    std::vector<float> y = decode("iq1_s", blk, 256);
    for (unsigned e = 0; e < 32; ++e)
      expectRow(kIq1sGrid[32 * b + e], &y[8 * e], 8, 1.0f, 0.125f, 32 * b + e);
  }
}

TEST_F(GgmlTables, Iq4nlAndFp4Values) {
  std::vector<uint8_t> blk = start();
  for (unsigned j = 0; j < 16; ++j)
    blk.push_back(uint8_t(j));
  std::vector<float> y = decode("iq4_nl", blk, 32);
  for (unsigned j = 0; j < 16; ++j)
    EXPECT_EQ(y[j], float(kIq4nlValues[j])) << j;
  blk[0] = 128; // E8M0 2^1; MXFP4 scales by half of it
  blk.erase(blk.begin() + 1);
  y = decode("mxfp4", blk, 32);
  for (unsigned j = 0; j < 16; ++j)
    EXPECT_EQ(y[j], float(kFp4Values[j])) << j;
}

} // namespace
