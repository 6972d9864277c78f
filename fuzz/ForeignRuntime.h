//===- ForeignRuntime.h - Foreign files through the C API, for fuzzers ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The safetensors and GGUF fuzzers hand every input to the C runtime too
// (vmpack_module_open_memory), which must agree with the formats layer's
// reader (docs/interop.md, "Opening safetensors and GGUF with the
// runtime"): what the reader refuses, the runtime refuses with the same
// status (vmpack.h's codes are the formats layer's StatusCode values:
// VMPACK_ERROR_UNSUPPORTED for a GGUF version other than 2 and 3,
// VMPACK_ERROR_FORMAT for damage) and the same message; a file that says it
// is one of a set of several (a GGUF split.count above 1) is refused with
// VMPACK_ERROR_UNSUPPORTED, saying so; anything else opens, with as many
// segments and metadata entries as the reader found, and everything the
// runtime then hands out (segment bytes, foreign types, metadata, unpacked
// elements into exactly sized buffers) stays inside the input, so ASan
// sees any stray read or write.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FUZZ_FOREIGNRUNTIME_H
#define VMPACK_FUZZ_FOREIGNRUNTIME_H

#include "FuzzCheck.h"
#include "vmpack/Archive/Status.h"
#include "vmpack/vmpack.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace vmpack::fuzz {

/// What the reader made of [data, data + size).
struct ReaderOutcome {
  /// The reader's refusal, or null when it accepted the input.
  const vmpack::archive::Status *refusal = nullptr;
  /// Accepted, but the file says it is one of a set of several files.
  bool setMember = false;
  /// What an accepted input holds.
  size_t tensors = 0, metadata = 0;
};

inline bool contains(const char *text, const char *part) {
  return std::strstr(text, part) != nullptr;
}

inline void checkForeignRuntime(const uint8_t *data, size_t size,
                                vmpack_container_t container,
                                const ReaderOutcome &reader) {
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_memory(data, size, &m);
  if (reader.refusal) {
    check(st == vmpack_status_t(int(reader.refusal->code())) && m == nullptr &&
          reader.refusal->message() == vmpack_last_error());
    return;
  }
  if (reader.setMember) {
    check(st == VMPACK_ERROR_UNSUPPORTED && m == nullptr &&
          contains(vmpack_last_error(), "not a whole module"));
    return;
  }
  size_t tensors = reader.tensors, metadata = reader.metadata;
  check(st == VMPACK_OK && m != nullptr);
  check(vmpack_module_container(m) == container);
  check(vmpack_module_segment_count(m) == tensors);
  check(vmpack_module_metadata_count(m) == metadata);
  for (size_t i = 0; i < tensors; ++i) {
    vmpack_segment_info_t info;
    check(vmpack_module_segment_info(m, i, &info) == VMPACK_OK);
    check(info.offset <= size && info.length <= size - info.offset);
    const auto *p = static_cast<const uint8_t *>(info.data);
    check(p == data + info.offset);
    if (info.length)
      sink = p[0] ^ p[info.length - 1];
    size_t found;
    check(vmpack_module_find_segment(m, info.name, info.name_length, &found) ==
              VMPACK_OK &&
          found == i);
    vmpack_foreign_info_t foreign;
    check(vmpack_segment_foreign_info(m, i, &foreign) == VMPACK_OK);
    if (foreign.type[0])
      check(info.scalar_bits == 8 && info.length == info.element_count);
    // The last few elements, into exactly sized buffers.
    uint64_t count = std::min<uint64_t>(info.element_count, 64);
    uint64_t first = info.element_count - count;
    size_t values = size_t(count) * (info.is_complex ? 2 : 1);
    for (vmpack_dtype_t dtype :
         {VMPACK_DTYPE_INT8, VMPACK_DTYPE_INT32, VMPACK_DTYPE_FLOAT32}) {
      size_t bytes = values * (dtype == VMPACK_DTYPE_INT8 ? 1 : 4);
      std::unique_ptr<uint8_t[]> out(new uint8_t[bytes + !bytes]);
      vmpack_status_t u =
          vmpack_segment_unpack(m, i, first, count, dtype, out.get(), bytes);
      check(u == VMPACK_OK || u == VMPACK_ERROR_UNSUPPORTED);
    }
  }
  for (size_t i = 0; i < metadata; ++i) {
    vmpack_metadata_entry_t e;
    check(vmpack_module_metadata_entry(m, i, &e) == VMPACK_OK);
    if (e.value_length)
      sink = uint8_t(e.value[e.value_length - 1]);
    check(e.value[e.value_length] == '\0');
  }
  check(vmpack_module_verify(m, 1) == VMPACK_OK);
  vmpack_module_close(m);
}

} // namespace vmpack::fuzz

#endif // VMPACK_FUZZ_FOREIGNRUNTIME_H
