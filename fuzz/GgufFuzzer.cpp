//===- GgufFuzzer.cpp - Fuzz target: the gguf reader --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to readGguf. What it accepts must describe tensors
// that lie inside the input, aligned, without overlaps, each exactly the
// size its ggml type and shape give; the first and last stored byte of each
// is read so that ASan checks the range. The C runtime must agree
// (ForeignRuntime.h) on every input it recognises as this format.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "ForeignRuntime.h"

#include "vmpack/Formats/Gguf.h"

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
  StatusOr<GgufFile> file = readGguf(input.data(), input.size());
  // The runtime recognises the format by its first bytes.
  bool recognised =
      input.size() >= 4 && std::memcmp(input.data(), "GGUF", 4) == 0;
  if (!file) {
    check(!file.status().message().empty());
    if (recognised)
      vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                        VMPACK_CONTAINER_GGUF, false, 0, 0);
    return 0;
  }
  for (const TensorInfo &t : file->tensors) {
    check(t.offset <= size && t.length <= size - t.offset);
    check((t.offset - file->dataStart) % file->alignment == 0);
    if (t.isOpaque()) {
      StatusOr<uint64_t> bytes = ggmlTensorBytes(*t.ggmlBlockType, t.shape);
      check(bytes.isOk() && *bytes == t.length);
    } else {
      check(storedSize(t.elementType, t.shape, t.encoding) == t.length);
    }
    if (t.length)
      sink = input.data()[t.offset] ^ input.data()[t.offset + t.length - 1];
  }
  if (recognised)
    vmpack::fuzz::checkForeignRuntime(
        input.data(), input.size(), VMPACK_CONTAINER_GGUF, true,
        file->tensors.size(), file->metadata.size());
  return 0;
}
