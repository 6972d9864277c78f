//===- DequantizeRuntimeTest.cpp - Quantized segments through the C API ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack_segment_quant_info and vmpack_segment_dequantize on GGUF files and
// on the .vmpk modules converted from them: the scheme and logical shape of
// each block tensor, values equal to the Quant layer's reference decoder
// (f32 bits; f16 and bf16 rounded) for ranges that start and end inside
// blocks on any number of threads, a type without a vector kernel, and
// every error: not quantized, out of range, a small destination, a bad
// float type, a damaged segment under lazy verification.
//
//===----------------------------------------------------------------------===//

#include "SampleTensors.h"
#include "TestFiles.h"

#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using namespace vmpack::archive::testing;

namespace {

OwnedTensor blockTensor(const std::string &name, uint32_t type,
                        std::vector<int64_t> shape, uint32_t seed) {
  OwnedTensor t;
  t.source.info.name = name;
  t.source.info.elementType = opaqueByteType();
  t.source.info.shape = shape;
  t.source.info.encoding = Encoding::Byte;
  t.source.info.ggmlBlockType = type;
  uint64_t n = uint64_t(*numElements(shape));
  t.bytes = std::make_shared<std::vector<uint8_t>>(
      n / quant::ggmlBlockElements(type) * quant::ggmlBlockBytes(type));
  std::mt19937 rng(seed);
  for (uint8_t &b : *t.bytes)
    b = uint8_t(rng());
  t.source.info.length = t.bytes->size();
  t.source.data = t.bytes->data();
  return t;
}

OwnedTensor plainTensor() {
  OwnedTensor t;
  t.source.info.name = "plain";
  t.source.info.elementType = *parseElementType("f32");
  t.source.info.shape = {4};
  t.source.info.encoding = Encoding::Byte;
  t.bytes = std::make_shared<std::vector<uint8_t>>(16, 0);
  t.source.info.length = 16;
  t.source.data = t.bytes->data();
  return t;
}

class DequantizeRuntime : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    tensors = {blockTensor("w.q4_K", quant::kGgmlQ4_K, {3, 512}, 1),
               blockTensor("w.q4_0", quant::kGgmlQ4_0, {5, 96}, 2),
               blockTensor("w.iq2_xxs", quant::kGgmlIQ2_XXS, {2, 256}, 3),
               plainTensor()};
    std::vector<TensorSource> sources;
    for (OwnedTensor &t : tensors)
      sources.push_back(t.source);
    std::string gguf = dir.path("q.gguf");
    ASSERT_TRUE(writeGguf(gguf, sources, {}));
    path = gguf;
    if (GetParam()) { // the .vmpk module converted from it
      path = dir.path("q.vmpk");
      ASSERT_TRUE(writeVmpk(path, sources, {}, "q", 64));
    }
  }
  vmpack_module_t *open(vmpack_verify_mode_t verify = VMPACK_VERIFY_STRUCTURE) {
    vmpack_open_options_t options;
    vmpack_open_options_init(&options);
    options.verify = verify;
    vmpack_module_t *m = nullptr;
    EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &options, &m),
              VMPACK_OK)
        << vmpack_last_error();
    return m;
  }
  size_t find(vmpack_module_t *m, const std::string &name) {
    size_t index = SIZE_MAX;
    EXPECT_EQ(vmpack_module_find_segment(m, name.data(), name.size(), &index),
              VMPACK_OK);
    return index;
  }
  ScratchDir dir;
  std::vector<OwnedTensor> tensors;
  std::string path;
};

