//===- ModuleIndex.h - The FlatBuffer index and the entry list -----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Private to lib/Archive: the writer and the reader share how the index is
// built and decoded and how a module's ZIP entries are listed, so that the
// layout the reader recomputes is by construction the one the writer used.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_ARCHIVE_MODULEINDEX_H
#define VMPACK_LIB_ARCHIVE_MODULEINDEX_H

#include "ZipLayout.h"
#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/SegmentInfo.h"

#include <string>
#include <vector>

namespace vmpack::archive::detail {

struct ModuleContents {
  uint32_t formatVersion = kMinFormatVersion;
  std::string moduleName;
  std::string producer;
  std::vector<SegmentInfo> segments;
  EntryInfo program;
  /// Alias records (SegmentInfo::isAlias); their shared fields are filled
  /// in from their segment when decoded.
  std::vector<SegmentInfo> aliases;
  /// String metadata (version 2).
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// The lowest format version that holds `contents`.
uint32_t requiredFormatVersion(const ModuleContents &contents);

/// Serializes the index. All scalars are stored even when they equal their
/// defaults, so the size depends only on the strings and shapes: the writer
/// sizes the index before the checksums exist.
std::string buildIndex(const ModuleContents &contents);

/// Runs the FlatBuffers verifier and decodes the index; validates every
/// segment record. Offsets are not checked here (see the layout check).
StatusOr<ModuleContents> decodeIndex(const uint8_t *data, size_t size);

/// The module's ZIP entries in file order: segments, program, index.
std::vector<ZipEntry> moduleEntries(const std::vector<SegmentInfo> &segments,
                                    const EntryInfo &program,
                                    uint64_t indexLength, uint32_t indexCrc);

} // namespace vmpack::archive::detail

#endif // VMPACK_LIB_ARCHIVE_MODULEINDEX_H
