//===- ArchiveWriter.cpp - Writing a module archive -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The layout is planned in beginData(), before any data exists: segment
// sizes are declared, and the index's size does not depend on the values
// (checksums) that are only known at the end (see buildIndex). Producers then
// pwrite chunks at their final offsets in any order; the CRC of each chunk is
// merged with its neighbours' as soon as they touch, so the bookkeeping stays
// small for in-order producers and the final CRC needs no second pass.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/ArchiveWriter.h"

#include "ModuleIndex.h"
#include "ZipLayout.h"
#include "vmpack/Archive/Checksum.h"
#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/SegmentInfo.h"
#include "vmpack/Archive/WrittenRanges.h"

#include <atomic>
#include <mutex>
#include <unistd.h>
#include <unordered_set>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::detail;

namespace vmpack::archive {

class ArchiveWriterImpl {
public:
  enum class Phase { Plan, Data, Finished };

  std::string path;
  WriterOptions options;
  TempOutput out;
  Phase phase = Phase::Plan;

  ModuleContents contents;
  std::string programBytes;
  std::unordered_set<std::string> names;

  std::vector<ZipEntry> entries;
  ZipPlan plan;
  uint64_t indexLength = 0;

  std::mutex mutex;
  std::vector<WrittenRanges> written; // by segment; guarded by mutex
  /// Records the first failure and removes the temporary file at once.
  Status fail(Status status) { return out.fail(std::move(status)); }
  Status currentError() { return out.firstError(); }

  Status recordPiece(uint32_t segment, uint64_t start, uint64_t end,
                     uint32_t crc) {
    std::lock_guard<std::mutex> lock(mutex);
    return written[segment].record(start, end, crc, [&] {
      return "segment '" + contents.segments[segment].name + "'";
    });
  }
  Status checkCoverage(uint32_t segment, uint32_t &crc);
};

} // namespace vmpack::archive

Status ArchiveWriterImpl::checkCoverage(uint32_t segment, uint32_t &crc) {
  const SegmentInfo &s = contents.segments[segment];
  if (Status st = written[segment].checkComplete(
          s.length, [&] { return "segment '" + s.name + "'"; });
      !st)
    return st;
  std::optional<uint32_t> whole = written[segment].checksum(s.length);
  if (!whole)
    return Status::internalError("segment '" + s.name +
                                 "': written ranges do not merge");
  crc = *whole;
  return Status::ok();
}

ArchiveWriter::ArchiveWriter(std::unique_ptr<ArchiveWriterImpl> impl)
    : impl(std::move(impl)) {}

ArchiveWriter::~ArchiveWriter() = default;

StatusOr<std::unique_ptr<ArchiveWriter>>
ArchiveWriter::create(const std::string &path, WriterOptions options) {
  auto impl = std::make_unique<ArchiveWriterImpl>();
  impl->path = path;
  impl->options = std::move(options);
  impl->contents.moduleName = impl->options.moduleName;
  impl->contents.producer = impl->options.producer;
  impl->contents.metadata = impl->options.metadata;
  if (Status st = validateMetadata(impl->contents.metadata); !st)
    return st;
  impl->contents.program.name = std::string(kProgramEntryName);
  if (Status st = impl->out.create(path); !st)
    return st;
  return std::unique_ptr<ArchiveWriter>(new ArchiveWriter(std::move(impl)));
}

StatusOr<uint32_t> ArchiveWriter::addSegment(SegmentDesc desc) {
  if (impl->phase != ArchiveWriterImpl::Phase::Plan)
    return Status::invalidArgument("addSegment('" + desc.name +
                                   "') after beginData(): the layout is fixed");
  if (impl->out.failed())
    return impl->currentError();
  if (impl->contents.segments.size() >= UINT32_MAX)
    return Status::invalidArgument("too many segments");
  SegmentInfo s(std::move(desc));
  if (Status st = validateSegment(s); !st)
    return st;
  if (!impl->names.insert(s.name).second)
    return Status::invalidArgument("duplicate segment name '" + s.name + "'");
  impl->contents.segments.push_back(std::move(s));
  return uint32_t(impl->contents.segments.size() - 1);
}

Status ArchiveWriter::addAlias(AliasDesc desc) {
  if (impl->phase != ArchiveWriterImpl::Phase::Plan)
    return Status::invalidArgument("addAlias('" + desc.name +
                                   "') after beginData(): the layout is fixed");
  if (impl->out.failed())
    return impl->currentError();
  ModuleContents &c = impl->contents;
  if (desc.segment >= c.segments.size())
    return Status::invalidArgument("alias '" + desc.name +
                                   "' refers to segment " +
                                   std::to_string(desc.segment) + " of " +
                                   std::to_string(c.segments.size()));
  uint32_t segment = desc.segment;
  SegmentInfo a(std::move(desc), segment);
  if (Status st = validateAlias(a, c.segments[desc.segment]); !st)
    return Status::invalidArgument("alias '" + a.name + "' of segment '" +
                                   c.segments[desc.segment].name +
                                   "': " + st.message());
  if (!impl->names.insert(a.name).second)
    return Status::invalidArgument("duplicate segment name '" + a.name + "'");
  c.aliases.push_back(std::move(a));
  return Status::ok();
}

void ArchiveWriter::setProgram(std::string bytes) {
  impl->programBytes = std::move(bytes);
}

