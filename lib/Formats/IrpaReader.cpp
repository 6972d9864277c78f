//===- IrpaReader.cpp - Reading an IREE parameter archive -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Mirrors IREE's runtime/src/iree/io/formats/irpa/irpa_parser.c in what it
// accepts, with every sum overflow-checked and a few more rules (see
// IrpaReader.h and docs/irpa.md, "Reading"): no read ever leaves the file,
// and no reference leaves its segment.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/IrpaReader.h"

#include "vmpack/Archive/Format.h"

#include <algorithm>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::irpa;
using vmpack::archive::printableName;

namespace {

/// The largest minimum_alignment accepted (as for vmpack's own segments).
constexpr uint64_t kMaxMinimumAlignment = uint64_t(1) << 30;

/// [offset, offset + length) within [0, limit), overflow-safe.
bool inside(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

IrpaSegment readRange(const uint8_t *p) {
  return IrpaSegment{load<uint64_t>(p), load<uint64_t>(p + 8)};
}

} // namespace

StatusOr<std::unique_ptr<IrpaReader>> IrpaReader::open(const uint8_t *data,
                                                       size_t size) {
  if (!data && size)
    return Status::formatError("no data");
  std::unique_ptr<IrpaReader> reader(new IrpaReader(data, size));
  if (Status st = reader->parse(); !st)
    return st;
  return reader;
}

Status IrpaReader::parse() {
  auto error = [](const std::string &what) {
    return Status::formatError(what);
  };
  if (size < prefix::kSize)
    return error("not an IREE parameter archive: " + std::to_string(size) +
                 " bytes, fewer than the " + std::to_string(prefix::kSize) +
                 " of a header prefix");
  if (load<uint32_t>(base + prefix::kMagic) != kMagic)
    return error("not an IREE parameter archive: the file does not start "
                 "with \"IRPA\"");
  major = load<uint16_t>(base + prefix::kVersionMajor);
  minor = load<uint16_t>(base + prefix::kVersionMinor);
  if (major != kVersionMajor || minor != kVersionMinor)
    return error("IREE parameter archive version " + std::to_string(major) +
                 "." + std::to_string(minor) +
                 " is not supported (this reader knows 0.0)");
  uint64_t headerSize = load<uint64_t>(base + prefix::kHeaderSize);
  if (headerSize != header::kSize)
    return error("header size " + std::to_string(headerSize) +
                 " at offset 8: a version 0 header has " +
                 std::to_string(header::kSize) + " bytes");
  if (size < header::kSize)
    return error("truncated: " + std::to_string(size) +
                 " bytes, fewer than the " + std::to_string(header::kSize) +
                 " of the header");
  uint64_t next = load<uint64_t>(base + prefix::kNextHeaderOffset);
  if (next != 0)
    return error("linked archives are not supported (next_header_offset " +
                 std::to_string(next) + " at offset 16)");

  uint64_t entryCount = load<uint64_t>(base + header::kEntryCount);
  entrySeg = readRange(base + header::kEntrySegment);
  metadataSeg = readRange(base + header::kMetadataSegment);
  storageSeg = readRange(base + header::kStorageSegment);
  struct Named {
    const char *name;
    size_t at;
    IrpaSegment seg;
  };
  for (const Named &n :
       {Named{"entry table", header::kEntrySegment, entrySeg},
        Named{"metadata", header::kMetadataSegment, metadataSeg},
        Named{"storage", header::kStorageSegment, storageSeg}})
    if (n.seg.length != 0 && !inside(n.seg.offset, n.seg.length, size))
      return error("the " + std::string(n.name) + " segment [" +
                   std::to_string(n.seg.offset) + ", +" +
                   std::to_string(n.seg.length) + ") (header offset " +
                   std::to_string(n.at) + ") lies outside the file of " +
                   std::to_string(size) + " bytes");

  auto metadataRef = [&](const uint8_t *p, const std::string &where,
                         const char *what, std::string &out) -> Status {
    IrpaSegment r = readRange(p);
    if (r.length == 0)
      return Status::ok();
    if (!inside(r.offset, r.length, metadataSeg.length))
      return error(where + ": " + what + " [" + std::to_string(r.offset) +
                   ", +" + std::to_string(r.length) +
                   ") lies outside the metadata segment of " +
                   std::to_string(metadataSeg.length) + " bytes");
    out.assign(
        reinterpret_cast<const char *>(base + metadataSeg.offset + r.offset),
        size_t(r.length));
    return Status::ok();
  };

  uint64_t cursor = entrySeg.offset;
  uint64_t remaining = entrySeg.length;
  for (uint64_t i = 0; i < entryCount; ++i) {
    std::string where = "entry " + std::to_string(i) + " (at file offset " +
                        std::to_string(cursor) + ")";
    if (remaining < entry::kSize)
      return error(where + ": the entry table of " +
                   std::to_string(entrySeg.length) + " bytes ends before its " +
                   std::to_string(entryCount) + " entries do");
    const uint8_t *r = base + cursor;
    uint64_t entrySize = load<uint64_t>(r + entry::kEntrySize);
    uint32_t type = load<uint32_t>(r + entry::kType);
    if (entrySize < entry::kSize || entrySize > remaining)
      return error(where + ": entry size " + std::to_string(entrySize) +
                   " is not in [" + std::to_string(entry::kSize) + ", " +
                   std::to_string(remaining) +
                   "] (the rest of the entry table)");
    size_t needed = 0;
    switch (EntryType(type)) {
    case EntryType::Skip:
      needed = entry::kSize;
      break;
    case EntryType::Splat:
      needed = splat::kSize;
      break;
    case EntryType::Data:
      needed = data::kSize;
      break;
    case EntryType::External:
      return error(where + ": external entries (data in another file) are "
                           "not supported");
    default:
      return error(where + ": unknown entry type " + std::to_string(type));
    }
    if (entrySize < needed)
      return error(where + ": entry size " + std::to_string(entrySize) +
                   " is too small for its type (" + std::to_string(needed) +
                   " bytes)");

    IrpaEntry e;
    e.recordOffset = cursor;
    if (Status st = metadataRef(r + entry::kName, where, "name", e.key); !st)
      return st;
    if (Status st =
            metadataRef(r + entry::kMetadata, where, "metadata", e.metadata);
        !st)
      return st;
    where = "entry " + std::to_string(i) + " '" + printableName(e.key) +
            "' (at file offset " + std::to_string(cursor) + ")";
    e.minimumAlignment = load<uint64_t>(r + entry::kMinimumAlignment);
    if (e.minimumAlignment != 0 &&
        ((e.minimumAlignment & (e.minimumAlignment - 1)) != 0 ||
         e.minimumAlignment > kMaxMinimumAlignment))
      return error(where + ": minimum alignment " +
                   std::to_string(e.minimumAlignment) +
                   " is not 0 or a power of two up to 2^30");

    // Step to the next record: entry sizes are rounded up to the alignment.
    uint64_t step = (entrySize + kEntryAlignment - 1) & ~(kEntryAlignment - 1);
    if (step >= remaining) {
      remaining = 0;
    } else {
      remaining -= step;
      cursor += step;
    }

    if (EntryType(type) == EntryType::Skip) {
      ++skipped;
      continue;
    }
    if (EntryType(type) == EntryType::Splat) {
      e.kind = IrpaEntryKind::Splat;
      e.length = load<uint64_t>(r + splat::kLength);
      e.patternLength = r[splat::kPatternLength];
      if (!isValidPatternLength(e.patternLength))
        return error(where + ": splat pattern length " +
                     std::to_string(e.patternLength) +
                     " is not 1, 2, 4, 8 or 16");
      if (e.length % e.patternLength != 0)
        return error(where + ": splat length " + std::to_string(e.length) +
                     " is not a multiple of the pattern length " +
                     std::to_string(e.patternLength));
      std::memcpy(e.pattern.data(), r + splat::kPattern, e.patternLength);
    } else {
      e.kind = IrpaEntryKind::Data;
      IrpaSegment s = readRange(r + data::kStorage);
      if (!inside(s.offset, s.length, storageSeg.length))
        return error(where + ": data [" + std::to_string(s.offset) + ", +" +
                     std::to_string(s.length) +
                     ") lies outside the storage segment of " +
                     std::to_string(storageSeg.length) + " bytes");
      e.offset = storageSeg.offset + s.offset;
      e.length = s.length;
      // Only reachable with an empty storage segment, whose offset was not
      // checked above.
      if (!inside(e.offset, e.length, size))
        return error(where + ": data at file offset " +
                     std::to_string(e.offset) + " lies outside the file");
    }
    entryList.push_back(std::move(e));
  }

  byKey.reserve(entryList.size());
  for (size_t i = 0; i < entryList.size(); ++i)
    if (!byKey.emplace(entryList[i].key, i).second)
      return error(
          "entry '" + printableName(entryList[i].key) + "' (at file offset " +
          std::to_string(entryList[i].recordOffset) + "): duplicate key");
  return Status::ok();
}

std::optional<size_t> IrpaReader::findEntry(std::string_view key) const {
  auto it = byKey.find(key);
  if (it == byKey.end())
    return std::nullopt;
  return it->second;
}

Status IrpaReader::verifyLayout() const {
  struct Range {
    uint64_t offset, length;
    std::string what;
  };
  std::vector<Range> ranges;
  ranges.push_back({0, header::kSize, "the header"});
  if (entrySeg.length)
    ranges.push_back({entrySeg.offset, entrySeg.length, "the entry table"});
  if (metadataSeg.length)
    ranges.push_back(
        {metadataSeg.offset, metadataSeg.length, "the metadata segment"});
  for (size_t a = 0; a < ranges.size(); ++a)
    for (size_t b = a + 1; b < ranges.size(); ++b)
      if (ranges[a].offset < ranges[b].offset + ranges[b].length &&
          ranges[b].offset < ranges[a].offset + ranges[a].length)
        return Status::formatError(
            ranges[a].what + " [" + std::to_string(ranges[a].offset) + ", +" +
            std::to_string(ranges[a].length) + ") overlaps " + ranges[b].what +
            " [" + std::to_string(ranges[b].offset) + ", +" +
            std::to_string(ranges[b].length) + ")");
  if (storageSeg.length) {
    for (const Range &r : ranges)
      if (r.offset < storageSeg.offset + storageSeg.length &&
          storageSeg.offset < r.offset + r.length)
        return Status::formatError(
            "the storage segment [" + std::to_string(storageSeg.offset) +
            ", +" + std::to_string(storageSeg.length) + ") overlaps " + r.what);
  }
  std::vector<size_t> data;
  for (size_t i = 0; i < entryList.size(); ++i) {
    const IrpaEntry &e = entryList[i];
    if (e.kind != IrpaEntryKind::Data)
      continue;
    if (e.minimumAlignment && e.offset % e.minimumAlignment != 0)
      return Status::formatError(
          "entry '" + printableName(e.key) + "': data at file offset " +
          std::to_string(e.offset) +
          " is not a multiple of its minimum alignment " +
          std::to_string(e.minimumAlignment));
    if (e.length)
      data.push_back(i);
  }
  std::sort(data.begin(), data.end(), [&](size_t a, size_t b) {
    return entryList[a].offset < entryList[b].offset;
  });
  for (size_t k = 1; k < data.size(); ++k) {
    const IrpaEntry &p = entryList[data[k - 1]], &q = entryList[data[k]];
    if (q.offset < p.offset + p.length)
      return Status::formatError(
          "entries '" + printableName(p.key) + "' [" +
          std::to_string(p.offset) + ", +" + std::to_string(p.length) +
          ") and '" + printableName(q.key) + "' [" + std::to_string(q.offset) +
          ", +" + std::to_string(q.length) + ") share bytes");
  }
  return Status::ok();
}
