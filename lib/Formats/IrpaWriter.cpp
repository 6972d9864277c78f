//===- IrpaWriter.cpp - Writing an IREE parameter archive -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// planIrpaLayout follows iree_io_parameter_archive_builder_add_*_entry and
// iree_io_parameter_archive_builder_write step by step (docs/irpa.md,
// "Layout"), so the same entry list gives the same bytes. Everything but the
// data is one small buffer written in beginData(); the reserved file reads
// as zero wherever nothing is written, which is all of IREE's padding.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/IrpaWriter.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/WrittenRanges.h"

#include <atomic>
#include <mutex>
#include <unistd.h>
#include <unordered_set>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::irpa;
using namespace vmpack::archive::detail;
using vmpack::archive::printableName;

namespace {

/// The largest alignment accepted for a data entry.
constexpr uint64_t kMaxDataAlignment = uint64_t(1) << 30;

bool alignUp(uint64_t value, uint64_t alignment, uint64_t &out) {
  uint64_t bumped;
  if (__builtin_add_overflow(value, alignment - 1, &bumped))
    return false;
  out = bumped & ~(alignment - 1);
  return true;
}

bool add(uint64_t a, uint64_t b, uint64_t &out) {
  return !__builtin_add_overflow(a, b, &out);
}

void storeRange(uint8_t *p, uint64_t offset, uint64_t length) {
  store<uint64_t>(p, offset);
  store<uint64_t>(p + 8, length);
}

} // namespace

Status vmpack::formats::validateIrpaEntry(const IrpaEntryDesc &e) {
  auto bad = [&](const std::string &what) {
    return Status::invalidArgument("parameter '" + printableName(e.key) +
                                   "': " + what);
  };
  if (e.isSplat) {
    if (!isValidPatternLength(e.patternLength))
      return bad("splat pattern length " + std::to_string(e.patternLength) +
                 " is not 1, 2, 4, 8 or 16 bytes");
    if (e.length % e.patternLength != 0)
      return bad("splat length " + std::to_string(e.length) +
                 " is not a multiple of the pattern length " +
                 std::to_string(e.patternLength));
    for (size_t i = e.patternLength; i < kMaxPatternLength; ++i)
      if (e.pattern[i] != 0)
        return bad("pattern bytes past the pattern length must be zero");
  } else if (e.alignment == 0 || (e.alignment & (e.alignment - 1)) != 0 ||
             e.alignment > kMaxDataAlignment) {
    return bad("alignment " + std::to_string(e.alignment) +
               " is not a power of two in [1, 2^30]");
  }
  return Status::ok();
}

StatusOr<IrpaLayout>
vmpack::formats::planIrpaLayout(const std::vector<IrpaEntryDesc> &entries) {
  IrpaLayout layout;
  layout.entryOffsets.reserve(entries.size());
  layout.storageOffsets.reserve(entries.size());
  uint64_t entrySegment = 0, metadata = 0, storage = 0, storageAlignment = 0;
  auto tooLarge = [](const IrpaEntryDesc &e) {
    return Status::invalidArgument("parameter '" + printableName(e.key) +
                                   "': the archive would exceed 2^64 bytes");
  };
  for (const IrpaEntryDesc &e : entries) {
    if (Status st = validateIrpaEntry(e); !st)
      return st;
    uint64_t record, recordOffset;
    if (!alignUp(entrySegment, kEntryAlignment, record) ||
        !add(record, e.isSplat ? splat::kSize : data::kSize, entrySegment) ||
        !add(kEntryTableOffset, record, recordOffset) ||
        !add(metadata, e.key.size(), metadata) ||
        !add(metadata, e.metadata.size(), metadata))
      return tooLarge(e);
    layout.entryOffsets.push_back(recordOffset);
    if (e.isSplat) {
      layout.storageOffsets.push_back(0);
      continue;
    }
    uint64_t offset;
    if (!alignUp(storage, e.alignment, offset) ||
        !add(offset, e.length, storage))
      return tooLarge(e);
    layout.storageOffsets.push_back(offset);
    // The first data entry sets the storage segment's alignment.
    if (!storageAlignment)
      storageAlignment = e.alignment;
  }
  layout.entrySegmentLength = entrySegment;
  layout.metadataLength = metadata;
  layout.storageLength = storage;
  uint64_t metadataEnd, storageEnd;
  if (!add(kEntryTableOffset, entrySegment, layout.metadataOffset) ||
      !add(layout.metadataOffset, metadata, metadataEnd) ||
      !alignUp(metadataEnd, storageAlignment ? storageAlignment : 1,
               layout.storageOffset) ||
      !add(layout.storageOffset, storage, storageEnd) ||
      !alignUp(storageEnd, kFileAlignment, layout.fileSize))
    return Status::invalidArgument("the archive would exceed 2^64 bytes");
  return layout;
}

