//===- ZipLayout.h - Where every byte of a module archive goes -----*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A module archive's layout is a pure function of its entries (name, length,
// alignment, CRC, in order): the writer plans it before any data exists, and
// the reader recomputes it from the index and compares every metadata byte
// with the file. That makes "no holes, no overlaps, all padding zero, every
// ZIP field consistent" one comparison, proportional to the number of
// entries, not to the data.
//
// Private to lib/Archive (and its tests and fuzz helpers): the ZIP record
// signatures, sizes and field offsets are defined here once, for the writer
// that emits them and the reader and tests that look at them.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_ARCHIVE_ZIPLAYOUT_H
#define VMPACK_LIB_ARCHIVE_ZIPLAYOUT_H

#include "vmpack/Archive/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::archive {

/// The ZIP records a module archive uses, as PKWARE's APPNOTE 6.3 defines
/// them (section 4.3): little-endian, packed, each starting with its
/// signature. Each namespace gives the byte offset of every fixed field and
/// the fixed size; the static_asserts hold them to the APPNOTE's sizes.
namespace zip {

/// The ID of the zip64 extended information extra field (APPNOTE 4.5.3).
inline constexpr uint16_t kZip64ExtraId = 0x0001;
/// An extra field block's header: uint16 ID, uint16 data size.
inline constexpr size_t kExtraHeaderSize = 4;

/// Local file header (4.3.7); the name and the extra field follow.
namespace local {
inline constexpr uint32_t kSignature = 0x04034b50; // "PK\3\4"
inline constexpr size_t kVersionNeeded = 4;        // uint16
inline constexpr size_t kFlags = 6;                // uint16
inline constexpr size_t kMethod = 8;               // uint16
inline constexpr size_t kTime = 10;                // uint16
inline constexpr size_t kDate = 12;                // uint16
inline constexpr size_t kCrc = 14;                 // uint32
inline constexpr size_t kCompressedSize = 18;      // uint32
inline constexpr size_t kUncompressedSize = 22;    // uint32
inline constexpr size_t kNameLength = 26;          // uint16
inline constexpr size_t kExtraLength = 28;         // uint16
inline constexpr size_t kSize = kExtraLength + 2;
static_assert(kSize == 30, "APPNOTE 4.3.7: a local file header is 30 bytes");
/// The zip64 extra block of a local header: header, uncompressed and
/// compressed sizes (uint64 each).
inline constexpr size_t kZip64ExtraSize = kExtraHeaderSize + 16;
} // namespace local

/// Central directory file header (4.3.12); name and extra field follow.
namespace central {
inline constexpr uint32_t kSignature = 0x02014b50; // "PK\1\2"
inline constexpr size_t kVersionMadeBy = 4;        // uint16
inline constexpr size_t kVersionNeeded = 6;        // uint16
inline constexpr size_t kFlags = 8;                // uint16
inline constexpr size_t kMethod = 10;              // uint16
inline constexpr size_t kTime = 12;                // uint16
inline constexpr size_t kDate = 14;                // uint16
inline constexpr size_t kCrc = 16;                 // uint32
inline constexpr size_t kCompressedSize = 20;      // uint32
inline constexpr size_t kUncompressedSize = 24;    // uint32
inline constexpr size_t kNameLength = 28;          // uint16
inline constexpr size_t kExtraLength = 30;         // uint16
inline constexpr size_t kCommentLength = 32;       // uint16
inline constexpr size_t kDiskStart = 34;           // uint16
inline constexpr size_t kInternalAttributes = 36;  // uint16
inline constexpr size_t kExternalAttributes = 38;  // uint32
inline constexpr size_t kLocalHeaderOffset = 42;   // uint32
inline constexpr size_t kSize = kLocalHeaderOffset + 4;
static_assert(kSize == 46, "APPNOTE 4.3.12: a central header is 46 bytes");
} // namespace central

/// Zip64 end of central directory record (4.3.14), version 1, no
/// extensible data.
namespace zip64End {
inline constexpr uint32_t kSignature = 0x06064b50; // "PK\6\6"
inline constexpr size_t kRecordSize = 4;           // uint64: size - 12
inline constexpr size_t kVersionMadeBy = 12;       // uint16
inline constexpr size_t kVersionNeeded = 14;       // uint16
inline constexpr size_t kDisk = 16;                // uint32
inline constexpr size_t kDirectoryDisk = 20;       // uint32
inline constexpr size_t kDiskEntries = 24;         // uint64
inline constexpr size_t kEntries = 32;             // uint64
inline constexpr size_t kDirectorySize = 40;       // uint64
inline constexpr size_t kDirectoryOffset = 48;     // uint64
inline constexpr size_t kSize = kDirectoryOffset + 8;
static_assert(kSize == 56, "APPNOTE 4.3.14: a zip64 end record is 56 bytes");
/// What the record's own size field holds: the bytes after that field.
inline constexpr uint64_t kRecordSizeValue = kSize - (kRecordSize + 8);
} // namespace zip64End

/// Zip64 end of central directory locator (4.3.15).
namespace zip64Locator {
inline constexpr uint32_t kSignature = 0x07064b50; // "PK\6\7"
inline constexpr size_t kEndDisk = 4;              // uint32
inline constexpr size_t kEndOffset = 8;            // uint64
inline constexpr size_t kTotalDisks = 16;          // uint32
inline constexpr size_t kSize = kTotalDisks + 4;
static_assert(kSize == 20, "APPNOTE 4.3.15: a zip64 locator is 20 bytes");
} // namespace zip64Locator

/// End of central directory record (4.3.16); the comment follows.
namespace end {
inline constexpr uint32_t kSignature = 0x06054b50; // "PK\5\6"
inline constexpr size_t kDisk = 4;                 // uint16
inline constexpr size_t kDirectoryDisk = 6;        // uint16
inline constexpr size_t kDiskEntries = 8;          // uint16
inline constexpr size_t kEntries = 10;             // uint16
inline constexpr size_t kDirectorySize = 12;       // uint32
inline constexpr size_t kDirectoryOffset = 16;     // uint32
inline constexpr size_t kCommentLength = 20;       // uint16
inline constexpr size_t kSize = kCommentLength + 2;
static_assert(kSize == 22, "APPNOTE 4.3.16: an EOCD record is 22 bytes");
/// The longest comment a 16-bit length can give.
inline constexpr size_t kMaxCommentLength = 0xFFFF;
} // namespace end

} // namespace zip