Status ArchiveWriter::beginData() {
  ArchiveWriterImpl &w = *impl;
  if (w.phase != ArchiveWriterImpl::Phase::Plan)
    return Status::invalidArgument("beginData() called twice");
  if (w.out.failed())
    return w.currentError();
  ModuleContents &c = w.contents;
  c.formatVersion = requiredFormatVersion(c);
  c.program.length = w.programBytes.size();
  c.program.checksum =
      crc32Update(0, w.programBytes.data(), w.programBytes.size());
  // Checksums and offsets are still zero; they do not change the size.
  w.indexLength = buildIndex(c).size();
  w.entries = moduleEntries(c.segments, c.program, w.indexLength, 0);
  StatusOr<ZipPlan> plan = planZip(w.entries, kTrailerLength);
  if (!plan)
    return w.fail(plan.status());
  w.plan = std::move(*plan);
  for (size_t i = 0; i < c.segments.size(); ++i)
    c.segments[i].offset = w.plan.entries[i].dataOffset;
  c.program.offset = w.plan.entries[c.segments.size()].dataOffset;
  w.written.resize(c.segments.size());

  // Reserve every block now, so that a full disk or a file-size limit is
  // reported here rather than halfway through the data.
  if (Status st = reserveFileSpace(w.out.fd(), w.plan.fileSize, w.path); !st)
    return w.fail(st);
  if (Status st = pwriteAll(w.out.fd(), w.programBytes.data(),
                            w.programBytes.size(), c.program.offset,
                            "writing the program of '" + w.path + "'");
      !st)
    return w.fail(st);
  w.programBytes.clear();
  w.programBytes.shrink_to_fit();
  w.phase = ArchiveWriterImpl::Phase::Data;
  return Status::ok();
}

Status ArchiveWriter::writeSegmentData(uint32_t segment,
                                       uint64_t offsetInSegment,
                                       const void *data, size_t size) {
  ArchiveWriterImpl &w = *impl;
  if (w.phase != ArchiveWriterImpl::Phase::Data)
    return Status::invalidArgument(
        "writeSegmentData outside beginData() ... finish()");
  if (w.out.failed())
    return w.currentError();
  if (segment >= w.contents.segments.size())
    return w.fail(Status::invalidArgument(
        "writeSegmentData: no segment number " + std::to_string(segment)));
  const SegmentInfo &s = w.contents.segments[segment];
  uint64_t end;
  if (__builtin_add_overflow(offsetInSegment, uint64_t(size), &end) ||
      end > s.length)
    return w.fail(Status::invalidArgument(
        "segment '" + s.name + "': chunk [" + std::to_string(offsetInSegment) +
        ", +" + std::to_string(size) + ") exceeds its length " +
        std::to_string(s.length)));
  if (size == 0)
    return Status::ok();
  uint32_t crc = crc32Update(0, data, size);
  if (Status st =
          pwriteAll(w.out.fd(), data, size, s.offset + offsetInSegment,
                    "writing segment '" + s.name + "' to '" + w.path + "'");
      !st)
    return w.fail(st);
  if (Status st = w.recordPiece(segment, offsetInSegment, end, crc); !st)
    return w.fail(st);
  return Status::ok();
}

Status ArchiveWriter::finish() {
  ArchiveWriterImpl &w = *impl;
  if (w.phase == ArchiveWriterImpl::Phase::Plan)
    return w.fail(Status::invalidArgument("finish() without beginData()"));
  if (w.phase == ArchiveWriterImpl::Phase::Finished)
    return Status::invalidArgument("finish() called twice");
  if (w.out.failed())
    return w.currentError();
  ModuleContents &c = w.contents;
  for (uint32_t i = 0; i < c.segments.size(); ++i) {
    if (Status st = w.checkCoverage(i, c.segments[i].checksum); !st)
      return w.fail(st);
    w.entries[i].crc = c.segments[i].checksum;
  }
  w.written.clear();

  std::string index = buildIndex(c);
  if (index.size() != w.indexLength)
    return w.fail(
        Status::internalError("internal error: the index changed size from " +
                              std::to_string(w.indexLength) + " to " +
                              std::to_string(index.size()) + " bytes"));
  uint32_t indexCrc = crc32Update(0, index.data(), index.size());
  w.entries.back().crc = indexCrc;
  const ZipPlacement &indexPlacement = w.plan.entries.back();

  for (size_t i = 0; i < w.entries.size(); ++i) {
    std::string prefix = localPrefixBytes(w.entries[i], w.plan.entries[i]);
    if (Status st = pwriteAll(w.out.fd(), prefix.data(), prefix.size(),
                              w.plan.entries[i].prefixOffset,
                              "writing ZIP headers to '" + w.path + "'");
        !st)
      return w.fail(st);
  }
  if (Status st = pwriteAll(w.out.fd(), index.data(), index.size(),
                            indexPlacement.dataOffset,
                            "writing the index to '" + w.path + "'");
      !st)
    return w.fail(st);
  Trailer trailer;
  trailer.formatVersion = w.contents.formatVersion;
  trailer.indexOffset = indexPlacement.dataOffset;
  trailer.indexLength = index.size();
  trailer.indexChecksum = indexCrc;
  std::string tail =
      centralDirectoryAndEndBytes(w.entries, w.plan, formatTrailer(trailer));
  if (Status st = pwriteAll(
          w.out.fd(), tail.data(), tail.size(), w.plan.centralDirectoryOffset,
          "writing the central directory to '" + w.path + "'");
      !st)
    return w.fail(st);

  Status committed = w.out.commit(w.options.fsync);
  if (w.out.committed())
    w.phase = ArchiveWriterImpl::Phase::Finished;
  return committed;
}

uint64_t ArchiveWriter::plannedFileSize() const { return impl->plan.fileSize; }

uint64_t ArchiveWriter::segmentFileOffset(uint32_t segment) const {
  return impl->contents.segments.at(segment).offset;
}
