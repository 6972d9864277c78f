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
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_ZIPLAYOUT_H
#define VMPACK_ARCHIVE_ZIPLAYOUT_H

#include "vmpack/Archive/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::archive {

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

#endif // VMPACK_ARCHIVE_ZIPLAYOUT_H
