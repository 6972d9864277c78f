//===- ModuleIndex.cpp - The FlatBuffer index and the entry list
//------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "ModuleIndex.h"

#include "vmpack/Archive/module_generated.h"

#include <algorithm>
#include <cstring>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::detail;

std::string vmpack::archive::detail::buildIndex(const ModuleContents &c) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  fbb.ForceDefaults(true);
  auto str = [&](const std::string &s) {
    return fbb.CreateString(s.data(), s.size());
  };
  std::vector<flatbuffers::Offset<fb::Segment>> segments;
  segments.reserve(c.segments.size());
  for (const SegmentInfo &s : c.segments) {
    auto name = str(s.name);
    auto mlirType = str(s.mlirType);
    auto shape = fbb.CreateVector(s.shape);
    auto sourceKey = str(s.sourceKey);
    // Absent (a null offset, never stored) unless the segment is foreign,
    // so that version-1 indexes keep their bytes.
    flatbuffers::Offset<fb::Foreign> foreign;
    if (s.foreignKind != kForeignNone)
      foreign = fb::CreateForeign(fbb, s.foreignKind, s.foreignType,
                                  fbb.CreateVector(s.foreignShape));
    segments.push_back(fb::CreateSegment(
        fbb, name, mlirType, uint8_t(s.elementType.scalar.kind),
        s.elementType.scalar.width, s.elementType.isComplex, shape,
        uint8_t(s.encoding), s.offset, s.length, s.alignment, s.checksum,
        uint8_t(s.sourceKind), sourceKey, s.sourceAlignment, foreign));
  }
  auto segmentVector = fbb.CreateVector(segments);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Alias>>>
      aliasVector;
  if (!c.aliases.empty()) {
    std::vector<flatbuffers::Offset<fb::Alias>> aliases;
    for (const SegmentInfo &a : c.aliases) {
      auto name = str(a.name);
      auto mlirType = str(a.mlirType);
      auto shape = fbb.CreateVector(a.shape);
      auto sourceKey = str(a.sourceKey);
      aliases.push_back(fb::CreateAlias(
          fbb, name, mlirType, uint8_t(a.elementType.scalar.kind),
          a.elementType.scalar.width, a.elementType.isComplex, shape, a.aliasOf,
          uint8_t(a.sourceKind), sourceKey, a.sourceAlignment));
    }
    aliasVector = fbb.CreateVector(aliases);
  }
  auto programName = str(c.program.name);
  auto program = fb::CreateEntryRef(fbb, programName, c.program.offset,
                                    c.program.length, c.program.checksum);
  auto moduleName = str(c.moduleName);
  auto producer = str(c.producer);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>>
      metadataVector;
  if (!c.metadata.empty()) {
    std::vector<flatbuffers::Offset<fb::KeyValue>> entries;
    for (const auto &[key, value] : c.metadata) {
      auto k = str(key);
      auto v = str(value);
      entries.push_back(fb::CreateKeyValue(fbb, k, v));
    }
    metadataVector = fbb.CreateVector(entries);
  }
  auto root =
      fb::CreateModule(fbb, c.formatVersion, moduleName, producer,
                       segmentVector, program, aliasVector, metadataVector);
  fb::FinishModuleBuffer(fbb, root);
  return std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
                     fbb.GetSize());
}

uint32_t
vmpack::archive::detail::requiredFormatVersion(const ModuleContents &c) {
  uint32_t version = kMinFormatVersion;
  if (!c.aliases.empty())
    version = std::max(version, kAliasFormatVersion);
  if (!c.metadata.empty())
    version = std::max(version, kMetadataFormatVersion);
  for (const SegmentInfo &s : c.segments)
    if (s.foreignKind != kForeignNone)
      version = std::max(version, kMetadataFormatVersion);
  return version;
}

static std::string toStdString(const flatbuffers::String *s) {
  return s ? std::string(s->data(), s->size()) : std::string();
}

/// Reads a shape vector (rank-checked, bytewise: the verifier checks the
/// vector's length field's alignment, not its 8-byte elements').
static Status readShape(const flatbuffers::Vector<int64_t> *shape,
                        std::vector<int64_t> &out, const std::string &what) {
  if (!shape)
    return Status::ok();
  if (shape->size() > kMaxRank)
    return Status::formatError("index: " + what + " has rank " +
                               std::to_string(shape->size()));
  out.resize(shape->size());
  if (!out.empty())
    std::memcpy(out.data(), shape->Data(), out.size() * sizeof(int64_t));
  return Status::ok();
}

/// The fields segment and alias records share (fb::Segment, fb::Alias).
template <typename Record>
static Status readConstant(const Record *r, SegmentInfo &s,
                           const std::string &what) {
  s.name = toStdString(r->name());
  s.mlirType = toStdString(r->mlir_type());
  s.elementType.scalar.kind = ScalarKind(r->scalar_kind());
  s.elementType.scalar.width = r->scalar_width();
  s.elementType.isComplex = r->is_complex();
  s.sourceKind = SourceKind(r->source_kind());
  s.sourceKey = toStdString(r->source_key());
  s.sourceAlignment = r->source_alignment();
  return readShape(r->shape(), s.shape, what);
}

