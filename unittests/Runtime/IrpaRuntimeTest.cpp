//===- IrpaRuntimeTest.cpp - IREE parameter archives through the C API ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack_module_open_* takes .irpa too: entries appear as untyped segments
// (data or splat), unpacking them is VMPACK_ERROR_UNSUPPORTED, and damaged
// archives never crash the API (this test also runs under ASan/UBSan).
//
//===----------------------------------------------------------------------===//

#include "IrpaSample.h"
#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmpack::archive::testing;
using namespace vmpack::formats::testing;

namespace {

std::vector<uint8_t> archiveBytes(const std::vector<SampleParam> &params) {
  ScratchDir dir;
  EXPECT_TRUE(writeSampleIrpa(dir.path("a.irpa"), params, 2, 1000));
  return readFile(dir.path("a.irpa"));
}

TEST(IrpaRuntime, ListsEntriesAsUntypedSegments) {
  ScratchDir dir;
  std::vector<SampleParam> params = sampleParams();
  ASSERT_TRUE(writeSampleIrpa(dir.path("a.irpa"), params));
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_file(dir.path("a.irpa").c_str(), &m), VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_container(m), VMPACK_CONTAINER_IRPA);
  EXPECT_STREQ(vmpack_module_name(m), "");
  EXPECT_EQ(vmpack_module_format_version(m), 0u);
  EXPECT_EQ(vmpack_module_verify(m, 1), VMPACK_OK) << vmpack_last_error();
  const void *program = nullptr;
  uint64_t programLength = 0;
  EXPECT_EQ(vmpack_module_program(m, &program, &programLength),
            VMPACK_ERROR_UNSUPPORTED);
  ASSERT_EQ(vmpack_module_segment_count(m), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &d = params[i].desc;
    vmpack_segment_info_t info;
    ASSERT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
    EXPECT_EQ(std::string(info.name, info.name_length), d.key);
    EXPECT_STREQ(info.mlir_type, "");
    EXPECT_STREQ(info.element_type, "");
    EXPECT_EQ(info.scalar_bits, 0u);
    EXPECT_EQ(info.rank, 0u);
    EXPECT_EQ(info.shape, nullptr);
    EXPECT_EQ(info.element_count, 0u);
    EXPECT_EQ(info.encoding, VMPACK_ENCODING_NONE);
    EXPECT_EQ(info.checksum, 0u);
    EXPECT_EQ(info.length, d.length);
    EXPECT_EQ(std::string(static_cast<const char *>(info.metadata),
                          info.metadata_length),
              d.metadata);
    if (d.isSplat) {
      EXPECT_EQ(info.kind, VMPACK_SEGMENT_UNTYPED_SPLAT);
      EXPECT_EQ(info.data, nullptr);
      EXPECT_EQ(info.offset, 0u);
      EXPECT_EQ(info.alignment, 0u);
      ASSERT_EQ(info.splat_pattern_length, d.patternLength);
      EXPECT_EQ(
          std::memcmp(info.splat_pattern, d.pattern.data(), d.patternLength),
          0);
    } else {
      EXPECT_EQ(info.kind, VMPACK_SEGMENT_UNTYPED_DATA);
      EXPECT_EQ(info.alignment, 64u);
      EXPECT_EQ(info.offset % 64, 0u);
      EXPECT_EQ(info.splat_pattern, nullptr);
      EXPECT_EQ(info.splat_pattern_length, 0u);
      const auto *p = static_cast<const uint8_t *>(info.data);
      for (uint64_t j = 0; j < info.length; ++j)
        ASSERT_EQ(p[j], sampleByte(params[i].seed, j));
    }
    size_t found = 99;
    ASSERT_EQ(vmpack_module_find_segment(m, d.key.data(), d.key.size(), &found),
              VMPACK_OK);
    EXPECT_EQ(found, i);
    int8_t out[4];
    EXPECT_EQ(vmpack_segment_unpack(m, i, 0, 1, VMPACK_DTYPE_INT8, out, 4),
              VMPACK_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(vmpack_last_error()).find("no element type"),
              std::string::npos);
  }
  size_t found;
  EXPECT_EQ(vmpack_module_find_segment(m, "nope", 4, &found),
            VMPACK_ERROR_NOT_FOUND);
  vmpack_segment_info_t info;
  EXPECT_EQ(vmpack_module_segment_info(m, params.size(), &info),
            VMPACK_ERROR_OUT_OF_RANGE);
  vmpack_module_close(m);
}

