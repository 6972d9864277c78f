//===- ModuleIndex.cpp - The FlatBuffer index and the entry list ------------===//

#include "ModuleIndex.h"

#include "vmpack/Archive/module_generated.h"

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
    segments.push_back(fb::CreateSegment(
        fbb, name, mlirType, uint8_t(s.elementType.scalar.kind),
        s.elementType.scalar.width, s.elementType.isComplex, shape,
        uint8_t(s.encoding), s.offset, s.length, s.alignment, s.checksum,
        uint8_t(s.sourceKind), sourceKey, s.sourceAlignment));
  }
  auto segmentVector = fbb.CreateVector(segments);
  auto programName = str(c.program.name);
  auto program = fb::CreateEntryRef(fbb, programName, c.program.offset,
                                    c.program.length, c.program.checksum);
  auto moduleName = str(c.moduleName);
  auto producer = str(c.producer);
  auto root = fb::CreateModule(fbb, c.formatVersion, moduleName, producer,
                               segmentVector, program);
  fb::FinishModuleBuffer(fbb, root);
  return std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
                     fbb.GetSize());
}

static std::string toStdString(const flatbuffers::String *s) {
  return s ? std::string(s->data(), s->size()) : std::string();
}

StatusOr<ModuleContents>
vmpack::archive::detail::decodeIndex(const uint8_t *data, size_t size) {
  if (size < 8 || !fb::ModuleBufferHasIdentifier(data))
    return Status::error("index: missing FlatBuffer identifier 'VMPK'");
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::error("index: larger than a FlatBuffer can be");
  // Depth is fixed by the schema; the table budget only bounds the work.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16,
                                 /*max_tables=*/size / 4 + 16);
  if (!fb::VerifyModuleBuffer(verifier))
    return Status::error("index: the FlatBuffer verifier rejected it");
  const fb::Module *m = fb::GetModule(data);

  ModuleContents c;
  c.formatVersion = m->format_version();
  if (c.formatVersion != kFormatVersion)
    return Status::error("index: format version " +
                         std::to_string(c.formatVersion) +
                         " (this reader knows version " +
                         std::to_string(kFormatVersion) + ")");
  c.moduleName = toStdString(m->name());
  c.producer = toStdString(m->producer());
  const fb::EntryRef *program = m->program();
  if (!program)
    return Status::error("index: no program entry");
  c.program.name = toStdString(program->name());
  if (c.program.name != kProgramEntryName)
    return Status::error("index: program entry is named '" +
                         printableName(c.program.name) +
                         "', expected '" + std::string(kProgramEntryName) +
                         "'");
  c.program.offset = program->offset();
  c.program.length = program->length();
  c.program.checksum = program->checksum();

  if (const auto *segments = m->segments()) {
    c.segments.reserve(segments->size());
    for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i) {
      const fb::Segment *fs = segments->Get(i);
      SegmentInfo s;
      s.name = toStdString(fs->name());
      s.mlirType = toStdString(fs->mlir_type());
      s.elementType.scalar.kind = ScalarKind(fs->scalar_kind());
      s.elementType.scalar.width = fs->scalar_width();
      s.elementType.isComplex = fs->is_complex();
      if (const auto *shape = fs->shape()) {
        if (shape->size() > kMaxRank)
          return Status::error("index: segment " + std::to_string(i) +
                               " has rank " + std::to_string(shape->size()));
        // The verifier checks the vector's length field's alignment, not
        // its 8-byte elements': read them bytewise.
        s.shape.resize(shape->size());
        if (!s.shape.empty())
          std::memcpy(s.shape.data(), shape->Data(),
                      s.shape.size() * sizeof(int64_t));
      }
      s.encoding = Encoding(fs->encoding());
      s.offset = fs->offset();
      s.length = fs->length();
      s.alignment = fs->alignment();
      s.checksum = fs->checksum();
      s.sourceKind = SourceKind(fs->source_kind());
      s.sourceKey = toStdString(fs->source_key());
      s.sourceAlignment = fs->source_alignment();
      if (Status st = validateSegment(s); !st)
        return Status::error("index: segment " + std::to_string(i) + ": " +
                             st.message());
      c.segments.push_back(std::move(s));
    }
  }
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
  entries.push_back({std::string(kIndexEntryName), indexLength,
                     kIndexAlignment, indexCrc});
  return entries;
}
