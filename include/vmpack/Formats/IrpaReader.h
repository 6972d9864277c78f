//===- IrpaReader.h - Reading an IREE parameter archive ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// open() parses an .irpa file (docs/irpa.md) that may come from anywhere:
// every offset and length in it is treated as hostile and every sum is
// checked for overflow. It checks the header (magic, version 0.0, header
// size, no linked archive), that each segment lies inside the file, walks
// the entry table record by record within its segment, and resolves every
// name, metadata and storage range within its segment. Splat patterns must
// be 1, 2, 4, 8 or 16 bytes and divide the length. Keys must be unique.
// Skip entries are validated and left out; external entries (data in
// another file) are rejected. After a successful open, every entry's bytes
// lie inside the file.
//
// .irpa carries no checksums and no element types: an entry is a key and
// bytes (or a repeated pattern). verifyLayout() adds what IREE's builder
// guarantees but the format allows otherwise: no two of header, entry table,
// metadata and storage overlap; no two data entries share bytes; each data
// entry's file offset honours its minimum alignment.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_IRPAREADER_H
#define VMPACK_FORMATS_IRPAREADER_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Formats/IrpaFormat.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vmpack::formats {

using archive::Status;
using archive::StatusOr;

enum class IrpaEntryKind { Data, Splat };

struct IrpaEntry {
  std::string key;
  IrpaEntryKind kind = IrpaEntryKind::Data;
  /// Data: absolute file offset of the bytes. Splat: 0.
  uint64_t offset = 0;
  /// Bytes of the parameter (a splat's expanded length).
  uint64_t length = 0;
  /// The entry's minimum_alignment field (0: unspecified).
  uint64_t minimumAlignment = 0;
  /// Splat: the pattern, zero past patternLength.
  std::array<uint8_t, irpa::kMaxPatternLength> pattern{};
  uint8_t patternLength = 0;
  /// Opaque metadata bytes (empty when none).
  std::string metadata;
  /// File offset of the entry's table record.
  uint64_t recordOffset = 0;
};

/// A segment of the header, made absolute (the archive starts at 0).
struct IrpaSegment {
  uint64_t offset = 0;
  uint64_t length = 0;
};

class IrpaReader {
public:
  /// Reads the archive in [data, data + size), which must outlive the
  /// reader and stay unchanged. No alignment is required. Fails with a
  /// message naming what is wrong and where.
  static StatusOr<std::unique_ptr<IrpaReader>> open(const uint8_t *data,
                                                    size_t size);

  /// The checks IREE's builder guarantees beyond the format (see above).
  Status verifyLayout() const;

  uint16_t versionMajor() const { return major; }
  uint16_t versionMinor() const { return minor; }
  /// Entries of the table that are not skip entries, in table order.
  size_t numEntries() const { return entryList.size(); }
  const IrpaEntry &entry(size_t index) const { return entryList[index]; }
  const std::vector<IrpaEntry> &entries() const { return entryList; }
  /// Skip entries found (validated, not listed).
  uint64_t numSkipped() const { return skipped; }
  std::optional<size_t> findEntry(std::string_view key) const;
  /// A data entry's bytes (null for splats).
  const uint8_t *entryData(size_t index) const {
    return entryList[index].kind == IrpaEntryKind::Data
               ? base + entryList[index].offset
               : nullptr;
  }
  /// The splat pattern as stored in the file (16 bytes, of which
  /// patternLength count), or null for data entries.
  const uint8_t *splatPattern(size_t index) const {
    return entryList[index].kind == IrpaEntryKind::Splat
               ? base + entryList[index].recordOffset + irpa::splat::kPattern
               : nullptr;
  }
  IrpaSegment entrySegment() const { return entrySeg; }
  IrpaSegment metadataSegment() const { return metadataSeg; }
  IrpaSegment storageSegment() const { return storageSeg; }
  const uint8_t *fileData() const { return base; }
  size_t fileSize() const { return size; }

private:
  IrpaReader(const uint8_t *base, size_t size) : base(base), size(size) {}
  Status parse();

  const uint8_t *base;
  size_t size;
  uint16_t major = 0, minor = 0;
  IrpaSegment entrySeg, metadataSeg, storageSeg;
  std::vector<IrpaEntry> entryList;
  std::unordered_map<std::string_view, size_t> byKey;
  uint64_t skipped = 0;
};

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_IRPAREADER_H
