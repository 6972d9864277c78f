//===- ArchiveReader.cpp - Reading and verifying a module archive
//------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Nothing in the file is trusted until it has been checked against something
// else: the trailer against the EOCD record's position, the index against
// the trailer's CRC and the FlatBuffers verifier, every offset in the index
// against the canonical layout recomputed from the index, and every byte of
// ZIP metadata and padding against the bytes that layout implies.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/ArchiveReader.h"

#include "ModuleIndex.h"
#include "ZipLayout.h"
#include "vmpack/Archive/Checksum.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::detail;

namespace {

constexpr size_t kMinimumFileSize = zip::end::kSize + kTrailerLength;
/// Verification work unit: big enough to amortize, small enough to balance.
constexpr uint64_t kVerifyPieceBytes = uint64_t(16) << 20;

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08" PRIx32, v);
  return buf;
}

/// "[offset, end)", or "[offset, +length)" when a hostile length would wrap
/// the end around 2^64 and print a misleading small number.
std::string range(uint64_t offset, uint64_t length) {
  uint64_t end;
  if (__builtin_add_overflow(offset, length, &end))
    return "[" + std::to_string(offset) + ", +" + std::to_string(length) + ")";
  return "[" + std::to_string(offset) + ", " + std::to_string(end) + ")";
}

uint16_t readU16(const uint8_t *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t readU32(const uint8_t *p) {
  return uint32_t(readU16(p)) | (uint32_t(readU16(p + 2)) << 16);
}

/// Explains why the end of the file is not a vmpack EOCD record.
Status diagnoseMissingTrailer(const uint8_t *base, size_t size) {
  constexpr size_t kLongestTail = zip::end::kSize + zip::end::kMaxCommentLength;
  size_t lowest = size > kLongestTail ? size - kLongestTail : 0;
  for (size_t pos = size - zip::end::kSize + 1; pos-- > lowest;) {
    if (readU32(base + pos) != zip::end::kSignature)
      continue;
    uint16_t commentLength = readU16(base + pos + zip::end::kCommentLength);
    if (pos + zip::end::kSize + commentLength != size)
      continue;
    std::string_view comment(reinterpret_cast<const char *>(base) + pos +
                                 zip::end::kSize,
                             commentLength);
    if (comment.substr(0, 7) == "vmpack ")
      return Status::formatError("end-of-central-directory record at offset " +
                                 std::to_string(pos) +
                                 ": its vmpack trailer is malformed");
    return Status::formatError("a ZIP archive, but not a vmpack module: the "
                               "end-of-central-directory record at offset " +
                               std::to_string(pos) + " has no vmpack trailer");
  }
  return Status::formatError(
      "not a vmpack module, or truncated: no "
      "end-of-central-directory record with a vmpack trailer "
      "at the end of the file (" +
      std::to_string(size) + " bytes)");
}

/// Compares the canonical bytes `expected` with the file at `offset`.
Status compareBytes(const uint8_t *base, uint64_t offset,
                    const std::string &expected, const std::string &what) {
  const auto *want = reinterpret_cast<const uint8_t *>(expected.data());
  if (std::memcmp(base + offset, want, expected.size()) == 0)
    return Status::ok();
  size_t i = 0;
  while (base[offset + i] == want[i])
    ++i;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "0x%02x where the format requires 0x%02x",
                base[offset + i], want[i]);
  return Status::formatError(what + ": byte at offset " +
                             std::to_string(offset + i) + " is " + buf);
}

} // namespace

StatusOr<std::unique_ptr<ArchiveReader>>
ArchiveReader::open(const uint8_t *data, size_t size) {
  if (!data)
    return Status::formatError("no data");
  if (reinterpret_cast<uintptr_t>(data) % kIndexAlignment != 0)
    return Status::invalidArgument("the module buffer must be " +
                                   std::to_string(kIndexAlignment) +
                                   "-byte aligned");
  std::unique_ptr<ArchiveReader> reader(new ArchiveReader(data, size));
  if (Status st = reader->parse(); !st)
    return st;
  return reader;
}