TEST_P(DequantizeRuntime, QuantInfo) {
  vmpack_module_t *m = open();
  ASSERT_NE(m, nullptr);
  vmpack_quant_info_t q;
  ASSERT_EQ(vmpack_segment_quant_info(m, find(m, "w.q4_K"), &q), VMPACK_OK);
  EXPECT_STREQ(q.scheme, "ggml.Q4_K");
  EXPECT_EQ(q.ggml_type, 12u);
  EXPECT_EQ(q.block_size, 256u);
  EXPECT_EQ(q.block_bytes, 144u);
  ASSERT_EQ(q.rank, 2u);
  EXPECT_EQ(q.shape[0], 3);
  EXPECT_EQ(q.shape[1], 512);
  EXPECT_EQ(q.element_count, 1536u);
  EXPECT_EQ(q.block_count, 6u);
  EXPECT_EQ(q.has_fast_kernel, 1);
  ASSERT_EQ(vmpack_segment_quant_info(m, find(m, "w.iq2_xxs"), &q), VMPACK_OK);
  EXPECT_STREQ(q.scheme, "ggml.IQ2_XXS");
  EXPECT_EQ(q.has_fast_kernel, 0);
  ASSERT_EQ(vmpack_segment_quant_info(m, find(m, "plain"), &q), VMPACK_OK);
  EXPECT_STREQ(q.scheme, "");
  EXPECT_EQ(q.rank, 0u);
  EXPECT_EQ(q.shape, nullptr);
  EXPECT_EQ(vmpack_segment_quant_info(m, 99, &q), VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(vmpack_segment_quant_info(m, 0, nullptr),
            VMPACK_ERROR_INVALID_ARGUMENT);
  vmpack_module_close(m);
}

TEST_P(DequantizeRuntime, ValuesAreTheReferenceDecodersRounded) {
  vmpack_module_t *m = open();
  ASSERT_NE(m, nullptr);
  for (size_t t = 0; t < 3; ++t) {
    const TensorInfo &info = tensors[t].source.info;
    uint32_t type = *info.ggmlBlockType;
    uint64_t n = *numElements(info.shape);
    std::vector<float> ref(n);
    ASSERT_TRUE(quant::decodeGgmlBlocks(type, tensors[t].bytes->data(),
                                        n / quant::ggmlBlockElements(type),
                                        ref.data()));
    size_t index = find(m, info.name);
    struct Range {
      uint64_t first, count;
    };
    for (Range r : {Range{0, n}, Range{1, n - 2}, Range{33, 200},
                    Range{n - 1, 1}, Range{5, 0}})
      for (unsigned threads : {0u, 1u, 3u}) {
        SCOPED_TRACE(::testing::Message()
                     << info.name << " [" << r.first << ", +" << r.count
                     << ") on " << threads << " threads");
        std::vector<float> f32(r.count + 1, 7.0f);
        ASSERT_EQ(vmpack_segment_dequantize(m, index, r.first, r.count,
                                            VMPACK_FLOAT_F32, f32.data(),
                                            r.count * 4, threads),
                  VMPACK_OK)
            << vmpack_last_error();
        ASSERT_EQ(0,
                  std::memcmp(f32.data(), ref.data() + r.first, r.count * 4));
        EXPECT_EQ(f32[r.count], 7.0f);
        std::vector<uint16_t> f16(r.count), bf16(r.count);
        ASSERT_EQ(vmpack_segment_dequantize(m, index, r.first, r.count,
                                            VMPACK_FLOAT_F16, f16.data(),
                                            r.count * 2, threads),
                  VMPACK_OK);
        ASSERT_EQ(vmpack_segment_dequantize(m, index, r.first, r.count,
                                            VMPACK_FLOAT_BF16, bf16.data(),
                                            r.count * 2, threads),
                  VMPACK_OK);
        for (uint64_t i = 0; i < r.count; ++i) {
          ASSERT_EQ(f16[i], quant::floatToHalf(ref[r.first + i])) << i;
          ASSERT_EQ(bf16[i], quant::floatToBFloat16(ref[r.first + i])) << i;
        }
      }
  }
  vmpack_module_close(m);
}

TEST_P(DequantizeRuntime, Errors) {
  vmpack_module_t *m = open();
  ASSERT_NE(m, nullptr);
  size_t q4 = find(m, "w.q4_0"); // 480 elements
  std::vector<float> out(480);
  EXPECT_EQ(vmpack_segment_dequantize(m, q4, 470, 11, VMPACK_FLOAT_F32,
                                      out.data(), 44, 1),
            VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_NE(std::string(vmpack_last_error()).find("'w.q4_0'"),
            std::string::npos)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_segment_dequantize(m, q4, UINT64_MAX, 2, VMPACK_FLOAT_F32,
                                      out.data(), 8, 1),
            VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(vmpack_segment_dequantize(m, q4, 0, 480, VMPACK_FLOAT_F32,
                                      out.data(), 480 * 4 - 1, 1),
            VMPACK_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(vmpack_segment_dequantize(m, q4, 0, 480, VMPACK_FLOAT_F16,
                                      out.data(), 960, 1),
            VMPACK_OK);
  EXPECT_EQ(vmpack_segment_dequantize(m, q4, 0, 1, vmpack_float_type_t(3),
                                      out.data(), 4, 1),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      vmpack_segment_dequantize(m, q4, 0, 1, VMPACK_FLOAT_F32, nullptr, 4, 1),
      VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_segment_dequantize(nullptr, q4, 0, 1, VMPACK_FLOAT_F32,
                                      out.data(), 4, 1),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_segment_dequantize(m, 99, 0, 1, VMPACK_FLOAT_F32, out.data(),
                                      4, 1),
            VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(vmpack_segment_dequantize(m, find(m, "plain"), 0, 1,
                                      VMPACK_FLOAT_F32, out.data(), 4, 1),
            VMPACK_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(vmpack_last_error()).find("not quantized"),
            std::string::npos)
      << vmpack_last_error();
  vmpack_module_close(m);
}

TEST_P(DequantizeRuntime, DamagedSegmentUnderLazyVerification) {
  if (!GetParam())
    GTEST_SKIP() << "GGUF has no checksums";
  vmpack_module_t *m = open();
  ASSERT_NE(m, nullptr);
  vmpack_segment_info_t info;
  ASSERT_EQ(vmpack_module_segment_info(m, find(m, "w.q4_K"), &info), VMPACK_OK);
  uint64_t at = info.offset + 100;
  vmpack_module_close(m);
  std::vector<uint8_t> bytes = readFile(path);
  bytes[at] ^= 1;
  writeFile(path, bytes);
  m = open(VMPACK_VERIFY_LAZY);
  ASSERT_NE(m, nullptr);
  std::vector<float> out(1536);
  EXPECT_EQ(vmpack_segment_dequantize(m, find(m, "w.q4_K"), 0, 1536,
                                      VMPACK_FLOAT_F32, out.data(), 1536 * 4,
                                      0),
            VMPACK_ERROR_CHECKSUM);
  EXPECT_EQ(vmpack_segment_dequantize(m, find(m, "w.q4_0"), 0, 32,
                                      VMPACK_FLOAT_F32, out.data(), 128, 0),
            VMPACK_OK);
  vmpack_module_close(m);
}

INSTANTIATE_TEST_SUITE_P(GgufAndVmpk, DequantizeRuntime, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &p) {
                           return p.param ? "Vmpk" : "Gguf";
                         });

} // namespace
