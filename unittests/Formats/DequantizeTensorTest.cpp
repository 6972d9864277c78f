//===- DequantizeTensorTest.cpp - ggml blocks decoded on threads ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-convert --dequantize --threads=N on a GGUF file's ggml block
// tensors, as the tool runs it: the file read back (openWeightFile),
// each block tensor replaced by dequantizeTensor's floats and written by
// the safetensors writer, which asks for kProduceChunkBytes at a time.
// Every chunk must be split over the threads (quant::splitRange counts
// the threads it starts), and the file must be byte for byte the one
// --threads=1 writes.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/DequantizeTensor.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Quant/GgmlTypes.h"
#include "vmpack/Quant/Parallel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

class TempDir {
public:
  TempDir() {
    char tmpl[] = "/tmp/vmpack-dequantize-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string &name) const { return path + "/" + name; }
  std::string path;
};

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Random blocks of `type` whose f16 scales are finite and normal.
std::vector<uint8_t> randomBlocks(uint32_t type, uint64_t blocks,
                                  uint32_t seed) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  std::vector<uint8_t> b(blocks * t->typeSize);
  std::mt19937 rng(seed);
  for (uint8_t &x : b)
    x = uint8_t(rng());
  for (uint64_t k = 0; k < blocks; ++k) {
    uint8_t *p = b.data() + k * t->typeSize;
    for (unsigned s = 0; s < (type == quant::kGgmlQ4_K ? 2u : 1u); ++s) {
      uint16_t h = uint16_t(0x1c00 + rng() % 0x1000);
      p[2 * s] = uint8_t(h), p[2 * s + 1] = uint8_t(h >> 8);
    }
  }
  return b;
}

TEST(DequantizeTensor, GgufBlocksDecodeOnThreadsToTheSameFile) {
  TempDir dir;
  // [64, 4096] each: 2^18 elements, 512 KiB of f16, two writer chunks.
  const std::vector<int64_t> shape = {64, 4096};
  std::vector<uint8_t> q4_0 = randomBlocks(quant::kGgmlQ4_0, 8192, 1);
  std::vector<uint8_t> q4_k = randomBlocks(quant::kGgmlQ4_K, 1024, 2);
  auto blockTensor = [&](const char *name, uint32_t type,
                         const std::vector<uint8_t> &bytes) {
    TensorSource t;
    t.info.name = name;
    t.info.ggmlBlockType = type;
    t.info.shape = shape;
    t.info.elementType = *parseElementType("ui8");
    t.info.length = bytes.size();
    t.data = bytes.data();
    return t;
  };
  ASSERT_TRUE(writeGguf(dir.file("q.gguf"),
                        {blockTensor("a", quant::kGgmlQ4_0, q4_0),
                         blockTensor("b", quant::kGgmlQ4_K, q4_k)},
                        {})
                  .isOk());
  StatusOr<std::unique_ptr<WeightFile>> in =
      openWeightFile(dir.file("q.gguf"), FileFormat::Gguf);
  ASSERT_TRUE(in) << in.status().message();
  ASSERT_EQ((*in)->tensors.size(), 2u);

  for (quant::FloatType to : {quant::FloatType::F16, quant::FloatType::F32}) {
    SCOPED_TRACE(quant::floatTypeName(to));
    std::string first;
    for (unsigned threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(threads);
      std::vector<TensorSource> floats;
      uint64_t chunks = 0;
      for (const TensorSource &blocks : (*in)->sources()) {
        ASSERT_TRUE(canDequantizeTensor(blocks.info));
        StatusOr<TensorSource> f = dequantizeTensor(blocks, to, threads);
        ASSERT_TRUE(f) << f.status().message();
        chunks +=
            (f->info.length + kProduceChunkBytes - 1) / kProduceChunkBytes;
        floats.push_back(*f);
      }
      std::string path = dir.file("t" + std::to_string(threads) + ".st");
      uint64_t before = quant::splitRangeThreadsStarted();
      Status s = writeSafetensors(path, floats, {});
      ASSERT_TRUE(s.isOk()) << s.message();
      // Each chunk (2^16 f32 or 2^17 f16 values) is split into `threads`
      // pieces of at least 2^14 values: threads - 1 started per chunk.
      EXPECT_EQ(quant::splitRangeThreadsStarted() - before,
                chunks * (threads - 1));
      std::string bytes = readAll(path);
      ASSERT_FALSE(bytes.empty());
      if (first.empty())
        first = bytes;
      EXPECT_TRUE(bytes == first) << "differs from --threads=1";
    }
  }
}

} // namespace