/// One STORED ZIP entry.
struct ZipEntry {
  std::string name; ///< The ZIP entry name (already escaped).
  uint64_t length = 0;
  uint32_t alignment = 1; ///< Power of two: data offset % alignment == 0.
  uint32_t crc = 0;
};

/// Where one entry lands. Bytes [prefixOffset, dataOffset) are the entry's
/// "local prefix": `gap` zero bytes (rare; only when the padding cannot fit
/// the extra field), the local file header, the name and the extra field.
struct ZipPlacement {
  uint64_t prefixOffset = 0;
  uint64_t headerOffset = 0;
  uint64_t dataOffset = 0;
  uint32_t gap = 0;
  uint32_t paddingBlockSize = 0; ///< Total bytes of the padding extra block.
  bool zip64Sizes = false;       ///< Local header carries a zip64 extra.
};

struct ZipPlan {
  std::vector<ZipPlacement> entries;
  uint64_t centralDirectoryOffset = 0;
  uint64_t centralDirectorySize = 0;
  bool zip64End = false;
  /// Offset of the zip64 end record (if any), else of the EOCD record.
  uint64_t endRecordsOffset = 0;
  uint64_t fileSize = 0;
};

/// Plans the archive. Fails only when a size overflows 64 bits or a name or
/// alignment is out of range.
StatusOr<ZipPlan> planZip(const std::vector<ZipEntry> &entries,
                          size_t commentLength);

/// The bytes of entry `index`'s local prefix.
std::string localPrefixBytes(const ZipEntry &entry,
                             const ZipPlacement &placement);

/// The bytes from plan.centralDirectoryOffset to the end of the file: the
/// central directory, the zip64 end records if needed, and the EOCD record
/// with `comment`.
std::string centralDirectoryAndEndBytes(const std::vector<ZipEntry> &entries,
                                        const ZipPlan &plan,
                                        const std::string &comment);

/// The extra-field header ID of vmpack's padding block (zero-filled data).
inline constexpr uint16_t kPaddingExtraId = 0x7076; // "vp"

} // namespace vmpack::archive

#endif // VMPACK_LIB_ARCHIVE_ZIPLAYOUT_H
