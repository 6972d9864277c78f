//===- ReaderFuzzer.cpp - Fuzz target: open, enumerate, verify ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to ArchiveReader::open (the structural verification
// every open does). What it accepts is enumerated field by field, looked up
// by name, and fully verified. Nothing may read outside the input, and an
// accepted module must be self-consistent. Inputs whose only fault is the
// index CRC run again with it repaired (IndexChecksum.h).
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "FuzzCheck.h"
#include "IndexChecksum.h"

#include "vmpack/Archive/ArchiveReader.h"

#include <cstdlib>

using vmpack::fuzz::check;
using vmpack::fuzz::sink;
using namespace vmpack::archive;

/// A failed invariant on an accepted module is a bug: crash so that the
/// fuzzer (or the corpus replay) reports it.
/// Reads land here so the compiler cannot drop them.

static void checkReader(const vmpack::fuzz::AlignedInput &input) {
  size_t size = input.size();
  StatusOr<std::unique_ptr<ArchiveReader>> opened =
      ArchiveReader::open(input.data(), input.size());
  if (!opened) {
    check(!opened.status().message().empty());
    return;
  }
  const ArchiveReader &reader = **opened;
  for (size_t i = 0; i < reader.numSegments(); ++i) {
    const SegmentInfo &s = reader.segment(i);
    check(s.offset <= size && s.length <= size - s.offset);
    check(s.offset % s.alignment == 0);
    check(reader.findSegment(s.name) == i);
    // Touch the first and last stored byte: ASan checks they are inside.
    if (s.length)
      sink = reader.segmentData(i)[0] ^ reader.segmentData(i)[s.length - 1];
  }
  for (size_t i = reader.numSegments(); i < reader.numConstants(); ++i) {
    const SegmentInfo &a = reader.constant(i);
    check(a.isAlias && a.aliasOf < reader.numSegments());
    check(a.offset == reader.segment(a.aliasOf).offset);
    check(a.length == reader.segment(a.aliasOf).length);
    check(reader.findConstant(a.name) == i);
    check(!reader.findSegment(a.name));
  }
  const EntryInfo &program = reader.program();
  check(program.offset <= size && program.length <= size - program.offset);
  if (program.length)
    sink = reader.programData()[program.length - 1];
  check(reader.fileSize() == size);
  Status verified = reader.verifyContents(1);
  check(verified.isOk() || !verified.message().empty());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  checkReader(input);
  if (vmpack::fuzz::repairIndexChecksum(input.data(), input.size()))
    checkReader(input);
  return 0;
}