Status ArchiveReader::parse() {
  if (size < kMinimumFileSize)
    return Status::formatError("file of " + std::to_string(size) +
                               " bytes is too small to be a vmpack module");
  // 1. The EOCD record, whose comment is the fixed-size trailer.
  size_t eocd = size - kMinimumFileSize;
  if (readU32(base + eocd) != zip::end::kSignature ||
      readU16(base + eocd + zip::end::kCommentLength) != kTrailerLength)
    return diagnoseMissingTrailer(base, size);
  std::string_view comment(reinterpret_cast<const char *>(base) + eocd +
                               zip::end::kSize,
                           kTrailerLength);
  std::optional<Trailer> trailer = parseTrailer(comment);
  if (!trailer)
    return Status::formatError("end-of-central-directory record at offset " +
                               std::to_string(eocd) +
                               ": its vmpack trailer is malformed");
  if (!isKnownFormatVersion(trailer->formatVersion))
    return Status::unsupported(
        "format version " + std::to_string(trailer->formatVersion) +
        " is not supported (this reader knows versions " +
        std::to_string(kMinFormatVersion) + " to " +
        std::to_string(kFormatVersion) + ")");

  // 2. The index: in bounds, aligned, CRC as the trailer says, verified.
  uint64_t indexEnd;
  if (__builtin_add_overflow(trailer->indexOffset, trailer->indexLength,
                             &indexEnd) ||
      indexEnd > eocd)
    return Status::formatError(
        "trailer: index " + range(trailer->indexOffset, trailer->indexLength) +
        " lies outside the file's " + std::to_string(eocd) +
        " bytes before the end record");
  if (trailer->indexOffset % kIndexAlignment != 0)
    return Status::formatError(
        "trailer: index offset " + std::to_string(trailer->indexOffset) +
        " is not a multiple of " + std::to_string(kIndexAlignment));
  const uint8_t *indexData = base + trailer->indexOffset;
  uint32_t indexCrc = crc32Update(0, indexData, trailer->indexLength);
  if (indexCrc != trailer->indexChecksum)
    return Status::checksumError(
        "index at " + range(trailer->indexOffset, trailer->indexLength) +
        ": CRC-32 is " + hex32(indexCrc) + ", the trailer says " +
        hex32(trailer->indexChecksum));
  StatusOr<ModuleContents> contents =
      decodeIndex(indexData, size_t(trailer->indexLength));
  if (!contents)
    return contents.status();
  if (contents->formatVersion != trailer->formatVersion)
    return Status::formatError(
        "index: format version " + std::to_string(contents->formatVersion) +
        ", but the trailer says " + std::to_string(trailer->formatVersion));
  version = contents->formatVersion;
  module = std::move(contents->moduleName);
  producedBy = std::move(contents->producer);
  segments = std::move(contents->segments);
  aliases = std::move(contents->aliases);
  meta = std::move(contents->metadata);
  programEntry = std::move(contents->program);
  indexEntry = {std::string(kIndexEntryName), trailer->indexOffset,
                trailer->indexLength, indexCrc};
  for (size_t i = 0; i < numConstants(); ++i)
    if (!byName.emplace(constant(i).name, i).second)
      return Status::formatError("index: constant name '" +
                                 printableName(constant(i).name) +
                                 "' appears twice");
  // Aliases share their segment's bytes; the layout check below fixes
  // the segments' offsets, so refresh the copies.
  for (SegmentInfo &alias : aliases)
    alias.offset = segments[alias.aliasOf].offset;

  // 3. Every offset must be the one the canonical layout gives.
  std::vector<ZipEntry> entries =
      moduleEntries(segments, programEntry, indexEntry.length, indexCrc);
  StatusOr<ZipPlan> plan = planZip(entries, kTrailerLength);
  if (!plan)
    return plan.status().withContext("index: ");
  if (plan->fileSize != size)
    return Status::formatError(
        "file is " + std::to_string(size) + " bytes but its index describes " +
        std::to_string(plan->fileSize) +
        (size < plan->fileSize ? " (truncated?)" : " (trailing bytes?)"));
  for (size_t i = 0; i < segments.size(); ++i)
    if (segments[i].offset != plan->entries[i].dataOffset)
      return Status::formatError(
          "index: segment '" + printableName(segments[i].name) +
          "' claims offset " + std::to_string(segments[i].offset) +
          ", but its entry's data starts at " +
          std::to_string(plan->entries[i].dataOffset));
  if (programEntry.offset != plan->entries[segments.size()].dataOffset)
    return Status::formatError(
        "index: program claims offset " + std::to_string(programEntry.offset) +
        ", but its entry's data starts at " +
        std::to_string(plan->entries[segments.size()].dataOffset));
  if (indexEntry.offset != plan->entries.back().dataOffset)
    return Status::formatError(
        "trailer: index offset " + std::to_string(indexEntry.offset) +
        " is not where its ZIP entry's data starts (" +
        std::to_string(plan->entries.back().dataOffset) + ")");
  // 4. Every metadata and padding byte.
  return checkMetadata();
}

