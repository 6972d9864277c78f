//===- IrpaWriter.h - Writing an IREE parameter archive ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Writes .irpa files byte for byte as IREE's archive builder
// (runtime/src/iree/io/formats/irpa/irpa_builder.c) lays out the same entry
// list: header, entry table, names, storage, each data entry 64-byte aligned,
// zero padding, the file rounded up to 4096 bytes (docs/irpa.md).
//
// Like archive::ArchiveWriter it works in two phases. In the plan phase the
// caller declares every entry: data entries by key, length and alignment;
// splat entries by key, total length and a 1..16-byte pattern. beginData()
// then fixes the layout, reserves the file's space and writes everything but
// the data. In the data phase any number of threads write chunks of data
// entries straight to their final offsets with pwrite; finish() checks that
// every data byte was written exactly once and atomically renames the
// temporary file over the destination. The output depends only on the entry
// list and the data, never on the number of threads or the order of chunks.
// Memory does not grow with the data.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_IRPAWRITER_H
#define VMPACK_FORMATS_IRPAWRITER_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Formats/IrpaFormat.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vmpack::formats {

using archive::Status;
using archive::StatusOr;

/// One entry of the plan.
struct IrpaEntryDesc {
  std::string key;
  /// Opaque bytes stored after the key in the metadata segment (IREE's
  /// exporter stores none).
  std::string metadata;
  bool isSplat = false;
  /// Bytes of the parameter (for a splat: the expanded length).
  uint64_t length = 0;
  /// Data entries: the storage offset is a multiple of this (a power of two).
  uint64_t alignment = irpa::kDefaultDataAlignment;
  /// Splat entries: the first patternLength bytes repeat; the rest are zero.
  std::array<uint8_t, irpa::kMaxPatternLength> pattern{};
  uint8_t patternLength = 0;
};

/// Where everything goes; a pure function of the entry list.
struct IrpaLayout {
  uint64_t entrySegmentLength = 0;
  uint64_t metadataOffset = 0;
  uint64_t metadataLength = 0;
  uint64_t storageOffset = 0;
  uint64_t storageLength = 0;
  uint64_t fileSize = 0;
  /// Per entry: the file offset of its table record, and for data entries
  /// the data's offset relative to the storage segment (0 for splats).
  std::vector<uint64_t> entryOffsets;
  std::vector<uint64_t> storageOffsets;
};

/// Checks one entry on its own (pattern length, alignment, divisibility).
Status validateIrpaEntry(const IrpaEntryDesc &entry);

/// The layout IREE's builder gives `entries` in this order, or an error if
/// a size overflows 64 bits.
StatusOr<IrpaLayout> planIrpaLayout(const std::vector<IrpaEntryDesc> &entries);

/// The bytes of [0, layout.storageOffset): header, entry table, metadata
/// and the zero padding before the storage segment.
std::string encodeIrpaHead(const std::vector<IrpaEntryDesc> &entries,
                           const IrpaLayout &layout);

struct IrpaWriterOptions {
  /// fsync the file and its directory before finish() returns.
  bool fsync = false;
};

class IrpaWriterImpl;

class IrpaWriter {
public:
  /// Creates a temporary file in path's directory; the final path is only
  /// touched by finish().
  static StatusOr<std::unique_ptr<IrpaWriter>>
  create(const std::string &path, IrpaWriterOptions options = {});
  /// Removes the temporary file unless finish() succeeded.
  ~IrpaWriter();
  IrpaWriter(const IrpaWriter &) = delete;
  IrpaWriter &operator=(const IrpaWriter &) = delete;

  /// Plan phase. Return the entry's number (0, 1, ... in call order, which
  /// is also the order of the entry table). Reject duplicate keys, invalid
  /// alignments and patterns, and splat lengths that are not a multiple of
  /// the pattern length.
  StatusOr<uint32_t>
  addDataEntry(std::string key, uint64_t length,
               uint64_t alignment = irpa::kDefaultDataAlignment,
               std::string metadata = {});
  StatusOr<uint32_t> addSplatEntry(std::string key, uint64_t length,
                                   const void *pattern, size_t patternLength,
                                   std::string metadata = {});
  /// Fixes the layout, reserves the file's space and writes header, entry
  /// table and metadata. After this, no add*Entry.
  Status beginData();
  /// Thread-safe. Chunks of one data entry may arrive in any order from any
  /// thread; together they must cover it exactly once.
  Status writeEntryData(uint32_t entry, uint64_t offsetInEntry,
                        const void *data, size_t size);
  /// Checks coverage, optionally fsyncs, and renames the temporary file to
  /// the destination.
  Status finish();

  /// Valid after beginData().
  uint64_t plannedFileSize() const;
  /// Absolute file offset of a data entry's bytes; valid after beginData().
  uint64_t entryFileOffset(uint32_t entry) const;
  const std::vector<IrpaEntryDesc> &entries() const;

private:
  explicit IrpaWriter(std::unique_ptr<IrpaWriterImpl> impl);
  std::unique_ptr<IrpaWriterImpl> impl;
};

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_IRPAWRITER_H
