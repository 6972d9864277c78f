//===- RuntimeTest.cpp - The C API
//-----------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/Pack/Convert.h"
#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

class Runtime : public ::testing::Test {
protected:
  void SetUp() override {
    segments = sampleSegments();
    ASSERT_TRUE(
        writeModule(dir.path("m.vmpk"), "sample", segments, "prog", 2, 3)
            .isOk());
    ASSERT_EQ(vmpack_module_open_file(dir.path("m.vmpk").c_str(), &module),
              VMPACK_OK)
        << vmpack_last_error();
  }
  void TearDown() override { vmpack_module_close(module); }

  ScratchDir dir;
  std::vector<SampleSegment> segments;
  vmpack_module_t *module = nullptr;
};

TEST_F(Runtime, ListsSegmentsWithZeroCopyViews) {
  EXPECT_STREQ(vmpack_module_name(module), "sample");
  EXPECT_EQ(vmpack_module_format_version(module), 1u);
  ASSERT_EQ(vmpack_module_segment_count(module), segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    vmpack_segment_info_t info;
    ASSERT_EQ(vmpack_module_segment_info(module, i, &info), VMPACK_OK);
    EXPECT_EQ(std::string(info.name, info.name_length), segments[i].desc.name);
    EXPECT_EQ(info.length, segments[i].bytes.size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(info.data) % info.alignment, 0u);
    if (info.length)
      EXPECT_EQ(0,
                std::memcmp(info.data, segments[i].bytes.data(), info.length));
    size_t found = 99;
    ASSERT_EQ(
        vmpack_module_find_segment(module, info.name, info.name_length, &found),
        VMPACK_OK);
    EXPECT_EQ(found, i);
  }
  vmpack_segment_info_t info;
  EXPECT_EQ(vmpack_module_segment_info(module, 99, &info),
            VMPACK_ERROR_OUT_OF_RANGE);
  size_t index;
  EXPECT_EQ(vmpack_module_find_segment(module, "nope", 4, &index),
            VMPACK_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(vmpack_last_error()).find("nope"), std::string::npos);
  const void *program;
  uint64_t programLength;
  ASSERT_EQ(vmpack_module_program(module, &program, &programLength), VMPACK_OK);
  EXPECT_EQ(std::string(static_cast<const char *>(program), programLength),
            "prog");
  EXPECT_EQ(vmpack_module_verify(module, 2), VMPACK_OK);
}

TEST_F(Runtime, UnpacksIntegersSignAware) {
  // layer0.weight: i4 (sign-extended); layer1.weight: ui4 (zero-extended).
  for (size_t i : {size_t(0), size_t(5)}) {
    const SampleSegment &s = segments[i];
    bool sign = s.desc.elementType.scalar.isSignExtended();
    uint64_t n = s.values.size();
    for (vmpack_dtype_t dtype :
         {VMPACK_DTYPE_INT8, VMPACK_DTYPE_INT16, VMPACK_DTYPE_INT32}) {
      std::vector<int32_t> out(n);
      std::vector<uint8_t> raw(n * 4);
      ASSERT_EQ(vmpack_segment_unpack(module, i, 3, n - 5, dtype, raw.data(),
                                      raw.size()),
                VMPACK_OK)
          << vmpack_last_error();
      for (uint64_t k = 0; k < n - 5; ++k) {
        int64_t want = int64_t(s.values[k + 3]);
        if (sign && want >= 8)
          want -= 16;
        int64_t got = dtype == VMPACK_DTYPE_INT8 ? int8_t(raw[k])
                      : dtype == VMPACK_DTYPE_INT16
                          ? reinterpret_cast<int16_t *>(raw.data())[k]
                          : reinterpret_cast<int32_t *>(raw.data())[k];
        ASSERT_EQ(got, want) << i << " " << k;
      }
    }
  }
}

TEST_F(Runtime, UnpacksFloats) {
  const SampleSegment &bias = segments[1]; // f16, word
  std::vector<float> out(bias.values.size());
  ASSERT_EQ(vmpack_segment_unpack(module, 1, 0, out.size(),
                                  VMPACK_DTYPE_FLOAT32, out.data(),
                                  out.size() * 4),
            VMPACK_OK);
  auto format = *floatFormat(ScalarKind::F16);
  for (size_t k = 0; k < out.size(); ++k) {
    float want = decodeFloat(format, uint32_t(bias.values[k]));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(out[k]));
    else
      EXPECT_EQ(out[k], want);
  }
}

