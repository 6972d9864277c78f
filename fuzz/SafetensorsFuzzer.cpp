//===- SafetensorsFuzzer.cpp - Fuzz target: the safetensors reader --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to readSafetensors. What it accepts must describe
// tensors that lie inside the input, in data order, each exactly the size
// of its type and shape; the first and last stored byte of each is read so
// that ASan checks the range.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"

#include "vmpack/Formats/Safetensors.h"

#include <cstdlib>

using namespace vmpack::formats;

static void check(bool condition) {
  if (!condition)
    std::abort();
}

static volatile uint8_t sink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  StatusOr<SafetensorsFile> file = readSafetensors(input.data(), input.size());
  if (!file) {
    check(!file.status().message().empty());
    return 0;
  }
  uint64_t previousEnd = 0;
  for (const TensorInfo &t : file->tensors) {
    check(t.offset <= size && t.length <= size - t.offset);
    check(t.offset >= previousEnd);
    previousEnd = t.offset + t.length;
    check(storedSize(t.elementType, t.shape, t.encoding) == t.length);
    if (t.length)
      sink = input.data()[t.offset] ^ input.data()[t.offset + t.length - 1];
  }
  check(previousEnd <= size);
  return 0;
}