TEST(IrpaRuntime, VmpkSegmentsAreTyped) {
  ScratchDir dir;
  ASSERT_TRUE(writeModule(dir.path("m.vmpk"), "small", smallSampleSegments(),
                          "program", 1, 1));
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_file(dir.path("m.vmpk").c_str(), &m), VMPACK_OK);
  EXPECT_EQ(vmpack_module_container(m), VMPACK_CONTAINER_VMPK);
  vmpack_segment_info_t info;
  ASSERT_EQ(vmpack_module_segment_info(m, 0, &info), VMPACK_OK);
  EXPECT_EQ(info.kind, VMPACK_SEGMENT_TYPED);
  EXPECT_EQ(info.splat_pattern, nullptr);
  EXPECT_EQ(info.metadata, nullptr);
  vmpack_module_close(m);
}

TEST(IrpaRuntime, OpensFromUnalignedMemory) {
  std::vector<uint8_t> bytes = archiveBytes(smallParams());
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_memory(shifted.data() + 1, bytes.size(), &m),
            VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_segment_count(m), 3u);
  vmpack_module_close(m);
}

TEST(IrpaRuntime, DamagedArchivesNeverCrash) {
  std::vector<uint8_t> good = archiveBytes(smallParams());
  size_t opened = 0, rejected = 0;
  auto attempt = [&](const std::vector<uint8_t> &bytes) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() + 1]);
    std::copy(bytes.begin(), bytes.end(), copy.get());
    vmpack_module_t *m = nullptr;
    vmpack_status_t st =
        vmpack_module_open_memory(copy.get(), bytes.size(), &m);
    if (st != VMPACK_OK) {
      EXPECT_EQ(st, VMPACK_ERROR_FORMAT);
      EXPECT_EQ(m, nullptr);
      EXPECT_STRNE(vmpack_last_error(), "");
      ++rejected;
      return;
    }
    ++opened;
    unsigned sum = 0;
    for (size_t i = 0; i < vmpack_module_segment_count(m); ++i) {
      vmpack_segment_info_t info;
      ASSERT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
      const auto *p = static_cast<const uint8_t *>(info.data);
      for (uint64_t j = 0; p && j < info.length; ++j)
        sum += p[j];
      for (uint32_t j = 0; j < info.splat_pattern_length; ++j)
        sum += info.splat_pattern[j];
    }
    vmpack_status_t verified = vmpack_module_verify(m, 1);
    EXPECT_TRUE(verified == VMPACK_OK || verified == VMPACK_ERROR_FORMAT);
    (void)sum;
    vmpack_module_close(m);
  };
  for (size_t i = 0; i < 512; ++i)
    for (uint8_t delta : {uint8_t(1), uint8_t(0x80), uint8_t(0xFF)}) {
      std::vector<uint8_t> bad = good;
      bad[i] = uint8_t(bad[i] + delta);
      attempt(bad);
    }
  for (size_t n = 0; n < good.size(); n += 1)
    attempt(std::vector<uint8_t>(good.begin(), good.begin() + long(n)));
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(opened, 0u);
}

} // namespace

namespace {

TEST(IrpaRuntime, OpensByReadingAndVerifiesInEveryMode) {
  ScratchDir dir;
  std::vector<SampleParam> params = sampleParams();
  ASSERT_TRUE(writeSampleIrpa(dir.path("a.irpa"), params));
  for (vmpack_load_mode_t mode : {VMPACK_LOAD_MMAP, VMPACK_LOAD_READ})
    for (vmpack_verify_mode_t verify :
         {VMPACK_VERIFY_STRUCTURE, VMPACK_VERIFY_FULL, VMPACK_VERIFY_LAZY}) {
      vmpack_open_options_t o;
      vmpack_open_options_init(&o);
      o.load_mode = mode;
      o.verify = verify;
      vmpack_module_t *m = nullptr;
      ASSERT_EQ(vmpack_module_open_file_with_options(dir.path("a.irpa").c_str(),
                                                     &o, &m),
                VMPACK_OK)
          << vmpack_last_error();
      EXPECT_EQ(vmpack_module_load_mode(m), mode);
      EXPECT_EQ(vmpack_module_container(m), VMPACK_CONTAINER_IRPA);
      ASSERT_EQ(vmpack_module_segment_count(m), params.size());
      for (size_t i = 0; i < params.size(); ++i) {
        vmpack_segment_info_t info;
        ASSERT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
        EXPECT_EQ(info.length, params[i].desc.length);
        // No checksums in an .irpa: nothing to find.
        EXPECT_EQ(vmpack_segment_verify(m, i), VMPACK_OK);
      }
      EXPECT_EQ(vmpack_segment_verify(m, params.size()),
                VMPACK_ERROR_OUT_OF_RANGE);
      vmpack_module_close(m);
    }
}

} // namespace
