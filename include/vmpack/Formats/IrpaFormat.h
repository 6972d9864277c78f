//===- IrpaFormat.h - Layout of IREE parameter archives ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The byte layout of an IREE parameter archive (.irpa), version 0.0, as
// defined by IREE's runtime/src/iree/schemas/parameter_archive.h (packed,
// little-endian structs) and written by its
// runtime/src/iree/io/formats/irpa/irpa_builder.c. docs/irpa.md describes
// every byte. Structures are read and written field by field at the offsets
// below, never by casting memory, so alignment and host byte order do not
// matter.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_IRPAFORMAT_H
#define VMPACK_FORMATS_IRPAFORMAT_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vmpack::formats::irpa {

/// "IRPA" read as a little-endian uint32.
inline constexpr uint32_t kMagic = 0x41505249u;
inline constexpr uint16_t kVersionMajor = 0;
inline constexpr uint16_t kVersionMinor = 0;

/// IREE_IO_PARAMETER_ARCHIVE_DEFAULT_FILE_ALIGNMENT: the file size is
/// rounded up to this.
inline constexpr uint64_t kFileAlignment = 4096;
/// IREE_IO_PARAMETER_ARCHIVE_ENTRY_ALIGNMENT (also the header's).
inline constexpr uint64_t kEntryAlignment = 16;
/// IREE_IO_PARAMETER_ARCHIVE_DEFAULT_DATA_ALIGNMENT.
inline constexpr uint64_t kDefaultDataAlignment = 64;
/// IREE_IO_PARAMETER_MAX_SPLAT_PATTERN_LENGTH: room for complex<f64>.
inline constexpr size_t kMaxPatternLength = 16;

/// iree_io_parameter_archive_entry_type_e.
enum class EntryType : uint32_t { Skip = 0, Splat = 1, Data = 2, External = 3 };

/// A range is {uint64 offset, uint64 length}.
inline constexpr size_t kRangeSize = 16;

/// iree_io_parameter_archive_header_prefix_t.
namespace prefix {
inline constexpr size_t kMagic = 0;             // uint32
inline constexpr size_t kVersionMajor = 4;      // uint16
inline constexpr size_t kVersionMinor = 6;      // uint16
inline constexpr size_t kHeaderSize = 8;        // uint64
inline constexpr size_t kNextHeaderOffset = 16; // uint64
inline constexpr size_t kFlags = 24;            // uint64
inline constexpr size_t kSize = kFlags + 8;
static_assert(kSize == 32, "sizeof(iree_io_parameter_archive_header_prefix_t)");
} // namespace prefix

/// iree_io_parameter_archive_header_v0_t.
namespace header {
inline constexpr size_t kEntryCount = prefix::kSize;             // uint64
inline constexpr size_t kEntrySegment = kEntryCount + 8;         // range
inline constexpr size_t kMetadataSegment = kEntrySegment + 16;   // range
inline constexpr size_t kStorageSegment = kMetadataSegment + 16; // range
inline constexpr size_t kSize = kStorageSegment + kRangeSize;
static_assert(kSize == 88, "sizeof(iree_io_parameter_archive_header_v0_t)");
} // namespace header

/// Where the entry table starts: the header, rounded up to kEntryAlignment.
inline constexpr uint64_t kEntryTableOffset =
    (header::kSize + kEntryAlignment - 1) / kEntryAlignment * kEntryAlignment;

/// iree_io_parameter_archive_entry_header_t.
namespace entry {
inline constexpr size_t kEntrySize = 0;                             // uint64
inline constexpr size_t kType = 8;                                  // uint32
inline constexpr size_t kFlags = 12;                                // uint64
inline constexpr size_t kName = 20;                                 // range
inline constexpr size_t kMetadata = kName + kRangeSize;             // range
inline constexpr size_t kMinimumAlignment = kMetadata + kRangeSize; // uint64
inline constexpr size_t kSize = kMinimumAlignment + 8;
static_assert(kSize == 60, "sizeof(iree_io_parameter_archive_entry_header_t)");
} // namespace entry

/// iree_io_parameter_archive_splat_entry_t.
namespace splat {
inline constexpr size_t kLength = entry::kSize; // uint64
inline constexpr size_t kPattern = kLength + 8; // 16 bytes
inline constexpr size_t kPatternLength = kPattern + kMaxPatternLength; // uint8
inline constexpr size_t kSize = kPatternLength + 1;
static_assert(kSize == 85, "sizeof(iree_io_parameter_archive_splat_entry_t)");
} // namespace splat

/// iree_io_parameter_archive_data_entry_t.
namespace data {
inline constexpr size_t kStorage = entry::kSize; // range
inline constexpr size_t kSize = kStorage + kRangeSize;
static_assert(kSize == 76, "sizeof(iree_io_parameter_archive_data_entry_t)");
} // namespace data

/// iree_io_parameter_archive_external_entry_t (read only to be rejected).
namespace external {
inline constexpr size_t kPath = entry::kSize;        // range
inline constexpr size_t kRange = kPath + kRangeSize; // range
inline constexpr size_t kSize = kRange + kRangeSize;
static_assert(kSize == 92,
              "sizeof(iree_io_parameter_archive_external_entry_t)");
} // namespace external

/// A splat pattern length the format allows: 1, 2, 4, 8 or 16.
constexpr bool isValidPatternLength(uint64_t n) {
  return n != 0 && n <= kMaxPatternLength && (n & (n - 1)) == 0;
}

/// True when `data` starts with the magic (enough to choose a reader).
inline bool hasMagic(const uint8_t *data, size_t size) {
  return size >= 4 && data[0] == 'I' && data[1] == 'R' && data[2] == 'P' &&
         data[3] == 'A';
}

/// Little-endian loads and stores at byte offsets.
template <typename T> T load(const uint8_t *p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= T(T(p[i]) << (8 * i));
  return v;
}
template <typename T> void store(uint8_t *p, T v) {
  for (size_t i = 0; i < sizeof(T); ++i)
    p[i] = uint8_t(uint64_t(v) >> (8 * i));
}

} // namespace vmpack::formats::irpa

#endif // VMPACK_FORMATS_IRPAFORMAT_H
