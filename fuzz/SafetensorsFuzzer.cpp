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
#include "ForeignRuntime.h"

#include "vmpack/Formats/Safetensors.h"

#include <cstdlib>
#include <cstring>

using namespace vmpack::formats;

static void check(bool condition) {
  if (!condition)
    std::abort();
}

static volatile uint8_t sink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  StatusOr<SafetensorsFile> file = readSafetensors(input.data(), input.size());
  // The runtime recognises the format by its first bytes.
  bool recognised =
      input.size() >= 9 && input.data()[8] == '{' &&
      !(input.size() >= 4 && std::memcmp(input.data(), "GGUF", 4) == 0) &&
      !(input.size() >= 4 && std::memcmp(input.data(), "IRPA", 4) == 0);
  if (!file) {
    check(!file.status().message().empty());
    if (recognised)
      vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                        VMPACK_CONTAINER_SAFETENSORS, false, 0,
                                        0);
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
  if (recognised)
    vmpack::fuzz::checkForeignRuntime(
        input.data(), input.size(), VMPACK_CONTAINER_SAFETENSORS, true,
        file->tensors.size(), file->metadata.size());
  return 0;
}
