//===- ArchiveWriter.h - Writing a module archive ------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The writer works in two phases. In the plan phase the caller declares every
// segment (sizes are known up front) and the program; beginData() then fixes
// the whole file layout and reserves the space. In the data phase any number
// of threads write chunks of segments straight to their final offsets with
// pwrite, each chunk checksummed as it goes; finish() combines the chunk
// CRCs, writes the index and the ZIP metadata, and atomically renames the
// temporary file over the destination. Memory does not grow with the data.
//
// Signals: creating a writer sets SIGXFSZ to SIG_IGN for the process, so that
// exceeding a file-size limit is an EFBIG error instead of a kill.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_ARCHIVEWRITER_H
#define VMPACK_ARCHIVE_ARCHIVEWRITER_H

#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/SegmentInfo.h"
#include "vmpack/Archive/Status.h"
#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vmpack::archive {

/// A constant stored in an earlier segment's bytes (format version 2):
/// its own name, type and source; `segment` is the number addSegment
/// returned. The segment's length must be exactly the alias's encoded size
/// in the segment's encoding (checked by addAlias).
struct AliasDesc : ConstantDesc {
  uint32_t segment = 0;
};

struct WriterOptions {
  std::string moduleName;
  std::string producer = "vmpack";
  /// fsync the file and its directory before finish() returns.
  bool fsync = false;
  /// String metadata (format version 2 when not empty); keys unique.
  std::vector<std::pair<std::string, std::string>> metadata;
};

class ArchiveWriterImpl;

class ArchiveWriter {
public:
  /// Creates a temporary file in path's directory; the final path is only
  /// touched by finish().
  static StatusOr<std::unique_ptr<ArchiveWriter>>
  create(const std::string &path, WriterOptions options);
  /// Removes the temporary file unless finish() succeeded.
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter &) = delete;
  ArchiveWriter &operator=(const ArchiveWriter &) = delete;

  /// Plan phase. Returns the segment's number (0, 1, ... in call order, which
  /// is also the file order). Rejects duplicate names, bad alignment, and
  /// lengths that do not match the shape.
  StatusOr<uint32_t> addSegment(SegmentDesc desc);
  /// Plan phase. Names are unique among segments and aliases.
  Status addAlias(AliasDesc desc);
  /// Plan phase. The program's bytes are opaque to the archive layer.
  void setProgram(std::string bytes);
  /// Fixes the layout, reserves the file's space and writes the program.
  /// After this, no addSegment.
  Status beginData();
  /// Thread-safe. Chunks of one segment may arrive in any order from any
  /// thread; together they must cover it exactly once.
  Status writeSegmentData(uint32_t segment, uint64_t offsetInSegment,
                          const void *data, size_t size);
  /// Checks coverage, writes index, program and central directory, optionally
  /// fsyncs, and renames the temporary file to the destination.
  Status finish();
  /// The final file size; valid after beginData().
  uint64_t plannedFileSize() const;
  /// Absolute file offset of a segment's data; valid after beginData().
  uint64_t segmentFileOffset(uint32_t segment) const;

private:
  explicit ArchiveWriter(std::unique_ptr<ArchiveWriterImpl> impl);
  std::unique_ptr<ArchiveWriterImpl> impl;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_ARCHIVEWRITER_H
