//===- OutOfMemoryTest.cpp - Allocation failures through the C API
//---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Nothing throws across the C API, std::bad_alloc included. This program
// replaces the global operator new with one that fails after a chosen
// number of allocations, and runs the C API's calls on a module with the
// failure injected at every allocation in turn: each call must return
// VMPACK_ERROR_OUT_OF_MEMORY or succeed, never crash or let the exception
// out (which would terminate this program).
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

namespace {
/// Allocations this thread may still make before operator new throws;
/// negative: no limit.
thread_local long allocationsLeft = -1;
thread_local bool failureInjected = false;

void *allocate(std::size_t size) {
  if (allocationsLeft == 0) {
    failureInjected = true;
    throw std::bad_alloc();
  }
  if (allocationsLeft > 0)
    --allocationsLeft;
  if (void *p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
} // namespace

void *operator new(std::size_t size) { return allocate(size); }
void *operator new[](std::size_t size) { return allocate(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

using namespace vmpack::archive::testing;

namespace {

std::vector<uint8_t> smallModuleBytes() {
  ScratchDir dir;
  EXPECT_TRUE(writeModule(dir.path("m"), "small", smallSampleSegments(),
                          "program bytes", 1, 1, smallSampleAliases())
                  .isOk());
  return readFile(dir.path("m"));
}

bool okOrOutOfMemory(vmpack_status_t st) {
  return st == VMPACK_OK || st == VMPACK_ERROR_OUT_OF_MEMORY;
}

/// Statuses of one run of the calls, with allocation number `limit` failing.
struct Outcome {
  // The calls on the opened module are not made when opening fails.
  vmpack_status_t open = VMPACK_OK, openFile = VMPACK_OK, verify = VMPACK_OK,
                  find = VMPACK_ERROR_NOT_FOUND, unpack = VMPACK_OK;
  bool injected = false;
};

Outcome runCalls(const AlignedBytes &bytes, const std::string &path,
                 long limit) {
  Outcome r;
  int32_t out[64];
  allocationsLeft = limit;
  failureInjected = false;
  vmpack_module_t *m = nullptr;
  r.open = vmpack_module_open_memory(bytes.data(), bytes.size, &m);
  if (r.open == VMPACK_OK) {
    r.verify = vmpack_module_verify(m, 1);
    size_t index = 0;
    r.find = vmpack_module_find_segment(m, "no such segment", 15, &index);
    r.unpack =
        vmpack_segment_unpack(m, 0, 0, 1, VMPACK_DTYPE_INT32, out, sizeof(out));
    vmpack_module_close(m);
  }
  vmpack_module_t *f = nullptr;
  vmpack_open_options_t options;
  vmpack_open_options_init(&options);
  options.load_mode = VMPACK_LOAD_READ;
  options.verify = VMPACK_VERIFY_FULL;
  r.openFile = vmpack_module_open_file_with_options(path.c_str(), &options, &f);
  vmpack_module_close(f);
  r.injected = failureInjected;
  allocationsLeft = -1;
  return r;
}

TEST(OutOfMemory, EveryAllocationFailureIsAStatus) {
  std::vector<uint8_t> good = smallModuleBytes();
  ASSERT_FALSE(good.empty());
  AlignedBytes bytes(good);
  ScratchDir dir;
  std::string path = dir.path("m.vmpk");
  writeFile(path, good);

  size_t outOfMemory = 0;
  long limit = 0;
  for (; limit < 100000; ++limit) {
    Outcome r = runCalls(bytes, path, limit);
    ASSERT_TRUE(okOrOutOfMemory(r.open))
        << limit << ": " << vmpack_status_name(r.open);
    ASSERT_TRUE(okOrOutOfMemory(r.openFile))
        << limit << ": " << vmpack_status_name(r.openFile);
    ASSERT_TRUE(okOrOutOfMemory(r.verify)) << limit;
    ASSERT_TRUE(r.find == VMPACK_ERROR_NOT_FOUND ||
                r.find == VMPACK_ERROR_OUT_OF_MEMORY)
        << limit << ": " << vmpack_status_name(r.find);
    ASSERT_TRUE(okOrOutOfMemory(r.unpack)) << limit;
    for (vmpack_status_t st : {r.open, r.openFile, r.verify, r.find, r.unpack})
      outOfMemory += st == VMPACK_ERROR_OUT_OF_MEMORY;
    if (!r.injected) {
      // Every call ran to the end without meeting the failure: all of them
      // succeeded, and every earlier limit failed somewhere.
      EXPECT_EQ(r.open, VMPACK_OK);
      EXPECT_EQ(r.openFile, VMPACK_OK);
      EXPECT_EQ(r.find, VMPACK_ERROR_NOT_FOUND);
      break;
    }
  }
  EXPECT_LT(limit, 100000) << "the calls never ran without a failure";
  // Opening a module allocates (the reader, its names): the first limits
  // must have reported out of memory.
  EXPECT_GT(limit, 10);
  EXPECT_GE(outOfMemory, size_t(limit));
}

} // namespace
