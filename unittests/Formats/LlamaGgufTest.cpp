//===- LlamaGgufTest.cpp - The Q/K row permutation for llama.cpp's rope ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// llamaRopeSourceRow against docs/llama.md's examples and against the
// definition it implements (llama.cpp's convert_hf_to_gguf.py permute:
// reshape to [heads, 2, head_dim / 2, ...], swap the middle axes), written
// here as the slow obvious index computation. The end-to-end check, that
// llama.cpp's logits match a Hugging Face forward pass, is
// python/tests/test_llama_cpp.py.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/LlamaGguf.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace vmpack::formats;

TEST(LlamaRopeSourceRow, DocExamples) {
  std::vector<uint64_t> four, eight;
  for (uint64_t r = 0; r < 4; ++r)
    four.push_back(llamaRopeSourceRow(r, 4));
  for (uint64_t r = 0; r < 8; ++r)
    eight.push_back(llamaRopeSourceRow(r, 8));
  EXPECT_EQ(four, (std::vector<uint64_t>{0, 2, 1, 3}));
  EXPECT_EQ(eight, (std::vector<uint64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  // The second head starts where the first ends.
  EXPECT_EQ(llamaRopeSourceRow(4, 4), 4u);
  EXPECT_EQ(llamaRopeSourceRow(5, 4), 6u);
}

TEST(LlamaRopeSourceRow, IsTheSwapOfTheHalvesAxis) {
  for (uint64_t headDim : {2u, 4u, 16u, 64u, 128u}) {
    const uint64_t heads = 3, half = headDim / 2;
    std::set<uint64_t> seen;
    // The written tensor as [heads, half, 2] holds the checkpoint's
    // [heads, 2, half] element (h, j, i) at (h, i, j).
    for (uint64_t h = 0; h < heads; ++h)
      for (uint64_t i = 0; i < half; ++i)
        for (uint64_t j = 0; j < 2; ++j) {
          uint64_t written = (h * half + i) * 2 + j;
          uint64_t source = (h * 2 + j) * half + i;
          EXPECT_EQ(llamaRopeSourceRow(written, headDim), source)
              << "head_dim " << headDim << " row " << written;
          seen.insert(llamaRopeSourceRow(written, headDim));
        }
    EXPECT_EQ(seen.size(), heads * headDim) << "not a permutation";
  }
}
