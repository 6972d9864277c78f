//===- HostileModuleTest.cpp - Damaged modules through the C API ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The C API is what an application calls on a file it did not write: every
// single-byte change and every truncation of a small module must come back
// as an error status with a message, from vmpack_module_open_* or at the
// latest from vmpack_module_verify, and never as a crash (this test also
// runs under ASan/UBSan) or a silent pass.
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmpack::archive::testing;

namespace {

std::vector<uint8_t> smallModuleBytes() {
  ScratchDir dir;
  EXPECT_TRUE(writeModule(dir.path("m"), "small", smallSampleSegments(),
                          "program bytes", 1, 1, smallSampleAliases())
                  .isOk());
  return readFile(dir.path("m"));
}

/// Opens from memory, lists and fully verifies: the status of the first
/// failing call, with its message in `message`; `failedAtOpen` says whether
/// that call was the open.
vmpack_status_t openAndVerify(const std::vector<uint8_t> &bytes,
                              std::string &message,
                              bool *failedAtOpen = nullptr) {
  AlignedBytes buf(bytes);
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_memory(buf.data(), buf.size, &m);
  if (failedAtOpen)
    *failedAtOpen = st != VMPACK_OK;
  if (st != VMPACK_OK) {
    EXPECT_EQ(m, nullptr);
    message = vmpack_last_error();
    return st;
  }
  // Opening checked the structure: listing must work on what it accepted.
  for (size_t i = 0; i < vmpack_module_segment_count(m); ++i) {
    vmpack_segment_info_t info;
    EXPECT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
  }
  st = vmpack_module_verify(m, 1);
  message = st == VMPACK_OK ? "" : vmpack_last_error();
  vmpack_module_close(m);
  return st;
}

TEST(HostileModule, TheUndamagedModuleVerifies) {
  std::string message;
  EXPECT_EQ(openAndVerify(smallModuleBytes(), message), VMPACK_OK) << message;
}

TEST(HostileModule, EverySingleByteChangeIsAnError) {
  std::vector<uint8_t> good = smallModuleBytes();
  ASSERT_GT(good.size(), 200u);
  size_t atOpen = 0, atVerify = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t delta : {uint8_t(1), uint8_t(0x80), uint8_t(0xFF)}) {
      std::vector<uint8_t> bad = good;
      bad[i] = uint8_t(bad[i] + delta);
      std::string message;
      bool failedAtOpen = false;
      vmpack_status_t st = openAndVerify(bad, message, &failedAtOpen);
      ASSERT_NE(st, VMPACK_OK) << "change at offset " << i << " undetected";
      // Damaged structure is a format error; bytes that fail their CRC
      // (the index's when opening, a segment's when verifying) a checksum
      // error; a changed format version an unsupported one.
      if (failedAtOpen)
        ASSERT_TRUE(st == VMPACK_ERROR_FORMAT || st == VMPACK_ERROR_CHECKSUM ||
                    st == VMPACK_ERROR_UNSUPPORTED)
            << "offset " << i << ": " << vmpack_status_name(st);
      else
        ASSERT_EQ(st, VMPACK_ERROR_CHECKSUM)
            << "offset " << i << ": " << vmpack_status_name(st);
      ASSERT_FALSE(message.empty()) << "offset " << i;
      ++(failedAtOpen ? atOpen : atVerify);
    }
  }
  // Metadata damage is found by opening, data damage by verification.
  EXPECT_GT(atOpen, 0u);
  EXPECT_GT(atVerify, 0u);
}

TEST(HostileModule, EveryTruncationIsRejectedByOpen) {
  std::vector<uint8_t> good = smallModuleBytes();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    std::string message;
    ASSERT_EQ(openAndVerify(cut, message), VMPACK_ERROR_FORMAT)
        << "truncated to " << n;
    ASSERT_FALSE(message.empty());
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  std::string message;
  EXPECT_EQ(openAndVerify(longer, message), VMPACK_ERROR_FORMAT);
}

/// Empty files included: they are short modules (a format error), not an
/// I/O error, whichever way they are opened.
TEST(HostileModule, TruncatedFilesAreRejectedByOpenFile) {
  std::vector<uint8_t> good = smallModuleBytes();
  ScratchDir dir;
  std::string path = dir.path("cut.vmpk");
  for (size_t n : {size_t(0), size_t(1), size_t(87), size_t(88),
                   good.size() / 2, good.size() - 1}) {
    writeFile(path, std::vector<uint8_t>(good.begin(), good.begin() + long(n)));
    vmpack_module_t *m = nullptr;
    vmpack_status_t st = vmpack_module_open_file(path.c_str(), &m);
    EXPECT_EQ(st, VMPACK_ERROR_FORMAT) << n << ": " << vmpack_last_error();
    EXPECT_EQ(m, nullptr);
    EXPECT_NE(std::string(vmpack_last_error()).find(path), std::string::npos)
        << vmpack_last_error();
  }
}

TEST(HostileModule, UnalignedBuffersAreRefused) {
  std::vector<uint8_t> good = smallModuleBytes();
  std::vector<uint8_t> storage(good.size() + 64);
  auto p = reinterpret_cast<uintptr_t>(storage.data());
  uint8_t *odd = storage.data() + (16 - p % 16) % 16 + 1;
  std::memcpy(odd, good.data(), good.size());
  vmpack_module_t *m = nullptr;
  // The caller's mistake, not a damaged module.
  EXPECT_EQ(vmpack_module_open_memory(odd, good.size(), &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(vmpack_last_error()).find("aligned"),
            std::string::npos);
}

TEST(HostileModule, MessagesNeverCarryRawControlBytes) {
  ScratchDir dir;
  std::vector<SampleSegment> segments;
  segments.push_back(makeSegment(std::string("\x1b]0;owned\x07", 10), "i4", {4},
                                 vmpack::Encoding::Packed, 64, 1));
  ASSERT_TRUE(writeModule(dir.path("m"), "m", segments, "p", 1, 1).isOk());
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_file(dir.path("m").c_str(), &m), VMPACK_OK);
  int8_t out[8];
  EXPECT_EQ(
      vmpack_segment_unpack(m, 0, 3, 2, VMPACK_DTYPE_INT8, out, sizeof(out)),
      VMPACK_ERROR_OUT_OF_RANGE);
  std::string message = vmpack_last_error();
  EXPECT_NE(message.find("segment '\\x1B]0;owned\\x07'"), std::string::npos)
      << message;
  for (char c : message)
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << message;
  vmpack_module_close(m);
}

} // namespace