std::string
vmpack::formats::encodeIrpaHead(const std::vector<IrpaEntryDesc> &entries,
                                const IrpaLayout &layout) {
  std::string head(size_t(layout.storageOffset), '\0');
  auto *base = reinterpret_cast<uint8_t *>(head.data());

  store<uint32_t>(base + prefix::kMagic, kMagic);
  store<uint16_t>(base + prefix::kVersionMajor, kVersionMajor);
  store<uint16_t>(base + prefix::kVersionMinor, kVersionMinor);
  store<uint64_t>(base + prefix::kHeaderSize, header::kSize);
  store<uint64_t>(base + prefix::kNextHeaderOffset, 0);
  store<uint64_t>(base + prefix::kFlags, 0);
  store<uint64_t>(base + header::kEntryCount, entries.size());
  storeRange(base + header::kEntrySegment, kEntryTableOffset,
             layout.entrySegmentLength);
  storeRange(base + header::kMetadataSegment, layout.metadataOffset,
             layout.metadataLength);
  storeRange(base + header::kStorageSegment, layout.storageOffset,
             layout.storageLength);

  uint64_t metadataCursor = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const IrpaEntryDesc &e = entries[i];
    uint8_t *r = base + layout.entryOffsets[i];
    uint64_t nameOffset = metadataCursor;
    metadataCursor += e.key.size();
    // No metadata is recorded as offset 0, length 0.
    uint64_t metadataOffset = e.metadata.empty() ? 0 : metadataCursor;
    metadataCursor += e.metadata.size();

    store<uint64_t>(r + entry::kEntrySize,
                    e.isSplat ? splat::kSize : data::kSize);
    store<uint32_t>(r + entry::kType,
                    uint32_t(e.isSplat ? EntryType::Splat : EntryType::Data));
    store<uint64_t>(r + entry::kFlags, 0);
    storeRange(r + entry::kName, nameOffset, e.key.size());
    storeRange(r + entry::kMetadata, metadataOffset, e.metadata.size());
    if (e.isSplat) {
      store<uint64_t>(r + entry::kMinimumAlignment, 0);
      store<uint64_t>(r + splat::kLength, e.length);
      std::memcpy(r + splat::kPattern, e.pattern.data(), kMaxPatternLength);
      r[splat::kPatternLength] = e.patternLength;
    } else {
      store<uint64_t>(r + entry::kMinimumAlignment, e.alignment);
      storeRange(r + data::kStorage, layout.storageOffsets[i], e.length);
    }
  }

  char *m = head.data() + layout.metadataOffset;
  for (const IrpaEntryDesc &e : entries) {
    std::memcpy(m, e.key.data(), e.key.size());
    m += e.key.size();
    std::memcpy(m, e.metadata.data(), e.metadata.size());
    m += e.metadata.size();
  }
  return head;
}

namespace vmpack::formats {

class IrpaWriterImpl {
public:
  enum class Phase { Plan, Data, Finished };

  std::string path;
  IrpaWriterOptions options;
  TempOutput out;
  Phase phase = Phase::Plan;

  std::vector<IrpaEntryDesc> entries;
  std::unordered_set<std::string> keys;
  IrpaLayout layout;

  std::mutex mutex;
  /// Written byte ranges of each data entry; guarded by mutex.
  std::vector<archive::detail::WrittenRanges> written;
  /// Records the first failure and removes the temporary file at once.
  Status fail(Status status) { return out.fail(std::move(status)); }
  Status currentError() { return out.firstError(); }

  StatusOr<uint32_t> add(IrpaEntryDesc desc);
  Status recordPiece(uint32_t index, uint64_t start, uint64_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    return written[index].record(start, end, 0, [&] {
      return "parameter '" + printableName(entries[index].key) + "'";
    });
  }
  Status checkCoverage(uint32_t index) {
    const IrpaEntryDesc &e = entries[index];
    if (e.isSplat)
      return Status::ok();
    return written[index].checkComplete(
        e.length, [&] { return "parameter '" + printableName(e.key) + "'"; });
  }
};

} // namespace vmpack::formats

StatusOr<uint32_t> IrpaWriterImpl::add(IrpaEntryDesc desc) {
  if (phase != Phase::Plan)
    return Status::invalidArgument("adding parameter '" +
                                   printableName(desc.key) +
                                   "' after beginData(): the layout is fixed");
  if (out.failed())
    return currentError();
  if (entries.size() >= UINT32_MAX)
    return Status::invalidArgument("too many parameters");
  if (Status st = validateIrpaEntry(desc); !st)
    return st;
  if (!keys.insert(desc.key).second)
    return Status::invalidArgument("duplicate parameter key '" +
                                   printableName(desc.key) + "'");
  entries.push_back(std::move(desc));
  return uint32_t(entries.size() - 1);
}

IrpaWriter::IrpaWriter(std::unique_ptr<IrpaWriterImpl> impl)
    : impl(std::move(impl)) {}

IrpaWriter::~IrpaWriter() = default;

StatusOr<std::unique_ptr<IrpaWriter>>
IrpaWriter::create(const std::string &path, IrpaWriterOptions options) {
  auto impl = std::make_unique<IrpaWriterImpl>();
  impl->path = path;
  impl->options = options;
  if (Status st = impl->out.create(path); !st)
    return st;
  return std::unique_ptr<IrpaWriter>(new IrpaWriter(std::move(impl)));
}