StatusOr<ModuleContents>
vmpack::archive::detail::decodeIndex(const uint8_t *data, size_t size) {
  if (size < 8 || !fb::ModuleBufferHasIdentifier(data))
    return Status::formatError("index: missing FlatBuffer identifier 'VMPK'");
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::formatError("index: larger than a FlatBuffer can be");
  // Depth is fixed by the schema; the table budget only bounds the work.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16,
                                 /*max_tables=*/size / 4 + 16);
  if (!fb::VerifyModuleBuffer(verifier))
    return Status::formatError("index: the FlatBuffer verifier rejected it");
  const fb::Module *m = fb::GetModule(data);

  ModuleContents c;
  c.formatVersion = m->format_version();
  if (!isKnownFormatVersion(c.formatVersion))
    return Status::unsupported(
        "index: format version " + std::to_string(c.formatVersion) +
        " (this reader knows versions " + std::to_string(kMinFormatVersion) +
        " to " + std::to_string(kFormatVersion) + ")");
  c.moduleName = toStdString(m->name());
  c.producer = toStdString(m->producer());
  const fb::EntryRef *program = m->program();
  if (!program)
    return Status::formatError("index: no program entry");
  c.program.name = toStdString(program->name());
  if (c.program.name != kProgramEntryName)
    return Status::formatError("index: program entry is named '" +
                               printableName(c.program.name) + "', expected '" +
                               std::string(kProgramEntryName) + "'");
  c.program.offset = program->offset();
  c.program.length = program->length();
  c.program.checksum = program->checksum();

  if (const auto *segments = m->segments()) {
    c.segments.reserve(segments->size());
    for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i) {
      const fb::Segment *fs = segments->Get(i);
      SegmentInfo s;
      if (Status st = readConstant(fs, s, "segment " + std::to_string(i)); !st)
        return st;
      s.encoding = Encoding(fs->encoding());
      s.offset = fs->offset();
      s.length = fs->length();
      s.alignment = fs->alignment();
      s.checksum = fs->checksum();
      if (const fb::Foreign *foreign = fs->foreign()) {
        if (c.formatVersion < kMetadataFormatVersion)
          return Status::formatError("index: segment " + std::to_string(i) +
                                     ": a foreign type needs format version " +
                                     std::to_string(kMetadataFormatVersion));
        s.foreignKind = foreign->kind();
        s.foreignType = foreign->type();
        if (s.foreignKind == kForeignNone)
          return Status::formatError("index: segment " + std::to_string(i) +
                                     ": foreign record of kind 0");
        if (Status st =
                readShape(foreign->shape(), s.foreignShape,
                          "segment " + std::to_string(i) + "'s foreign shape");
            !st)
          return st;
      }
      if (Status st = validateSegment(s); !st)
        return Status::formatError("index: segment " + std::to_string(i) +
                                   ": " + st.message());
      c.segments.push_back(std::move(s));
    }
  }
  if (const auto *aliases = m->aliases()) {
    if (c.formatVersion < kAliasFormatVersion)
      return Status::formatError("index: aliases need format version " +
                                 std::to_string(kAliasFormatVersion) +
                                 ", the index says " +
                                 std::to_string(c.formatVersion));
    c.aliases.reserve(aliases->size());
    for (flatbuffers::uoffset_t i = 0; i < aliases->size(); ++i) {
      const fb::Alias *fa = aliases->Get(i);
      std::string what = "alias " + std::to_string(i);
      SegmentInfo a;
      if (Status st = readConstant(fa, a, what); !st)
        return st;
      a.aliasOf = fa->segment();
      if (a.aliasOf >= c.segments.size())
        return Status::formatError("index: " + what + " refers to segment " +
                                   std::to_string(a.aliasOf) + " of " +
                                   std::to_string(c.segments.size()));
      if (Status st = validateAlias(a, c.segments[a.aliasOf]); !st)
        return Status::formatError("index: " + what + ": " + st.message());
      c.aliases.push_back(std::move(a));
    }
  }
  if (const auto *metadata = m->metadata()) {
    if (c.formatVersion < kMetadataFormatVersion)
      return Status::formatError("index: metadata needs format version " +
                                 std::to_string(kMetadataFormatVersion) +
                                 ", the index says " +
                                 std::to_string(c.formatVersion));
    c.metadata.reserve(metadata->size());
    for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i) {
      const fb::KeyValue *kv = metadata->Get(i);
      c.metadata.emplace_back(toStdString(kv->key()), toStdString(kv->value()));
    }
    if (Status st = validateMetadata(c.metadata); !st)
      return Status::formatError("index: " + st.message());
  }
  if (c.formatVersion != requiredFormatVersion(c))
    return Status::formatError("index: format version " +
                               std::to_string(c.formatVersion) +
                               " is not the lowest that holds this module (" +
                               std::to_string(requiredFormatVersion(c)) + ")");
  return c;
}

std::vector<ZipEntry> vmpack::archive::detail::moduleEntries(
    const std::vector<SegmentInfo> &segments, const EntryInfo &program,
    uint64_t indexLength, uint32_t indexCrc) {
  std::vector<ZipEntry> entries;
  entries.reserve(segments.size() + 2);
  for (const SegmentInfo &s : segments)
    entries.push_back(
        {escapeSegmentName(s.name), s.length, s.alignment, s.checksum});
  entries.push_back({std::string(kProgramEntryName), program.length,
                     kProgramAlignment, program.checksum});
  entries.push_back(
      {std::string(kIndexEntryName), indexLength, kIndexAlignment, indexCrc});
  return entries;
}
