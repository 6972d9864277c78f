//===- AlignedInput.h - Fuzz input where the reader accepts it --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Modules are opened from 16-byte aligned memory. The fuzzer's buffer has no
// such promise, so each input is copied into an allocation of exactly its
// size: under ASan a read one byte past the end still lands in a redzone.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FUZZ_ALIGNEDINPUT_H
#define VMPACK_FUZZ_ALIGNEDINPUT_H

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace vmpack::fuzz {

class AlignedInput {
public:
  AlignedInput(const uint8_t *data, size_t size) : length(size) {
    void *p = nullptr;
    // posix_memalign, not aligned_alloc: the size need not be a multiple of
    // the alignment, and ASan puts its redzone right after `size` bytes.
    if (::posix_memalign(&p, 64, size ? size : 1) != 0)
      std::abort();
    if (size)
      std::memcpy(p, data, size);
    bytes = static_cast<uint8_t *>(p);
  }
  ~AlignedInput() { std::free(bytes); }
  AlignedInput(const AlignedInput &) = delete;
  AlignedInput &operator=(const AlignedInput &) = delete;

  const uint8_t *data() const { return bytes; }
  uint8_t *data() { return bytes; }
  size_t size() const { return length; }

private:
  uint8_t *bytes;
  size_t length;
};

} // namespace vmpack::fuzz

#endif // VMPACK_FUZZ_ALIGNEDINPUT_H
