//===- DocVectorsTest.cpp - docs/quant.md's test vectors ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reads the `vector` lines of docs/quant.md (one block per quantized ggml
// type: byte k is (37 * k + 11) mod 256 except the listed scale bytes, and
// some of the values ggml's dequantizer gives) and requires vmpack's decode
// to give exactly those float32 bits.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/GgmlDecode.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace vmpack::quant;

namespace {

const GgmlTypeTraits *byName(const std::string &name) {
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (name == t.name)
      return &t;
  return nullptr;
}

TEST(DocVectors, EveryQuantizedTypeDecodesToTheDocumentedBits) {
  std::string path = std::string(VMPACK_SOURCE_DIR) + "/docs/quant.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::set<uint32_t> seen;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("vector ", 0) != 0)
      continue;
    std::istringstream words(line.substr(7));
    std::string name;
    words >> name;
    const GgmlTypeTraits *t = byName(name);
    ASSERT_NE(t, nullptr) << line;
    std::vector<uint8_t> blk(t->typeSize);
    for (uint32_t k = 0; k < t->typeSize; ++k)
      blk[k] = uint8_t((37 * k + 11) % 256);
    std::string w;
    while (words >> w && w != "->") {
      size_t eq = w.find('=');
      ASSERT_NE(eq, std::string::npos) << line;
      uint32_t off = uint32_t(std::stoul(w.substr(0, eq)));
      std::string hex = w.substr(eq + 1);
      for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        ASSERT_LT(off + i / 2, blk.size()) << line;
        blk[off + i / 2] = uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16));
      }
    }
    std::vector<float> y(t->blockSize);
    ASSERT_TRUE(decodeGgmlBlocks(t->type, blk.data(), 1, y.data()));
    int checked = 0;
    while (words >> w) {
      // y[i]=value, value decimal or 0x-prefixed float32 bits.
      size_t close = w.find("]=");
      ASSERT_EQ(w.rfind("y[", 0), 0u) << line;
      uint32_t i = uint32_t(std::stoul(w.substr(2, close - 2)));
      std::string v = w.substr(close + 2);
      uint32_t want;
      if (v.rfind("0x", 0) == 0) {
        want = uint32_t(std::stoul(v, nullptr, 16));
      } else {
        float f = std::strtof(v.c_str(), nullptr);
        std::memcpy(&want, &f, 4);
      }
      ASSERT_LT(i, y.size()) << line;
      uint32_t got;
      std::memcpy(&got, &y[i], 4);
      EXPECT_EQ(got, want) << name << " y[" << i << "]: " << y[i];
      ++checked;
    }
    EXPECT_GE(checked, 5) << line;
    seen.insert(t->type);
  }
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (t.blockSize > 1)
      EXPECT_TRUE(seen.count(t.type)) << "no vector for " << t.name;
}

} // namespace