TEST_F(Runtime, RejectsWhatDoesNotFit) {
  int8_t small[4];
  float f[4];
  EXPECT_EQ(vmpack_segment_unpack(module, 0, 0, 5, VMPACK_DTYPE_INT8, small,
                                  sizeof(small)),
            VMPACK_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(vmpack_segment_unpack(module, 0, 510, 4, VMPACK_DTYPE_INT8, small,
                                  sizeof(small)),
            VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(vmpack_segment_unpack(module, 0, UINT64_MAX, 2, VMPACK_DTYPE_INT8,
                                  small, sizeof(small)),
            VMPACK_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(vmpack_segment_unpack(module, 0, 0, 4, VMPACK_DTYPE_FLOAT32, f,
                                  sizeof(f)),
            VMPACK_ERROR_UNSUPPORTED);
  EXPECT_EQ(vmpack_segment_unpack(module, 1, 0, 4, VMPACK_DTYPE_INT8, small,
                                  sizeof(small)),
            VMPACK_ERROR_UNSUPPORTED);
  EXPECT_EQ(vmpack_segment_unpack(module, 0, 0, 4, vmpack_dtype_t(42), small,
                                  sizeof(small)),
            VMPACK_ERROR_INVALID_ARGUMENT);
}

TEST(RuntimeOpen, ErrorsHaveCodesAndMessages) {
  vmpack_module_t *m = nullptr;
  EXPECT_EQ(vmpack_module_open_file("/nonexistent/m.vmpk", &m),
            VMPACK_ERROR_IO);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(vmpack_last_error()).find("No such file"),
            std::string::npos);
  alignas(64) static const uint8_t garbage[200] = {1, 2, 3};
  EXPECT_EQ(vmpack_module_open_memory(garbage, sizeof(garbage), &m),
            VMPACK_ERROR_FORMAT);
  EXPECT_EQ(vmpack_module_open_memory(nullptr, 0, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(vmpack_status_name(VMPACK_ERROR_CHECKSUM),
               "VMPACK_ERROR_CHECKSUM");
}

TEST(RuntimeOpen, VerifyReportsDamagedData) {
  ScratchDir dir;
  ASSERT_TRUE(
      writeModule(dir.path("m"), "m", sampleSegments(), "p", 1, 1).isOk());
  std::vector<uint8_t> bytes = readFile(dir.path("m"));
  bytes[70] ^= 4; // inside layer0.weight's data
  AlignedBytes buf(bytes);
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_memory(buf.data(), buf.size, &m), VMPACK_OK);
  EXPECT_EQ(vmpack_module_verify(m, 2), VMPACK_ERROR_CHECKSUM);
  EXPECT_NE(std::string(vmpack_last_error()).find("layer0.weight"),
            std::string::npos);
  vmpack_module_close(m);
}

TEST(RuntimeAliases, FindAndUnpackEveryAliasWithItsOwnType) {
  // One 4 x i8 segment read as si8 (the segment), ui8 and 2x2 i8 aliases.
  ScratchDir dir;
  std::vector<SampleSegment> segments = {
      makeSegment("s", "si8", {4}, Encoding::Packed, 64, 7)};
  ASSERT_TRUE(writeModule(dir.path("m.vmpk"), "tied", segments, "", 1, 1,
                          {makeAlias("u", "ui8", {4}, 0),
                           makeAlias("square", "i8", {2, 2}, 0)})
                  .isOk());
  vmpack_module_t *module = nullptr;
  ASSERT_EQ(vmpack_module_open_file(dir.path("m.vmpk").c_str(), &module),
            VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_format_version(module), 2u);
  ASSERT_EQ(vmpack_module_segment_count(module), 3u);
  EXPECT_EQ(vmpack_module_verify(module, 1), VMPACK_OK);

  vmpack_segment_info_t s, a;
  ASSERT_EQ(vmpack_module_segment_info(module, 0, &s), VMPACK_OK);
  EXPECT_EQ(s.is_alias, 0);
  size_t index = 0;
  ASSERT_EQ(vmpack_module_find_segment(module, "u", 1, &index), VMPACK_OK);
  EXPECT_EQ(index, 1u);
  ASSERT_EQ(vmpack_module_segment_info(module, index, &a), VMPACK_OK);
  EXPECT_EQ(a.is_alias, 1);
  EXPECT_EQ(a.alias_of, 0u);
  EXPECT_STREQ(a.mlir_type, "tensor<4xui8>");
  EXPECT_STREQ(a.element_type, "ui8");
  EXPECT_EQ(a.data, s.data);
  EXPECT_EQ(a.length, s.length);

  // The same bytes, widened by each constant's own signedness.
  int16_t signedValues[4], unsignedValues[4];
  ASSERT_EQ(vmpack_segment_unpack(module, 0, 0, 4, VMPACK_DTYPE_INT16,
                                  signedValues, sizeof(signedValues)),
            VMPACK_OK);
  ASSERT_EQ(vmpack_segment_unpack(module, 1, 0, 4, VMPACK_DTYPE_INT16,
                                  unsignedValues, sizeof(unsignedValues)),
            VMPACK_OK);
  for (int i = 0; i < 4; ++i) {
    uint8_t byte = segments[0].bytes[size_t(i)];
    EXPECT_EQ(signedValues[i], int16_t(int8_t(byte)));
    EXPECT_EQ(unsignedValues[i], int16_t(byte));
  }
  ASSERT_EQ(vmpack_module_find_segment(module, "square", 6, &index), VMPACK_OK);
  ASSERT_EQ(vmpack_module_segment_info(module, index, &a), VMPACK_OK);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.element_count, 4u);
  vmpack_module_close(module);
}

} // namespace