Status ArchiveReader::checkMetadata() const {
  std::vector<ZipEntry> entries = moduleEntries(
      segments, programEntry, indexEntry.length, indexEntry.checksum);
  StatusOr<ZipPlan> plan = planZip(entries, kTrailerLength);
  if (!plan || plan->fileSize != size)
    return Status::internalError("internal error: layout changed after open");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ZipPlacement &p = plan->entries[i];
    std::string what = "local header of ZIP entry '" + entries[i].name + "' (" +
                       range(p.prefixOffset, p.dataOffset - p.prefixOffset) +
                       ", headers and zero padding)";
    if (Status st = compareBytes(base, p.prefixOffset,
                                 localPrefixBytes(entries[i], p), what);
        !st)
      return st;
  }
  Trailer trailer;
  trailer.formatVersion = version;
  trailer.indexOffset = indexEntry.offset;
  trailer.indexLength = indexEntry.length;
  trailer.indexChecksum = indexEntry.checksum;
  return compareBytes(
      base, plan->centralDirectoryOffset,
      centralDirectoryAndEndBytes(entries, *plan, formatTrailer(trailer)),
      "central directory and end records (" +
          range(plan->centralDirectoryOffset,
                size - plan->centralDirectoryOffset) +
          ")");
}

std::optional<size_t> ArchiveReader::findSegment(std::string_view name) const {
  std::optional<size_t> index = findConstant(name);
  if (!index || *index >= segments.size())
    return std::nullopt;
  return index;
}

std::optional<size_t> ArchiveReader::findConstant(std::string_view name) const {
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

Status ArchiveReader::checkMetadataAndIndex() const {
  if (Status st = checkMetadata(); !st)
    return st;
  uint32_t indexCrc =
      crc32Update(0, base + indexEntry.offset, indexEntry.length);
  if (indexCrc != indexEntry.checksum)
    return Status::checksumError("index at " +
                                 range(indexEntry.offset, indexEntry.length) +
                                 ": CRC-32 is " + hex32(indexCrc) +
                                 ", expected " + hex32(indexEntry.checksum));
  return Status::ok();
}

Status ArchiveReader::compareEntryCrc(size_t entry, uint32_t crc) const {
  bool isConstant = entry < numConstants();
  const SegmentInfo *c = isConstant ? &constant(entry) : nullptr;
  uint64_t offset = c ? c->offset : programEntry.offset;
  uint64_t length = c ? c->length : programEntry.length;
  uint32_t expected = c ? c->checksum : programEntry.checksum;
  if (crc == expected)
    return Status::ok();
  std::string what =
      c ? "segment '" + printableName(c->name) + "'" : std::string("program");
  return Status::checksumError(what + " at " + range(offset, length) +
                               ": CRC-32 of the stored bytes is " + hex32(crc) +
                               ", the index says " + hex32(expected));
}

Status ArchiveReader::verifyEntry(size_t entry, const RangeCrc *crcOf) const {
  bool isConstant = entry < numConstants();
  uint64_t offset = isConstant ? constant(entry).offset : programEntry.offset;
  uint64_t length = isConstant ? constant(entry).length : programEntry.length;
  uint32_t crc =
      crcOf ? (*crcOf)(offset, length) : crc32Update(0, base + offset, length);
  return compareEntryCrc(entry, crc);
}

Status ArchiveReader::verifyContents(const RangeCrc &crcOf) const {
  if (Status st = checkMetadataAndIndex(); !st)
    return st;
  // Aliases share their segment's bytes: the segments and the program
  // cover every entry.
  for (size_t i = 0; i < segments.size(); ++i)
    if (Status st = verifyEntry(i, &crcOf); !st)
      return st;
  return verifyEntry(numConstants(), &crcOf);
}

Status ArchiveReader::verifyContents(unsigned threads) const {
  if (Status st = checkMetadataAndIndex(); !st)
    return st;

  // Entries to check, in file order: segments, then the program.
  struct Target {
    uint64_t offset, length;
    size_t firstPiece, numPieces;
  };
  std::vector<Target> targets;
  struct Piece {
    uint64_t offset, length;
  };
  std::vector<Piece> pieces;
  auto addTarget = [&](uint64_t offset, uint64_t length) {
    Target t{offset, length, pieces.size(), 0};
    for (uint64_t done = 0; done < length; done += kVerifyPieceBytes)
      pieces.push_back(
          {offset + done, std::min(kVerifyPieceBytes, length - done)});
    t.numPieces = pieces.size() - t.firstPiece;
    targets.push_back(t);
  };
  for (const SegmentInfo &s : segments)
    addTarget(s.offset, s.length);
  addTarget(programEntry.offset, programEntry.length);

  std::vector<uint32_t> crcs(pieces.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < pieces.size();)
      crcs[i] = crc32Update(0, base + pieces[i].offset, pieces[i].length);
  };
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, pieces.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();

  for (size_t i = 0; i < targets.size(); ++i) {
    const Target &t = targets[i];
    uint32_t crc = 0;
    for (size_t k = 0; k < t.numPieces; ++k) {
      const Piece &p = pieces[t.firstPiece + k];
      crc = crc32Combine(crc, crcs[t.firstPiece + k], p.length);
    }
    // Targets are the segments (the first constants), then the program.
    size_t entry = i < segments.size() ? i : numConstants();
    if (Status st = compareEntryCrc(entry, crc); !st)
      return st;
  }
  return Status::ok();
}
