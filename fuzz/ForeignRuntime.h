//===- ForeignRuntime.h - Foreign files through the C API, for fuzzers ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The safetensors and GGUF fuzzers hand every input to the C runtime too
// (vmpack_module_open_memory), which must agree with the formats layer's
// reader: it opens exactly what the reader accepts, with as many segments
// and metadata entries, and everything it then hands out (segment bytes,
// foreign types, metadata, unpacked elements into exactly sized buffers)
// stays inside the input, so ASan sees any stray read or write.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FUZZ_FOREIGNRUNTIME_H
#define VMPACK_FUZZ_FOREIGNRUNTIME_H

#include "vmpack/vmpack.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace vmpack::fuzz {

inline void checkRuntime(bool condition) {
  if (!condition)
    std::abort();
}

/// `accepted`: whether the reader accepted [data, data + size);
/// `tensors` and `metadata`: what it found then.
inline void checkForeignRuntime(const uint8_t *data, size_t size,
                                vmpack_container_t container, bool accepted,
                                size_t tensors, size_t metadata) {
  static volatile uint8_t sink;
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_memory(data, size, &m);
  if (!accepted) {
    checkRuntime(st == VMPACK_ERROR_FORMAT && m == nullptr &&
                 vmpack_last_error()[0] != '\0');
    return;
  }
  checkRuntime(st == VMPACK_OK && m != nullptr);
  checkRuntime(vmpack_module_container(m) == container);
  checkRuntime(vmpack_module_segment_count(m) == tensors);
  checkRuntime(vmpack_module_metadata_count(m) == metadata);
  for (size_t i = 0; i < tensors; ++i) {
    vmpack_segment_info_t info;
    checkRuntime(vmpack_module_segment_info(m, i, &info) == VMPACK_OK);
    checkRuntime(info.offset <= size && info.length <= size - info.offset);
    const auto *p = static_cast<const uint8_t *>(info.data);
    checkRuntime(p == data + info.offset);
    if (info.length)
      sink = p[0] ^ p[info.length - 1];
    size_t found;
    checkRuntime(vmpack_module_find_segment(m, info.name, info.name_length,
                                            &found) == VMPACK_OK &&
                 found == i);
    vmpack_foreign_info_t foreign;
    checkRuntime(vmpack_segment_foreign_info(m, i, &foreign) == VMPACK_OK);
    if (foreign.type[0])
      checkRuntime(info.scalar_bits == 8 && info.length == info.element_count);
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
      checkRuntime(u == VMPACK_OK || u == VMPACK_ERROR_UNSUPPORTED);
    }
  }
  for (size_t i = 0; i < metadata; ++i) {
    vmpack_metadata_entry_t e;
    checkRuntime(vmpack_module_metadata_entry(m, i, &e) == VMPACK_OK);
    if (e.value_length)
      sink = uint8_t(e.value[e.value_length - 1]);
    checkRuntime(e.value[e.value_length] == '\0');
  }
  checkRuntime(vmpack_module_verify(m, 1) == VMPACK_OK);
  vmpack_module_close(m);
}

} // namespace vmpack::fuzz

#endif // VMPACK_FUZZ_FOREIGNRUNTIME_H