StatusOr<uint32_t> IrpaWriter::addDataEntry(std::string key, uint64_t length,
                                            uint64_t alignment,
                                            std::string metadata) {
  IrpaEntryDesc e;
  e.key = std::move(key);
  e.metadata = std::move(metadata);
  e.length = length;
  e.alignment = alignment;
  return impl->add(std::move(e));
}

StatusOr<uint32_t> IrpaWriter::addSplatEntry(std::string key, uint64_t length,
                                             const void *pattern,
                                             size_t patternLength,
                                             std::string metadata) {
  IrpaEntryDesc e;
  e.key = std::move(key);
  e.metadata = std::move(metadata);
  e.isSplat = true;
  e.length = length;
  if (!isValidPatternLength(patternLength) || !pattern)
    return Status::invalidArgument(
        "parameter '" + printableName(e.key) + "': splat pattern length " +
        std::to_string(patternLength) + " is not 1, 2, 4, 8 or 16 bytes");
  std::memcpy(e.pattern.data(), pattern, patternLength);
  e.patternLength = uint8_t(patternLength);
  return impl->add(std::move(e));
}

Status IrpaWriter::beginData() {
  IrpaWriterImpl &w = *impl;
  if (w.phase != IrpaWriterImpl::Phase::Plan)
    return Status::invalidArgument("beginData() called twice");
  if (w.out.failed())
    return w.currentError();
  StatusOr<IrpaLayout> layout = planIrpaLayout(w.entries);
  if (!layout)
    return w.fail(layout.status());
  w.layout = std::move(*layout);
  if (w.layout.storageOffset > SIZE_MAX / 2)
    return w.fail(Status::invalidArgument(
        "the archive's header and names would need " +
        std::to_string(w.layout.storageOffset) + " bytes"));
  w.written.resize(w.entries.size());
  // Reserve every block now, so that a full disk or a file-size limit is
  // reported here rather than halfway through the data.
  if (Status st = reserveFileSpace(w.out.fd(), w.layout.fileSize, w.path); !st)
    return w.fail(st);
  std::string head = encodeIrpaHead(w.entries, w.layout);
  if (Status st = pwriteAll(w.out.fd(), head.data(), head.size(), 0,
                            "writing the archive header of '" + w.path + "'");
      !st)
    return w.fail(st);
  w.phase = IrpaWriterImpl::Phase::Data;
  return Status::ok();
}

Status IrpaWriter::writeEntryData(uint32_t index, uint64_t offsetInEntry,
                                  const void *data, size_t size) {
  IrpaWriterImpl &w = *impl;
  if (w.phase != IrpaWriterImpl::Phase::Data)
    return Status::invalidArgument(
        "writeEntryData outside beginData() ... finish()");
  if (w.out.failed())
    return w.currentError();
  if (index >= w.entries.size())
    return w.fail(Status::invalidArgument(
        "writeEntryData: no parameter number " + std::to_string(index)));
  const IrpaEntryDesc &e = w.entries[index];
  if (e.isSplat)
    return w.fail(
        Status::invalidArgument("parameter '" + printableName(e.key) +
                                "' is a splat: it has no data to write"));
  uint64_t end;
  if (__builtin_add_overflow(offsetInEntry, uint64_t(size), &end) ||
      end > e.length)
    return w.fail(Status::invalidArgument(
        "parameter '" + printableName(e.key) + "': chunk [" +
        std::to_string(offsetInEntry) + ", +" + std::to_string(size) +
        ") exceeds its length " + std::to_string(e.length)));
  if (size == 0)
    return Status::ok();
  if (Status st = w.recordPiece(index, offsetInEntry, end); !st)
    return w.fail(st);
  if (Status st = pwriteAll(w.out.fd(), data, size,
                            entryFileOffset(index) + offsetInEntry,
                            "writing parameter '" + printableName(e.key) +
                                "' to '" + w.path + "'");
      !st)
    return w.fail(st);
  return Status::ok();
}

Status IrpaWriter::finish() {
  IrpaWriterImpl &w = *impl;
  if (w.phase == IrpaWriterImpl::Phase::Plan)
    return w.fail(Status::invalidArgument("finish() without beginData()"));
  if (w.phase == IrpaWriterImpl::Phase::Finished)
    return Status::invalidArgument("finish() called twice");
  if (w.out.failed())
    return w.currentError();
  for (uint32_t i = 0; i < w.entries.size(); ++i)
    if (Status st = w.checkCoverage(i); !st)
      return w.fail(st);
  w.written.clear();
  Status committed = w.out.commit(w.options.fsync);
  if (w.out.committed())
    w.phase = IrpaWriterImpl::Phase::Finished;
  return committed;
}

uint64_t IrpaWriter::plannedFileSize() const { return impl->layout.fileSize; }

uint64_t IrpaWriter::entryFileOffset(uint32_t index) const {
  return impl->layout.storageOffset + impl->layout.storageOffsets.at(index);
}

const std::vector<IrpaEntryDesc> &IrpaWriter::entries() const {
  return impl->entries;
}
