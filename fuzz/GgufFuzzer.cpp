//===- GgufFuzzer.cpp - Fuzz target: the gguf reader --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to readGguf. What it accepts must describe tensors
// that lie inside the input, aligned, without overlaps, each exactly the
// size its ggml type and shape give; the first and last stored byte of each
// is read so that ASan checks the range. The C runtime must agree
// (ForeignRuntime.h) on every input it recognises as this format: the
// reader's refusals with the same status (an unsupported version is
// VMPACK_ERROR_UNSUPPORTED), a file with split.count above 1 refused as
// one file of a split set (vmpack.h, vmpack_module_open_memory), every
// other file opened.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "ForeignRuntime.h"
#include "FuzzCheck.h"

#include "vmpack/Formats/Gguf.h"

#include <cstdlib>
#include <cstring>

using vmpack::fuzz::check;
using vmpack::fuzz::sink;
using namespace vmpack::formats;
using vmpack::archive::StatusCode;

/// Whether the file says it is one of a gguf-split set of several files:
/// split.count is an integer above 1 (docs/interop.md, "Opening safetensors
/// and GGUF with the runtime"), of whichever GGUF integer type.
static bool isSplitMember(const GgufMetadata &metadata) {
  for (const GgufKeyValue &kv : metadata) {
    if (kv.key != "split.count")
      continue;
    GgufType t = kv.value.type;
    unsigned bytes = ggufScalarBytes(t);
    if (bytes == 0 || t == GgufType::Bool || t == GgufType::Float32 ||
        t == GgufType::Float64)
      return false;
    uint64_t v = kv.value.scalars.at(0);
    bool negative = ggufIsSigned(t) && (v >> (8 * bytes - 1)) & 1;
    return !negative && v > 1;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  StatusOr<GgufFile> file = readGguf(input.data(), input.size());
  // The runtime recognises the format by its first bytes.
  bool recognised =
      input.size() >= 4 && std::memcmp(input.data(), "GGUF", 4) == 0;
  if (!file) {
    check(!file.status().message().empty());
    // Only a version word the reader cannot take is "unsupported"; any
    // other refusal is a damaged file.
    bool versionRefused = input.size() >= 8 && recognised &&
                          std::memcmp(input.data() + 4, "\2\0\0\0", 4) != 0 &&
                          std::memcmp(input.data() + 4, "\3\0\0\0", 4) != 0;
    check(file.status().code() ==
          (versionRefused ? StatusCode::Unsupported : StatusCode::Format));
    if (recognised) {
      vmpack::fuzz::ReaderOutcome outcome;
      outcome.refusal = &file.status();
      vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                        VMPACK_CONTAINER_GGUF, outcome);
    }
    return 0;
  }
  check(file->version == 2 || file->version == 3);
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
  if (recognised) {
    vmpack::fuzz::ReaderOutcome outcome;
    outcome.setMember = isSplitMember(file->metadata);
    outcome.tensors = file->tensors.size();
    outcome.metadata = file->metadata.size();
    vmpack::fuzz::checkForeignRuntime(input.data(), input.size(),
                                      VMPACK_CONTAINER_GGUF, outcome);
  }
  return 0;
}
