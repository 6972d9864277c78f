//===- Format.h - Constants of the module archive format -----------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The fixed facts of docs/format.md shared by the writer and the reader: the
// format version, the reserved entry names, alignments and limits, how a
// segment name becomes a ZIP entry name, and the trailer that the
// end-of-central-directory comment carries.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_FORMAT_H
#define VMPACK_ARCHIVE_FORMAT_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vmpack::archive {

/// The versions this code reads. A writer stamps the lowest version that
/// holds what the module uses (docs/format.md, section 6): version 1
/// unless the module has version-2 features (aliases), so that modules
/// without them stay readable by version-1 readers. Bump the newest
/// version for any change an older reader would misread.
inline constexpr uint32_t kMinFormatVersion = 1;
inline constexpr uint32_t kFormatVersion = 2;
/// The first version with aliases: index records of constants that share
/// another segment's bytes.
inline constexpr uint32_t kAliasFormatVersion = 2;
/// The first version with module metadata and foreign segments.
inline constexpr uint32_t kMetadataFormatVersion = 2;
/// Foreign segment kinds (SegmentInfo::foreignKind): stored in indexes.
inline constexpr uint8_t kForeignNone = 0;
inline constexpr uint8_t kForeignGgml = 1;

/// Whether this code reads `version`.
inline constexpr bool isKnownFormatVersion(uint32_t version) {
  return version >= kMinFormatVersion && version <= kFormatVersion;
}

/// Entry names of the two non-segment entries. Escaped segment names never
/// contain '/', so these cannot collide with a segment.
inline constexpr std::string_view kProgramEntryName = "vmpack/program.mlirbc";
inline constexpr std::string_view kIndexEntryName = "vmpack/index.fb";

inline constexpr uint32_t kDefaultSegmentAlignment = 64;
inline constexpr uint32_t kProgramAlignment = 64;
/// FlatBuffers needs 8-byte alignment for its 64-bit scalars.
inline constexpr uint32_t kIndexAlignment = 16;
inline constexpr uint32_t kMaxAlignment = 65536;
/// Bounds that keep every ZIP name field (16 bits) in range.
inline constexpr size_t kMaxSegmentNameBytes = 4096;
inline constexpr size_t kMaxSourceKeyBytes = 4096;
inline constexpr size_t kMaxRank = 64;
/// Longest metadata key or value (format version 2).
inline constexpr size_t kMaxMetadataBytes = size_t(1) << 24;

/// How the compiler found a constant; stored so it can rebuild its input.
enum class SourceKind : uint8_t {
  Dense = 0,
  DenseResource = 1,
  PackedResource = 2
};

/// A power of two in [1, kMaxAlignment].
bool isValidAlignment(uint64_t alignment);

/// The ZIP entry name of a segment: bytes in [A-Za-z0-9_.-] stand for
/// themselves, except a leading '.', which is escaped like every other byte
/// as '%' followed by two upper-case hex digits. Injective and reversible.
std::string escapeSegmentName(std::string_view name);
/// The inverse of escapeSegmentName, or nullopt when `entryName` is not the
/// canonical escape of any name.
std::optional<std::string> unescapeSegmentName(std::string_view entryName);

/// `bytes` fit to appear in an error message: printable ASCII stays, every
/// other byte (and '\\') becomes \xNN. Names come from untrusted files;
/// printed raw, they could carry terminal escape sequences.
std::string printableName(std::string_view bytes);

/// The end-of-central-directory comment: where the index is and its CRC-32,
/// so that a reader finds and checks the index without trusting anything in
/// it. Always kTrailerLength ASCII bytes:
///   "vmpack VVVV index=OOOOOOOOOOOOOOOO+LLLLLLLLLLLLLLLL crc32=CCCCCCCC"
/// (V decimal, O/L/C lower-case hex).
struct Trailer {
  uint32_t formatVersion = kMinFormatVersion;
  uint64_t indexOffset = 0;
  uint64_t indexLength = 0;
  uint32_t indexChecksum = 0;
};
inline constexpr size_t kTrailerLength = 66;
static_assert(std::string_view("vmpack VVVV index=OOOOOOOOOOOOOOOO+"
                               "LLLLLLLLLLLLLLLL crc32=CCCCCCCC")
                      .size() == kTrailerLength,
              "the trailer's fields fill kTrailerLength bytes");
std::string formatTrailer(const Trailer &trailer);
/// Parses any version's trailer (the caller checks the version), or nullopt.
std::optional<Trailer> parseTrailer(std::string_view comment);

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_FORMAT_H
