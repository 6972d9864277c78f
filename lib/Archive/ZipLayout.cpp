//===- ZipLayout.cpp - Planning and emitting ZIP metadata
//-------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Field by field this follows PKWARE's APPNOTE 6.3 and docs/format.md,
// section 3. Every choice that a ZIP writer may make freely (timestamps,
// versions, attributes, when to use zip64) is fixed here, so the metadata is
// a function of the entries alone.
//
//===----------------------------------------------------------------------===//

#include "ZipLayout.h"

#include "vmpack/Archive/Format.h"

#include <cassert>

using namespace vmpack::archive;

namespace {

constexpr uint64_t kMaxExtraSize = 0xFFFF;

constexpr uint32_t k32BitMax = 0xFFFFFFFF;
/// 1980-01-01 00:00:00, the earliest DOS date: fixed for determinism.
constexpr uint16_t kDosTime = 0;
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
constexpr uint16_t kVersionStored = 10;
constexpr uint16_t kVersionZip64 = 45;
/// Made by "Unix" so that the external attributes mean a 0644 regular file.
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint32_t kExternalAttributes = 0100644u << 16;

bool needs64(uint64_t v) { return v >= k32BitMax; }

bool addChecked(uint64_t a, uint64_t b, uint64_t &out) {
  return !__builtin_add_overflow(a, b, &out);
}

struct ByteWriter {
  std::string &out;
  void u16(uint16_t v) {
    out.push_back(char(v & 0xFF));
    out.push_back(char(v >> 8));
  }
  void u32(uint32_t v) {
    u16(uint16_t(v));
    u16(uint16_t(v >> 16));
  }
  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }
  void bytes(const std::string &s) { out += s; }
  void zeros(size_t n) { out.append(n, '\0'); }
};

uint16_t versionNeeded(const ZipEntry &e, const ZipPlacement &p) {
  return needs64(e.length) || needs64(p.headerOffset) ? kVersionZip64
                                                      : kVersionStored;
}

/// Size of the zip64 extra block in the central header, 0 if none.
uint64_t centralZip64ExtraSize(const ZipEntry &e, const ZipPlacement &p) {
  uint64_t fields =
      (needs64(e.length) ? 16 : 0) + (needs64(p.headerOffset) ? 8 : 0);
  return fields ? zip::kExtraHeaderSize + fields : 0;
}

} // namespace

StatusOr<ZipPlan> vmpack::archive::planZip(const std::vector<ZipEntry> &entries,
                                           size_t commentLength) {
  if (commentLength > zip::end::kMaxCommentLength)
    return Status::invalidArgument("ZIP comment longer than 65535 bytes");
  ZipPlan plan;
  plan.entries.reserve(entries.size());
  const Status overflow =
      Status::invalidArgument("archive layout overflows 64-bit file offsets");
  uint64_t offset = 0;
  for (const ZipEntry &e : entries) {
    if (!isValidAlignment(e.alignment))
      return Status::invalidArgument("entry '" + e.name + "': alignment " +
                                     std::to_string(e.alignment) +
                                     " is not a power of two in [1, 65536]");
    if (e.name.empty() || e.name.size() > 0xFFFF)
      return Status::invalidArgument("entry name length " +
                                     std::to_string(e.name.size()) +
                                     " is not in [1, 65535]");
    ZipPlacement p;
    p.prefixOffset = offset;
    p.zip64Sizes = needs64(e.length);
    uint64_t zip64Extra = p.zip64Sizes ? zip::local::kZip64ExtraSize : 0;
    uint64_t base;
    if (!addChecked(offset, zip::local::kSize + e.name.size() + zip64Extra,
                    base))
      return overflow;
    uint64_t a = e.alignment;
    uint64_t g = (a - base % a) % a;
    // Padding lives in an extra block (4-byte header + zeros), so it is
    // either 0 or at least 4 bytes, and the whole extra field fits 16 bits.
    if (g == 0) {
    } else if (g >= 4 && zip64Extra + g <= kMaxExtraSize) {
      p.paddingBlockSize = uint32_t(g);
    } else if (uint64_t pad = g + (4 - g + a - 1) / a * a;
               g < 4 && zip64Extra + pad <= kMaxExtraSize) {
      // The least g + k * a that holds the block's 4-byte header.
      p.paddingBlockSize = uint32_t(pad);
    } else {
      // Only for 65536-byte alignment: shift the header instead.
      p.gap = uint32_t(g);
    }
    p.headerOffset = offset + p.gap;
    if (!addChecked(base, uint64_t(p.gap) + p.paddingBlockSize, p.dataOffset) ||
        !addChecked(p.dataOffset, e.length, offset))
      return overflow;
    plan.entries.push_back(p);
  }
  plan.centralDirectoryOffset = offset;
  uint64_t cdSize = 0;
  for (size_t i = 0; i < entries.size(); ++i)
    if (!addChecked(cdSize,
                    zip::central::kSize + entries[i].name.size() +
                        centralZip64ExtraSize(entries[i], plan.entries[i]),
                    cdSize))
      return overflow;
  plan.centralDirectorySize = cdSize;
  plan.zip64End = entries.size() >= 0xFFFF || needs64(cdSize) ||
                  needs64(plan.centralDirectoryOffset);
  if (!addChecked(offset, cdSize, plan.endRecordsOffset))
    return overflow;
  uint64_t tail =
      (plan.zip64End ? zip::zip64End::kSize + zip::zip64Locator::kSize : 0) +
      zip::end::kSize + commentLength;
  if (!addChecked(plan.endRecordsOffset, tail, plan.fileSize))
    return overflow;
  return plan;
}

