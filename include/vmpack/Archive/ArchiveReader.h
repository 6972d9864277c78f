//===- ArchiveReader.h - Reading and verifying a module archive ----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// open() performs the structural verification, in time proportional to the
// index and the number of entries, never to the data: it finds the index via
// the EOCD trailer, checks the index's CRC, runs the FlatBuffers verifier,
// validates every segment record, recomputes the canonical layout from the
// index and compares every byte of ZIP metadata and padding with the file.
// Every offset in the file is treated as hostile and every sum is checked.
// After a successful open, only the entries' data bytes are unchecked;
// verifyContents() checks their CRCs.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_ARCHIVEREADER_H
#define VMPACK_ARCHIVE_ARCHIVEREADER_H

#include "vmpack/Archive/SegmentInfo.h"
#include "vmpack/Archive/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vmpack::archive {

/// A ZIP entry with opaque contents (the program, the index).
struct EntryInfo {
  std::string name;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t checksum = 0;
};

class ArchiveReader {
public:
  /// Reads the archive in [data, data + size), which must outlive the
  /// reader and stay unchanged. Fails with a message naming what is wrong
  /// and at which offset.
  static StatusOr<std::unique_ptr<ArchiveReader>> open(const uint8_t *data,
                                                       size_t size);

  /// Checks the CRC-32 of every segment and of the program with up to
  /// `threads` threads (0: one per hardware thread), and re-checks the
  /// metadata and padding. The first mismatch in file order is reported.
  Status verifyContents(unsigned threads) const;

  /// The CRC-32 of the file's bytes [offset, offset + length).
  using RangeCrc = std::function<uint32_t(uint64_t offset, uint64_t length)>;

  /// verifyContents, with the entries' CRCs taken from `crcOf` (e.g. CRCs
  /// computed while the file was read) instead of recomputed here.
  Status verifyContents(const RangeCrc &crcOf) const;

  /// Checks the CRC-32 of one entry, in one thread: constant `entry`
  /// (segments, then aliases: an alias checks its segment's bytes), or the
  /// program when `entry` == numConstants(). With `crcOf`, the CRC of the
  /// bytes is taken from it instead of computed here.
  Status verifyEntry(size_t entry, const RangeCrc *crcOf = nullptr) const;

  /// Compares `crc` with the index's CRC of entry `entry` (as verifyEntry);
  /// the error names the entry and its byte range.
  Status compareEntryCrc(size_t entry, uint32_t crc) const;

  uint32_t formatVersion() const { return version; }
  const std::string &moduleName() const { return module; }
  const std::string &producer() const { return producedBy; }
  size_t numSegments() const { return segments.size(); }
  const SegmentInfo &segment(size_t index) const { return segments[index]; }
  const std::vector<SegmentInfo> &allSegments() const { return segments; }
  /// A segment (not an alias) by name.
  std::optional<size_t> findSegment(std::string_view name) const;
  const uint8_t *segmentData(size_t index) const {
    return base + segments[index].offset;
  }

  /// Constants: the segments, then the aliases (format version 2), in one
  /// index space. An alias's SegmentInfo has its own name, type and source
  /// and its segment's bytes.
  size_t numAliases() const { return aliases.size(); }
  /// String key/value metadata (format version 2), in stored order.
  const std::vector<std::pair<std::string, std::string>> &metadata() const {
    return meta;
  }
  size_t numConstants() const { return segments.size() + aliases.size(); }
  const SegmentInfo &constant(size_t index) const {
    return index < segments.size() ? segments[index]
                                   : aliases[index - segments.size()];
  }
  std::optional<size_t> findConstant(std::string_view name) const;
  const uint8_t *constantData(size_t index) const {
    return base + constant(index).offset;
  }
  const EntryInfo &program() const { return programEntry; }
  const uint8_t *programData() const { return base + programEntry.offset; }
  const EntryInfo &index() const { return indexEntry; }
  const uint8_t *fileData() const { return base; }
  size_t fileSize() const { return size; }

private:
  ArchiveReader(const uint8_t *base, size_t size) : base(base), size(size) {}
  Status parse();
  Status checkMetadata() const;
  Status checkMetadataAndIndex() const;

  const uint8_t *base;
  size_t size;
  uint32_t version = 0;
  std::string module, producedBy;
  std::vector<SegmentInfo> segments;
  std::vector<SegmentInfo> aliases;
  std::vector<std::pair<std::string, std::string>> meta;
  /// Constant indexes by name (segments and aliases).
  std::unordered_map<std::string_view, size_t> byName;
  EntryInfo programEntry, indexEntry;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_ARCHIVEREADER_H
