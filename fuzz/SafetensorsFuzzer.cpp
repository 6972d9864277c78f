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
#include "FuzzCheck.h"

#include "vmpack/Formats/Safetensors.h"

#include <cstdlib>
#include <cstring>

using vmpack::fuzz::check;
using vmpack::fuzz::sink;
using namespace vmpack::formats;
using vmpack::archive::StatusCode;

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
    // safetensors has no version: every refusal is a damaged file.
    check(file.status().code() == StatusCode::Format);
    if (recognised) {
      vmpack::fuzz::ReaderOutcome outcome;
      outcome.refusal = &file.status();
      vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                        VMPACK_CONTAINER_SAFETENSORS, outcome);
    }
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
  // A safetensors file says nothing about a set it belongs to: from
  // memory it opens as the file it is.
  if (recognised) {
    vmpack::fuzz::ReaderOutcome outcome;
    outcome.tensors = file->tensors.size();
    outcome.metadata = file->metadata.size();
    vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                      VMPACK_CONTAINER_SAFETENSORS, outcome);
  }
  return 0;
}
