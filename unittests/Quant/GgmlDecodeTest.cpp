//===- GgmlDecodeTest.cpp - Block decoders against ggml's own -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every quantized ggml type decoded by vmpack and by ggml's reference
// dequantizer (libggml-base.so's type_traits.to_float) from the same bytes,
// compared bit for bit (memcmp of the float32 results):
//  - blocks that ggml's own quantizer (ggml_quantize_chunk, with an
//    importance matrix where the type needs one) made from rows of zeros,
//    normal values, huge and tiny magnitudes, spikes, and NaN/inf where the
//    quantizer accepts them;
//  - blocks of random bytes, which give every scale bit pattern (NaN,
//    infinity, subnormal) and every code.
// Plus hostile sizes, and the float16 conversion over all 65536 patterns.
//
//===----------------------------------------------------------------------===//

#include "GgmlLibrary.h"

#include "vmpack/Quant/GgmlDecode.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;
using vmpack::testing::GgmlLibrary;

namespace {

std::vector<uint32_t> quantizedTypes() {
  std::vector<uint32_t> out;
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (t.blockSize > 1)
      out.push_back(t.type);
  return out;
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// Empty when the two float arrays are identical bit for bit; otherwise the
/// first difference.
std::string firstDifference(const std::vector<float> &want,
                            const std::vector<float> &got) {
  if (want.size() != got.size())
    return "sizes differ";
  if (std::memcmp(want.data(), got.data(), want.size() * 4) == 0)
    return "";
  for (size_t i = 0; i < want.size(); ++i)
    if (bitsOf(want[i]) != bitsOf(got[i])) {
      std::ostringstream os;
      os << "element " << i << ": ggml 0x" << std::hex << std::setw(8)
         << std::setfill('0') << bitsOf(want[i]) << " (" << want[i]
         << "), vmpack 0x" << std::setw(8) << bitsOf(got[i]) << " (" << got[i]
         << ")";
      return os.str();
    }
  return "";
}

/// Decodes `blocks` with ggml and with vmpack; true if bit-identical.
::testing::AssertionResult sameAsGgml(const GgmlLibrary &g, uint32_t type,
                                      const std::vector<uint8_t> &blocks) {
  uint32_t bytes = ggmlBlockBytes(type), elems = ggmlBlockElements(type);
  uint64_t count = blocks.size() / bytes;
  std::vector<float> want(count * elems), got(count * elems);
  g.toFloat(type)(blocks.data(), want.data(), int64_t(want.size()));
  Status s = decodeGgmlBlocks(type, blocks.data(), count, got.data());
  if (!s)
    return ::testing::AssertionFailure() << s.message();
  std::string diff = firstDifference(want, got);
  if (!diff.empty()) {
    uint64_t block = 0;
    for (uint64_t i = 0; i < want.size(); ++i)
      if (bitsOf(want[i]) != bitsOf(got[i])) {
        block = i / elems;
        break;
      }
    std::ostringstream os;
    os << diff << "; block " << block << " bytes:";
    for (uint32_t k = 0; k < bytes; ++k)
      os << ' ' << std::hex << std::setw(2) << std::setfill('0')
         << int(blocks[block * bytes + k]);
    return ::testing::AssertionFailure() << os.str();
  }
  std::cout << "  " << ggmlTypeTraits(type)->name << ": " << want.size()
            << " float32 values bit-identical to ggml\n";
  return ::testing::AssertionSuccess();
}

/// Rows that exercise a quantizer: zeros, normal values, huge and tiny
/// magnitudes (scales that overflow or underflow float16), spikes, small
/// integers, and (when `special`) NaN and infinities.
std::vector<float> testRows(int64_t perRow, int rows, bool special,
                            uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(size_t(perRow) * rows);
  for (int r = 0; r < rows; ++r) {
    float *row = x.data() + size_t(r) * perRow;
    int kind = r % (special ? 9 : 7);
    for (int64_t i = 0; i < perRow; ++i) {
      float v = normal(rng);
      switch (kind) {
      case 0:
        v = 0.0f;
        break;
      case 1:
        break;
      case 2:
        v *= 3e4f;
        break; // scales near float16's largest
      case 3:
        v *= 1e9f;
        break; // float16 scales overflow to infinity
      case 4:
        v *= 1e-6f;
        break; // subnormal float16 scales
      case 5:
        v = (i % 61 == 0) ? v * 100.0f : (i % 7 == 0 ? v : 0.0f);
        break;
      case 6:
        v = float(int(rng() % 17) - 8);
        break;
      case 7:
        v = (i % 37 == 5) ? NAN : v;
        break;
      case 8:
        v = (i % 41 == 3) ? (i % 2 ? INFINITY : -INFINITY) : v;
        break;
      }
      row[i] = v;
    }
  }
  return x;
}

std::vector<float> importance(int64_t perRow, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.01f, 4.0f);
  std::vector<float> w(perRow);
  for (float &v : w)
    v = u(rng);
  return w;
}

/// Types whose quantizer takes NaN and infinite inputs without trouble: the
/// plain scale-and-round ones.
bool quantizerTakesSpecials(uint32_t type) {
  switch (type) {
  case kGgmlQ4_0:
  case kGgmlQ4_1:
  case kGgmlQ5_0:
  case kGgmlQ5_1:
  case kGgmlQ8_0:
  case kGgmlQ1_0:
  case kGgmlQ2_0:
  case kGgmlTQ1_0:
  case kGgmlTQ2_0:
    return true;
  default:
    return false;
  }
}

class GgmlDecode : public ::testing::TestWithParam<uint32_t> {
protected:
  void SetUp() override {
    lib = GgmlLibrary::get();
    if (!lib)
      GTEST_SKIP() << GgmlLibrary::whyMissing();
  }
  const GgmlLibrary *lib = nullptr;
};

std::string typeParamName(const ::testing::TestParamInfo<uint32_t> &info) {
  return ggmlTypeTraits(info.param)->name;
}

TEST_P(GgmlDecode, RandomBytesMatchGgml) {
  uint32_t type = GetParam();
  ASSERT_TRUE(canDecodeGgml(type));
  if (!lib->toFloat(type))
    GTEST_SKIP() << lib->typeName(type)
                 << " has no dequantizer in ggml (see Q8_1Reference)";
  std::mt19937 rng(type * 7919u + 1);
  uint32_t blocks = ggmlBlockElements(type) >= 256 ? 1024 : 8192;
  std::vector<uint8_t> bytes(size_t(blocks) * ggmlBlockBytes(type));
  for (uint8_t &b : bytes)
    b = uint8_t(rng());
  EXPECT_TRUE(sameAsGgml(*lib, type, bytes));
}

TEST_P(GgmlDecode, GgmlQuantizedRowsMatchGgml) {
  uint32_t type = GetParam();
  if (!lib->toFloat(type))
    GTEST_SKIP() << lib->typeName(type) << " has no dequantizer in ggml";
  const int64_t perRow = 1024;
  const int rows = 18;
  bool special = quantizerTakesSpecials(type);
  std::vector<float> x = testRows(perRow, rows, special, type + 17);
  uint64_t rowBytes = perRow / ggmlBlockElements(type) * ggmlBlockBytes(type);
  for (int withImatrix = 0; withImatrix < 2; ++withImatrix) {
    if (!withImatrix && lib->requiresImatrix(type))
      continue;
    std::vector<float> w = importance(perRow, type + 3);
    std::vector<uint8_t> q(rowBytes * rows);
    if (type == kGgmlQ8_K || type == kGgmlQ8_1) {
      // Not a storage type for ggml_quantize_chunk: its reference quantizer.
      if (withImatrix)
        continue;
      lib->fromFloatRef(type)(x.data(), q.data(), int64_t(x.size()));
    } else {
      size_t n = lib->quantizeChunk(type, x.data(), q.data(), rows, perRow,
                                    withImatrix ? w.data() : nullptr);
      ASSERT_EQ(n, q.size());
    }
    EXPECT_TRUE(sameAsGgml(*lib, type, q)) << "imatrix " << withImatrix;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GgmlDecode,
                         ::testing::ValuesIn(quantizedTypes()), typeParamName);

TEST(GgmlDecodeReference, Q8_1Reference) {
  // ggml defines no dequantizer for Q8_1; its values are q * d like Q8_0's.
  // Checked against double arithmetic (exact here: an 11-bit significand
  // times a 7-bit integer) and against ggml's quantizer's input.
  std::mt19937 rng(5);
  std::vector<uint8_t> bytes(36 * 512);
  for (uint8_t &b : bytes)
    b = uint8_t(rng());
  std::vector<float> got(32 * 512);
  ASSERT_TRUE(decodeGgmlBlocks(kGgmlQ8_1, bytes.data(), 512, got.data()));
  for (size_t i = 0; i < got.size(); ++i) {
    const uint8_t *blk = bytes.data() + i / 32 * 36;
    float d = ggmlHalfToFloat(uint16_t(blk[0] | blk[1] << 8));
    double want = double(int8_t(blk[4 + i % 32])) * double(d);
    if (std::isnan(d) || (std::isinf(d) && blk[4 + i % 32] == 0))
      EXPECT_TRUE(std::isnan(got[i])) << i;
    else
      EXPECT_EQ(got[i], float(want)) << i;
  }
  if (const GgmlLibrary *g = GgmlLibrary::get()) {
    std::vector<float> x = testRows(1024, 2, false, 9);
    x.erase(x.begin(), x.begin() + 1024); // the normal row only
    std::vector<uint8_t> q(36 * 32);
    g->fromFloatRef(kGgmlQ8_1)(x.data(), q.data(), 1024);
    std::vector<float> y(1024);
    ASSERT_TRUE(decodeGgmlBlocks(kGgmlQ8_1, q.data(), 32, y.data()));
    for (size_t i = 0; i < 1024; ++i) {
      const uint8_t *blk = q.data() + i / 32 * 36;
      float d = ggmlHalfToFloat(uint16_t(blk[0] | blk[1] << 8));
      EXPECT_LE(std::fabs(y[i] - x[i]), d * 0.5f + 1e-3f * std::fabs(x[i]))
          << i;
    }
  }
}

TEST(GgmlDecodeReference, HalfAndBf16AllPatternsMatchGgml) {
  const GgmlLibrary *g = GgmlLibrary::get();
  if (!g)
    GTEST_SKIP() << GgmlLibrary::whyMissing();
  std::vector<uint8_t> bytes(65536 * 2);
  for (uint32_t h = 0; h < 65536; ++h) {
    bytes[2 * h] = uint8_t(h);
    bytes[2 * h + 1] = uint8_t(h >> 8);
  }
  EXPECT_TRUE(sameAsGgml(*g, kGgmlF16, bytes));
  EXPECT_TRUE(sameAsGgml(*g, kGgmlBF16, bytes));
  for (uint32_t h = 0; h < 65536; ++h)
    EXPECT_EQ(bitsOf(ggmlHalfToFloat(uint16_t(h))), [&] {
      float f;
      g->toFloat(kGgmlF16)(&bytes[2 * h], &f, 1);
      return bitsOf(f);
    }()) << h;
}

TEST(GgmlDecodeHostile, RefusesBadSizesAndTypes) {
  std::vector<uint8_t> bytes(18 * 3);
  std::vector<float> out(96);
  Status s = decodeGgmlBytes(kGgmlQ4_0, bytes.data(), 18 * 3 - 1, out.data(),
                             out.size());
  EXPECT_EQ(s.code(), archive::StatusCode::Format);
  EXPECT_NE(s.message().find("53 bytes of ggml Q4_0 (2) are not a whole "
                             "number of 18-byte blocks (17 bytes left over)"),
            std::string::npos)
      << s.message();
  s = decodeGgmlBytes(kGgmlQ4_0, bytes.data(), 18 * 3, out.data(), 95);
  EXPECT_EQ(s.code(), archive::StatusCode::BufferTooSmall) << s.message();
  EXPECT_TRUE(decodeGgmlBytes(kGgmlQ4_0, bytes.data(), 18 * 3, out.data(), 96));
  for (uint32_t bad : {4u, 5u, 31u, 36u, 43u, 1000u, uint32_t(kGgmlI8)}) {
    EXPECT_FALSE(canDecodeGgml(bad)) << bad;
    s = decodeGgmlBlocks(bad, bytes.data(), 1, out.data());
    EXPECT_EQ(s.code(), archive::StatusCode::Unsupported) << bad;
  }
  s = decodeGgmlBlocks(kGgmlQ4_K, bytes.data(), ~uint64_t(0) / 100, out.data());
  EXPECT_EQ(s.code(), archive::StatusCode::InvalidArgument) << s.message();
  // Zero blocks decode to nothing.
  EXPECT_TRUE(decodeGgmlBytes(kGgmlQ6_K, nullptr, 0, nullptr, 0));
}

TEST(GgmlDecodeHostile, EveryQuantizedTypeIsDecodable) {
  for (uint32_t t : quantizedTypes()) {
    EXPECT_TRUE(canDecodeGgml(t)) << ggmlTypeTraits(t)->name;
    EXPECT_EQ(ggmlBlockBytes(t), ggmlTypeTraits(t)->typeSize);
  }
  EXPECT_EQ(quantizedTypes().size(), 27u);
}

} // namespace