std::string vmpack::archive::localPrefixBytes(const ZipEntry &e,
                                              const ZipPlacement &p) {
  std::string out;
  ByteWriter w{out};
  uint64_t extraSize =
      (p.zip64Sizes ? zip::local::kZip64ExtraSize : 0) + p.paddingBlockSize;
  out.reserve(p.gap + zip::local::kSize + e.name.size() + extraSize);
  w.zeros(p.gap);
  w.u32(zip::local::kSignature);
  w.u16(versionNeeded(e, p));
  w.u16(0); // flags
  w.u16(0); // method: stored
  w.u16(kDosTime);
  w.u16(kDosDate);
  w.u32(e.crc);
  uint32_t size32 = p.zip64Sizes ? k32BitMax : uint32_t(e.length);
  w.u32(size32); // compressed
  w.u32(size32); // uncompressed
  w.u16(uint16_t(e.name.size()));
  w.u16(uint16_t(extraSize));
  assert(out.size() == p.gap + zip::local::kSize);
  w.bytes(e.name);
  if (p.zip64Sizes) {
    w.u16(zip::kZip64ExtraId);
    w.u16(zip::local::kZip64ExtraSize - zip::kExtraHeaderSize);
    w.u64(e.length); // uncompressed
    w.u64(e.length); // compressed
  }
  if (p.paddingBlockSize) {
    w.u16(kPaddingExtraId);
    w.u16(uint16_t(p.paddingBlockSize - zip::kExtraHeaderSize));
    w.zeros(p.paddingBlockSize - zip::kExtraHeaderSize);
  }
  return out;
}

std::string vmpack::archive::centralDirectoryAndEndBytes(
    const std::vector<ZipEntry> &entries, const ZipPlan &plan,
    const std::string &comment) {
  std::string out;
  ByteWriter w{out};
  out.reserve(plan.fileSize - plan.centralDirectoryOffset);
  for (size_t i = 0; i < entries.size(); ++i) {
    const ZipEntry &e = entries[i];
    const ZipPlacement &p = plan.entries[i];
    uint16_t needed = versionNeeded(e, p);
    [[maybe_unused]] size_t start = out.size();
    w.u32(zip::central::kSignature);
    w.u16(kMadeByUnix | needed);
    w.u16(needed);
    w.u16(0); // flags
    w.u16(0); // method: stored
    w.u16(kDosTime);
    w.u16(kDosDate);
    w.u32(e.crc);
    uint32_t size32 = needs64(e.length) ? k32BitMax : uint32_t(e.length);
    w.u32(size32);
    w.u32(size32);
    w.u16(uint16_t(e.name.size()));
    w.u16(uint16_t(centralZip64ExtraSize(e, p)));
    w.u16(0); // comment length
    w.u16(0); // disk number start
    w.u16(0); // internal attributes
    w.u32(kExternalAttributes);
    w.u32(needs64(p.headerOffset) ? k32BitMax : uint32_t(p.headerOffset));
    assert(out.size() - start == zip::central::kSize);
    w.bytes(e.name);
    if (uint64_t extra = centralZip64ExtraSize(e, p)) {
      w.u16(zip::kZip64ExtraId);
      w.u16(uint16_t(extra - zip::kExtraHeaderSize));
      if (needs64(e.length)) {
        w.u64(e.length);
        w.u64(e.length);
      }
      if (needs64(p.headerOffset))
        w.u64(p.headerOffset);
    }
  }
  uint64_t count = entries.size();
  [[maybe_unused]] size_t start = out.size();
  if (plan.zip64End) {
    w.u32(zip::zip64End::kSignature);
    w.u64(zip::zip64End::kRecordSizeValue); // size of the rest of the record
    w.u16(kMadeByUnix | kVersionZip64);
    w.u16(kVersionZip64);
    w.u32(0); // this disk
    w.u32(0); // disk with the central directory
    w.u64(count);
    w.u64(count);
    w.u64(plan.centralDirectorySize);
    w.u64(plan.centralDirectoryOffset);
    assert(out.size() - start == zip::zip64End::kSize);
    start = out.size();
    w.u32(zip::zip64Locator::kSignature);
    w.u32(0); // disk with the zip64 end record
    w.u64(plan.endRecordsOffset);
    w.u32(1); // total disks
    assert(out.size() - start == zip::zip64Locator::kSize);
  }
  start = out.size();
  w.u32(zip::end::kSignature);
  w.u16(0);
  w.u16(0);
  uint16_t count16 = count >= 0xFFFF ? 0xFFFF : uint16_t(count);
  w.u16(count16);
  w.u16(count16);
  w.u32(needs64(plan.centralDirectorySize)
            ? k32BitMax
            : uint32_t(plan.centralDirectorySize));
  w.u32(needs64(plan.centralDirectoryOffset)
            ? k32BitMax
            : uint32_t(plan.centralDirectoryOffset));
  w.u16(uint16_t(comment.size()));
  assert(out.size() - start == zip::end::kSize);
  w.bytes(comment);
  return out;
}
