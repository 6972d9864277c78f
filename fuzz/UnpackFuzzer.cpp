//===- UnpackFuzzer.cpp - Fuzz target: the C API's unpacking --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Opens any byte string with vmpack_module_open_memory (a .vmpk, .irpa,
// safetensors or GGUF file) and, for every segment it accepts, unpacks ranges
// to every dtype into buffers of exactly the needed size. Segment data is not
// verified first: opening promises that unpacking is memory-safe whatever the
// stored bytes are. Ranges that succeed must agree with each other across
// dtypes and sub-ranges. Inputs whose only fault is the index CRC run again
// with it repaired (IndexChecksum.h), so mutated types and encodings reach the
// kernels.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "FuzzCheck.h"
#include "IndexChecksum.h"

#include "vmpack/vmpack.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using vmpack::fuzz::check;

namespace {

/// Elements unpacked per call, at most: keeps each input fast.
constexpr uint64_t kMaxElements = 4096;

size_t dtypeBytes(vmpack_dtype_t dtype) {
  return dtype == VMPACK_DTYPE_INT8 ? 1 : dtype == VMPACK_DTYPE_INT16 ? 2 : 4;
}

/// Unpacks [first, first + count) into an exactly sized buffer; on success
/// returns the values widened to int64 (floats by their bits).
vmpack_status_t unpack(const vmpack_module_t *m, size_t index, uint64_t first,
                       uint64_t count, unsigned perElement,
                       vmpack_dtype_t dtype, std::vector<int64_t> &values) {
  size_t n = size_t(count * perElement), bytes = n * dtypeBytes(dtype);
  // Exactly `bytes`, so ASan sees any write past the end.
  std::unique_ptr<uint8_t[]> dst(new uint8_t[bytes ? bytes : 1]);
  vmpack_status_t st =
      vmpack_segment_unpack(m, index, first, count, dtype, dst.get(), bytes);
  if (st != VMPACK_OK)
    return st;
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
    case VMPACK_DTYPE_INT8:
      values[i] = int8_t(dst[i]);
      break;
    case VMPACK_DTYPE_INT16: {
      int16_t v;
      std::memcpy(&v, dst.get() + 2 * i, 2);
      values[i] = v;
      break;
    }
    default: {
      int32_t v;
      std::memcpy(&v, dst.get() + 4 * i, 4);
      values[i] = v;
    }
    }
  }
  return st;
}

void fuzzSegment(const vmpack_module_t *m, size_t index) {
  vmpack_segment_info_t info;
  check(vmpack_module_segment_info(m, index, &info) == VMPACK_OK);
  if (info.kind != VMPACK_SEGMENT_TYPED) {
    // .irpa entries have no element type: nothing unpacks, whatever the
    // range or buffer.
    check(info.encoding == VMPACK_ENCODING_NONE && info.element_count == 0);
    int32_t one = 0;
    for (uint64_t first : {uint64_t(0), uint64_t(UINT64_MAX)})
      check(vmpack_segment_unpack(m, index, first, 1, VMPACK_DTYPE_INT32, &one,
                                  sizeof(one)) == VMPACK_ERROR_UNSUPPORTED);
    return;
  }
  unsigned perElement = info.is_complex ? 2 : 1;
  uint64_t n = std::min(info.element_count, kMaxElements);
  const vmpack_dtype_t dtypes[] = {VMPACK_DTYPE_INT8, VMPACK_DTYPE_INT16,
                                   VMPACK_DTYPE_INT32, VMPACK_DTYPE_FLOAT32};
  std::vector<int64_t> narrower;
  size_t narrowerBits = 0;
  for (vmpack_dtype_t dtype : dtypes) {
    std::vector<int64_t> whole, part;
    vmpack_status_t st = unpack(m, index, 0, n, perElement, dtype, whole);
    check(st == VMPACK_OK || st == VMPACK_ERROR_UNSUPPORTED);
    if (st != VMPACK_OK)
      continue;
    // A sub-range starting anywhere gives the same values as the whole.
    if (n > 2) {
      uint64_t first = n / 3 + 1, count = n - first - 1;
      check(unpack(m, index, first, count, perElement, dtype, part) ==
            VMPACK_OK);
      check(std::equal(part.begin(), part.end(),
                       whole.begin() + long(first * perElement)));
    }
    // The last element alone, reached from the end of the segment.
    if (info.element_count) {
      check(unpack(m, index, info.element_count - 1, 1, perElement, dtype,
                   part) == VMPACK_OK);
    }
    // Integers widen to the same values whatever the destination width
    // (a uiN that fills the narrower type reads negative there: compare
    // the wider value truncated to the narrower width).
    if (dtype != VMPACK_DTYPE_FLOAT32) {
      if (!narrower.empty()) {
        for (size_t i = 0; i < whole.size(); ++i) {
          uint64_t bits =
              uint64_t(whole[i]) & ((uint64_t(1) << narrowerBits) - 1);
          int64_t truncated =
              int64_t(bits << (64 - narrowerBits)) >> (64 - narrowerBits);
          check(truncated == narrower[i]);
        }
      }
      narrower = whole;
      narrowerBits = 8 * dtypeBytes(dtype);
    }
  }
  // Out-of-range requests fail cleanly, with or without overflow.
  std::vector<int64_t> none;
  check(unpack(m, index, info.element_count, 1, perElement, VMPACK_DTYPE_INT32,
               none) == VMPACK_ERROR_OUT_OF_RANGE);
  int32_t one = 0;
  check(vmpack_segment_unpack(m, index, UINT64_MAX, 2, VMPACK_DTYPE_INT32, &one,
                              sizeof(one)) == VMPACK_ERROR_OUT_OF_RANGE);
  if (info.element_count >= 2)
    check(vmpack_segment_unpack(m, index, 0, 2, VMPACK_DTYPE_INT32, &one,
                                sizeof(one)) == VMPACK_ERROR_BUFFER_TOO_SMALL);
}

void checkModule(const vmpack::fuzz::AlignedInput &input) {
  size_t size = input.size();
  vmpack_module_t *m = nullptr;
  if (vmpack_module_open_memory(input.data(), size, &m) != VMPACK_OK) {
    check(m == nullptr && vmpack_last_error()[0] != '\0');
    return;
  }
  const void *program;
  uint64_t programLength;
  check(vmpack_module_program(m, &program, &programLength) ==
        (vmpack_module_container(m) == VMPACK_CONTAINER_VMPK
             ? VMPACK_OK
             : VMPACK_ERROR_UNSUPPORTED));
  for (size_t i = 0; i < vmpack_module_segment_count(m); ++i) {
    fuzzSegment(m, i);
    vmpack_foreign_info_t foreign;
    check(vmpack_segment_foreign_info(m, i, &foreign) == VMPACK_OK);
    if (foreign.type[0])
      check(foreign.rank == 0 || foreign.shape[foreign.rank - 1] >= 0);
  }
  for (size_t i = 0; i < vmpack_module_metadata_count(m); ++i) {
    vmpack_metadata_entry_t e;
    check(vmpack_module_metadata_entry(m, i, &e) == VMPACK_OK);
    check(e.key[e.key_length] == '\0' && e.value[e.value_length] == '\0');
  }
  vmpack_module_close(m);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  checkModule(input);
  if (vmpack::fuzz::repairIndexChecksum(input.data(), input.size()))
    checkModule(input);
  return 0;
}
