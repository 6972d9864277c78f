//===- SampleModule.h - Test modules with known contents ------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by the archive and runtime unit tests and by the lit suite's
// vmpack-archive-testgen: segments whose bytes are a function of a seed, and
// a writer driver that delivers them in shuffled chunks from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_UNITTESTS_ARCHIVE_SAMPLEMODULE_H
#define VMPACK_UNITTESTS_ARCHIVE_SAMPLEMODULE_H

#include "vmpack/Archive/ArchiveWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::archive::testing {

struct SampleSegment {
  SegmentDesc desc;
  /// The stored bytes: `desc.length` of them.
  std::vector<uint8_t> bytes;
  /// The element values as unsigned W-bit patterns (for checking unpacking).
  std::vector<uint64_t> values;
};

/// A segment of `type` (MLIR spelling, e.g. "i4", "complex<f16>") and
/// `shape` in `encoding`, with element bit patterns drawn from `seed`.
SampleSegment makeSegment(const std::string &name, const std::string &type,
                          std::vector<int64_t> shape, Encoding encoding,
                          uint32_t alignment, uint64_t seed);

/// The module the lit tests and the C example use: a handful of segments of
/// different types, encodings and alignments, one with a name that needs
/// escaping.
std::vector<SampleSegment> sampleSegments();

/// A module small enough to damage byte by byte (a few hundred bytes): four
/// segments of different types, encodings and alignments, one of them
/// empty, for the hostile-input tests of the reader, the C API and
/// vmpack-dump.
std::vector<SampleSegment> smallSampleSegments();

/// An alias named `name` of segment number `segment`, of element type
/// `type` (MLIR spelling) and `shape`, read from resource `sourceKey`.
AliasDesc makeAlias(const std::string &name, const std::string &type,
                    std::vector<int64_t> shape, uint32_t segment,
                    const std::string &sourceKey = "blob");

/// Aliases for smallSampleSegments() (format version 2): "w" read as 15 x
/// ui4 and as 3x5 si4, so that damage to alias records is exercised too.
std::vector<AliasDesc> smallSampleAliases();

/// Writes a module with `segments` and `program`. Each segment is cut into
/// chunks of pseudo-random sizes, shuffled with `shuffleSeed`, and handed
/// out round-robin to `threads` threads. `aliases` refer to segments by
/// their position in `segments`.
Status writeModule(const std::string &path, const std::string &moduleName,
                   const std::vector<SampleSegment> &segments,
                   const std::string &program, unsigned threads,
                   uint64_t shuffleSeed,
                   const std::vector<AliasDesc> &aliases = {});

} // namespace vmpack::archive::testing

#endif // VMPACK_UNITTESTS_ARCHIVE_SAMPLEMODULE_H
