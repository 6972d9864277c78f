//===- IrpaFuzzer.cpp - Fuzz target: IREE parameter archives --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to IrpaReader::open. What it accepts is enumerated
// entry by entry (the first and last byte of every data entry and every
// splat pattern touched, so ASan sees any read outside the input), looked
// up by key and checked with verifyLayout; then the same bytes go through
// the C API (vmpack_module_open_memory), which must agree. .irpa has no
// checksums: the promise is no crash and no out-of-range read.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "FuzzCheck.h"

#include "vmpack/Formats/IrpaReader.h"
#include "vmpack/vmpack.h"

#include <cstdlib>

using vmpack::fuzz::check;
using vmpack::fuzz::sink;
using namespace vmpack::formats;

namespace {

/// A failed invariant on an accepted archive is a bug: crash so that the
/// fuzzer (or the corpus replay) reports it.
void checkReader(const uint8_t *data, size_t size) {
  auto opened = IrpaReader::open(data, size);
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_memory(data, size, &m);
  if (!opened) {
    check(!opened.status().message().empty());
    // The C API takes the same reader for anything that starts "IRPA", and
    // reports its refusal as it is: the same status, the same message.
    if (irpa::hasMagic(data, size))
      check(st == vmpack_status_t(int(opened.status().code())) &&
            m == nullptr && opened.status().message() == vmpack_last_error());
    if (m)
      vmpack_module_close(m);
    return;
  }
  const IrpaReader &reader = **opened;
  for (size_t i = 0; i < reader.numEntries(); ++i) {
    const IrpaEntry &e = reader.entry(i);
    check(reader.findEntry(e.key) == i);
    if (e.kind == IrpaEntryKind::Data) {
      check(e.offset <= size && e.length <= size - e.offset);
      if (e.length)
        sink = reader.entryData(i)[0] ^ reader.entryData(i)[e.length - 1];
    } else {
      check(irpa::isValidPatternLength(e.patternLength));
      check(e.length % e.patternLength == 0);
      check(e.recordOffset + irpa::splat::kSize <= size);
      sink = reader.splatPattern(i)[0] ^
             reader.splatPattern(i)[irpa::kMaxPatternLength - 1];
    }
  }
  Status layout = reader.verifyLayout();
  check(layout.isOk() || !layout.message().empty());

  check(st == VMPACK_OK && m != nullptr);
  check(vmpack_module_container(m) == VMPACK_CONTAINER_IRPA);
  check(vmpack_module_segment_count(m) == reader.numEntries());
  for (size_t i = 0; i < reader.numEntries(); ++i) {
    vmpack_segment_info_t info;
    check(vmpack_module_segment_info(m, i, &info) == VMPACK_OK);
    check(info.length == reader.entry(i).length);
    const auto *p = static_cast<const uint8_t *>(info.data);
    if (p && info.length)
      sink = p[info.length - 1];
    if (info.splat_pattern_length)
      sink = info.splat_pattern[info.splat_pattern_length - 1];
    int32_t one;
    check(vmpack_segment_unpack(m, i, 0, 1, VMPACK_DTYPE_INT32, &one,
                                sizeof(one)) == VMPACK_ERROR_UNSUPPORTED);
  }
  vmpack_status_t verified = vmpack_module_verify(m, 1);
  check((verified == VMPACK_OK) == layout.isOk());
  vmpack_module_close(m);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // No alignment is needed: an exact-size copy puts ASan's redzone right
  // after the last byte.
  vmpack::fuzz::AlignedInput input(data, size);
  checkReader(input.data(), input.size());
  return 0;
}
