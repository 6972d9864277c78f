//===- vmpack-dump.cpp - Inspect, verify and extract module archives ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reads modules through the archive layer only: no MLIR, no LLVM. IREE
// parameter archives (.irpa), recognised by their first bytes, go through
// the formats layer (DumpIrpa.cpp), as do safetensors and GGUF files and
// their sets (DumpWeights.cpp) and ONNX models (DumpOnnx.cpp). The first file
// of a sharded .vmpk set (docs/format.md section 9) shows the whole set, its
// files found and checked by the formats layer (openWeightSet); any other file
// of a set shows that file alone, saying which set it belongs to.
//
//===----------------------------------------------------------------------===//

#include "DumpHfModel.h"
#include "DumpIrpa.h"
#include "DumpMlir.h"
#include "DumpOnnx.h"
#include "DumpOptions.h"
#include "DumpOutput.h"
#include "DumpPlanar.h"
#include "DumpWeights.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Formats/IrpaFormat.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Encoding.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/ToolSupport.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::dump;

namespace {

/// One file of what is shown: the file named, or each file of a set.
struct Part {
  std::string path;
  std::unique_ptr<LoadedFile> file;
  std::unique_ptr<ArchiveReader> reader;
};

/// What is shown: one module, or a sharded set as one module; the
/// metadata without the set's bookkeeping keys.
struct Shown {
  std::vector<Part> parts;
  std::vector<std::pair<std::string, std::string>> metadata;
  /// A file of a set named alone (not its first file): "file K of N of
  /// the set 'FIRST'".
  std::string alone;
  size_t numSegments() const {
    size_t n = 0;
    for (const Part &p : parts)
      n += p.reader->numSegments();
    return n;
  }
  size_t numAliases() const {
    size_t n = 0;
    for (const Part &p : parts)
      n += p.reader->numAliases();
    return n;
  }
  bool isSet() const { return parts.size() > 1; }
};

/// A foreign segment's type: "ggml Q4_0 (2)", or the kind and number when
/// it is not ggml.
std::string foreignTypeName(const SegmentInfo &s) {
  if (s.foreignKind == kForeignGgml)
    return ggmlTypeText(s.foreignType);
  return "kind " + std::to_string(s.foreignKind) + " type " +
         std::to_string(s.foreignType);
}

/// Every segment, then every alias, of every file, for the planar search
/// (a part may be an alias of an identical part).
std::vector<PlanarCandidate> candidatesOf(const Shown &shown) {
  std::vector<PlanarCandidate> out;
  for (const Part &p : shown.parts)
    for (const SegmentInfo &s : p.reader->allSegments())
      out.push_back(
          {s.name, s.elementType, s.shape, s.foreignKind != kForeignNone});
  for (const Part &p : shown.parts)
    for (size_t i = p.reader->numSegments(); i < p.reader->numConstants();
         ++i) {
      const SegmentInfo &a = p.reader->constant(i);
      out.push_back(
          {a.name, a.elementType, a.shape, a.foreignKind != kForeignNone});
    }
  return out;
}

int printTable(const Shown &shown) {
  const ArchiveReader &head = *shown.parts[0].reader;
  std::printf("module '%s' (producer '%s', format %u): %zu segments",
              printableName(head.moduleName()).c_str(),
              printableName(head.producer()).c_str(), head.formatVersion(),
              shown.numSegments());
  if (shown.numAliases())
    std::printf(", %zu aliases", shown.numAliases());
  if (shown.isSet())
    std::printf(" in %zu files", shown.parts.size());
  std::printf("\n");
  if (!shown.alone.empty())
    std::printf("this file alone: %s\n", shown.alone.c_str());
  if (shown.isSet())
    for (size_t k = 0; k < shown.parts.size(); ++k)
      std::printf("file %zu: %s (%zu segments)\n", k + 1,
                  shown.parts[k].path.c_str(),
                  shown.parts[k].reader->numSegments());
  size_t nameWidth = 4, typeWidth = 4;
  for (const Part &part : shown.parts)
    for (size_t i = 0; i < part.reader->numConstants(); ++i) {
      const SegmentInfo &s = part.reader->constant(i);
      nameWidth = std::max(nameWidth, printableName(s.name).size());
      typeWidth = std::max(typeWidth, s.mlirType.size());
    }
  // A set's rows say which file holds the bytes; offsets are in that file.
  std::printf("%-*s  %-*s  %-8s  %12s  %9s  %12s%s\n", int(nameWidth), "name",
              int(typeWidth), "type", "encoding", "bytes", "alignment",
              "offset", shown.isSet() ? "  file" : "");
  // A foreign segment's bytes are opaque to vmpack: the row ends with
  // the foreign type and the logical shape it was read with.
  for (size_t k = 0; k < shown.parts.size(); ++k) {
    for (const SegmentInfo &s : shown.parts[k].reader->allSegments()) {
      std::printf("%-*s  %-*s  %-8s  %12" PRIu64 "  %9u  %12" PRIu64,
                  int(nameWidth), printableName(s.name).c_str(), int(typeWidth),
                  s.mlirType.c_str(), encodingName(s.encoding), s.length,
                  s.alignment, s.offset);
      if (shown.isSet())
        std::printf("  %4zu", k + 1);
      if (s.foreignKind != kForeignNone)
        std::printf("  %s %s", foreignTypeName(s).c_str(),
                    shapeList(s.foreignShape).c_str());
      std::printf("\n");
    }
  }
  // Aliases store nothing of their own: they name the segment they share.
  for (const Part &part : shown.parts) {
    const ArchiveReader &reader = *part.reader;
    for (size_t i = reader.numSegments(); i < reader.numConstants(); ++i) {
      const SegmentInfo &a = reader.constant(i);
      std::printf("%-*s  %-*s  alias of '%s'\n", int(nameWidth),
                  printableName(a.name).c_str(), int(typeWidth),
                  a.mlirType.c_str(),
                  printableName(reader.segment(a.aliasOf).name).c_str());
    }
  }
  // Each quantized weight's scheme and the logical shape of its values.
  bool anyQuantized = false;
  for (const Part &part : shown.parts)
    for (const SegmentInfo &s : part.reader->allSegments()) {
      std::string scheme = s.foreignKind == kForeignGgml
                               ? quantSchemeText(s.foreignType)
                               : std::string();
      if (scheme.empty())
        continue;
      if (!anyQuantized)
        std::printf("quantized weights:\n");
      anyQuantized = true;
      std::printf("  %s %s: %s\n", printableName(s.name).c_str(),
                  shapeList(s.foreignShape).c_str(), scheme.c_str());
    }
  std::vector<PlanarCandidate> candidates = candidatesOf(shown);
  printPlanarSets(findPlanarSets(candidates, shown.metadata), candidates,
                  anyQuantized);
  for (size_t k = 0; k < shown.parts.size(); ++k) {
    const ArchiveReader &reader = *shown.parts[k].reader;
    std::string in = shown.isSet() ? " in file " + std::to_string(k + 1) : "";
    std::printf("program: %" PRIu64 " bytes at %" PRIu64 "%s\n",
                reader.program().length, reader.program().offset, in.c_str());
    std::printf("index: %" PRIu64 " bytes at %" PRIu64 "%s\n",
                reader.index().length, reader.index().offset, in.c_str());
  }
  if (!shown.metadata.empty()) {
    std::printf("metadata:\n");
    // Values can be large (a tokenizer's vocabulary): the table shows the
    // first 200 bytes; --json gives them whole.
    constexpr size_t kShown = 200;
    for (const auto &[key, value] : shown.metadata) {
      std::string text = jsonString(value.substr(0, kShown));
      if (value.size() > kShown)
        text += "... (" + std::to_string(value.size()) + " bytes)";
      std::printf("  %s = %s\n", jsonString(key).c_str(), text.c_str());
    }
  }
  return 0;
}

/// A ZIP entry's place: {"name", "offset", "length", "checksum"}.
std::string entryJson(const EntryInfo &e) {
  char crc[16];
  std::snprintf(crc, sizeof(crc), "\"%08x\"", e.checksum);
  return jsonObject({{"name", jsonString(e.name)},
                     {"offset", std::to_string(e.offset)},
                     {"length", std::to_string(e.length)},
                     {"checksum", crc}});
}

/// What segments and aliases both have: the constant's type, and where
/// the compiler found it (docs/format.md section 4.3).
template <typename T> void describeConstant(const SegmentInfo &s, T &out) {
  out.type = s.mlirType;
  out.elementType = toString(s.elementType);
  out.shape = s.foreignKind == kForeignNone ? s.shape : s.foreignShape;
  out.extra =
      jsonObject({{"source_kind", std::to_string(unsigned(s.sourceKind))},
                  {"source_key", jsonString(s.sourceKey)},
                  {"source_alignment", std::to_string(s.sourceAlignment)}});
}

/// docs/dump-json.md: a module's segments as "tensors", each segment's
/// "file" the index of the file of a set holding its bytes ("offset" is
/// within that file).
int printJson(const Shown &shown) {
  const ArchiveReader &head = *shown.parts[0].reader;
  JsonDocument doc;
  doc.format = tools::formatName(tools::Format::Vmpk);
  std::vector<PlanarCandidate> candidates = candidatesOf(shown);
  PlanarSets planar = findPlanarSets(candidates, shown.metadata);
  for (size_t k = 0; k < shown.parts.size(); ++k) {
    const ArchiveReader &reader = *shown.parts[k].reader;
    doc.files.push_back({shown.parts[k].path, reader.fileSize(),
                         reader.numSegments(),
                         jsonObject({{"program", entryJson(reader.program())},
                                     {"index", entryJson(reader.index())}})});
    for (size_t i = 0; i < reader.numSegments(); ++i) {
      const SegmentInfo &s = reader.segment(i);
      JsonTensor t;
      t.name = s.name;
      describeConstant(s, t);
      t.encoding = encodingName(s.encoding);
      t.file = k;
      t.offset = s.offset;
      t.length = s.length;
      t.alignment = s.alignment;
      t.checksum = s.checksum;
      if (s.foreignKind == kForeignGgml)
        t.ggmlType = s.foreignType;
      auto it = planar.byCodes.find(doc.tensors.size());
      if (it != planar.byCodes.end())
        t.quant = planarQuantJson(planar.weights[it->second], candidates);
      doc.tensors.push_back(std::move(t));
    }
    for (size_t i = reader.numSegments(); i < reader.numConstants(); ++i) {
      const SegmentInfo &a = reader.constant(i);
      JsonAlias alias;
      alias.name = a.name;
      describeConstant(a, alias);
      alias.target = reader.segment(a.aliasOf).name;
      doc.aliases.push_back(std::move(alias));
    }
  }
  doc.metadata = shown.metadata;
  doc.notes = planar.notes;
  doc.extra = jsonObject(
      {{"module", jsonString(head.moduleName())},
       {"producer", jsonString(head.producer())},
       {"format_version", std::to_string(head.formatVersion())},
       {"set_member", shown.alone.empty() ? "null" : jsonString(shown.alone)}});
  printJsonDocument(doc);
  return 0;
}

int extract(const Shown &shown, const DumpOptions &options) {
  for (const Part &part : shown.parts) {
    const ArchiveReader &reader = *part.reader;
    std::optional<size_t> index = reader.findConstant(options.extractName);
    if (!index)
      continue;
    const uint8_t *data = reader.constantData(*index);
    Status st =
        writeOutputFile(options.outputPath, reader.constant(*index).length,
                        [&](uint64_t at, uint8_t *out, size_t n) {
                          std::memcpy(out, data + at, n);
                        });
    if (!st)
      return error(st.message());
    return 0;
  }
  return error("no segment named '" + options.extractName + "' in '" +
               options.modulePath + "'");
}

/// Loads and parses one .vmpk file.
StatusOr<Part> openPart(const std::string &path, const LoadOptions &load) {
  Part part;
  part.path = path;
  StatusOr<std::unique_ptr<LoadedFile>> file = LoadedFile::open(path, load);
  if (!file)
    return file.status();
  part.file = std::move(*file);
  StatusOr<std::unique_ptr<ArchiveReader>> reader =
      ArchiveReader::open(part.file->data(), part.file->size());
  if (!reader)
    return reader.status().withContext(path + ": ");
  part.reader = std::move(*reader);
  return part;
}

/// `first` and, when it is the first file of a sharded set, the rest of
/// the set, checked by the formats layer (openWeightSet: count, numbering,
/// segment counts, names unique) and here (the module name of every file,
/// each file as it was found).
Status openShown(Part first, const LoadOptions &load, Shown &shown) {
  StatusOr<std::optional<formats::VmpkShardKeys>> keys =
      formats::readVmpkShardKeys(first.reader->metadata());
  if (!keys)
    return keys.status().withContext(first.path + ": ");
  bool set = *keys && (*keys)->count > 1;
  if (set && (*keys)->number != 1) {
    std::optional<std::string> head =
        formats::firstShardPath(first.path, ".vmpk");
    shown.alone = "file " + std::to_string((*keys)->number) + " of " +
                  std::to_string((*keys)->count) +
                  " of a sharded set; name its first file" +
                  (head ? " ('" + *head + "')" : std::string()) +
                  " to show the whole set";
    set = false;
  }
  if (!set) {
    shown.metadata = first.reader->metadata();
    shown.parts.push_back(std::move(first));
    return Status::ok();
  }
  std::vector<std::string> paths;
  std::vector<size_t> counts;
  {
    StatusOr<std::vector<std::unique_ptr<formats::WeightFile>>> files =
        formats::openWeightSet(first.path, formats::FileFormat::Vmpk);
    if (!files)
      return files.status();
    for (const auto &f : *files) {
      paths.push_back(f->path);
      counts.push_back(f->tensors.size());
    }
  }
  shown.parts.push_back(std::move(first));
  for (size_t k = 1; k < paths.size(); ++k) {
    StatusOr<Part> part = openPart(paths[k], load);
    if (!part)
      return part.status();
    if (part->reader->moduleName() != shown.parts[0].reader->moduleName())
      return Status::formatError(
          paths[k] + ": module '" + printableName(part->reader->moduleName()) +
          "', but '" + paths[0] + "' is module '" +
          printableName(shown.parts[0].reader->moduleName()) +
          "': the files are not one set");
    shown.parts.push_back(std::move(*part));
  }
  for (size_t k = 0; k < paths.size(); ++k)
    if (shown.parts[k].reader->numSegments() != counts[k])
      return Status::formatError(paths[k] +
                                 ": its segments changed while the set was "
                                 "opened");
  for (const Part &part : shown.parts)
    for (const auto &kv : part.reader->metadata())
      if (!formats::isSetKey(kv.first))
        shown.metadata.push_back(kv);
  return Status::ok();
}

} // namespace

int main(int argc, char **argv) {
  DumpOptions options;
  std::string usageError;
  if (!parseDumpOptions(argc, argv, options, usageError)) {
    if (usageError.empty() && options.version) {
      std::fputs(tools::versionText("vmpack-dump", dumpMlirVersion()).c_str(),
                 stdout);
      return tools::kExitSuccess;
    }
    if (usageError.empty()) {
      std::fputs(dumpUsage(), stdout);
      return tools::kExitSuccess;
    }
    return tools::Reporter("vmpack-dump").usageError(usageError);
  }

  LoadOptions load;
  load.mode = options.load == "mmap"   ? LoadMode::Mmap
              : options.load == "read" ? LoadMode::Read
                                       : LoadMode::Auto;
  load.threads = options.threads;
  if (formats::isHfModelDirectory(options.modulePath))
    return dumpHfModel(options);
  // By content first (tools/FormatTable): a file of a format vmpack-dump
  // does not read is named, with the tools that take it; one nothing
  // identifies goes to the module reader, which says what is wrong.
  StatusOr<tools::Format> detected =
      tools::inputFormat(options.modulePath, tools::Tool::Dump);
  if (!detected && detected.status().code() != StatusCode::Format)
    return error(detected.status().message());
  tools::Format format = detected ? *detected : tools::Format::Vmpk;
  if (format == tools::Format::Safetensors || format == tools::Format::Gguf)
    return dumpWeights(*tools::formatInfo(format).fileFormat, options);
  if (format == tools::Format::Onnx)
    return dumpOnnx(options);
  auto file = LoadedFile::open(options.modulePath, load);
  if (!file)
    return error(file.status().message());
  const uint8_t *data = (*file)->data();
  size_t size = (*file)->size();
  if (formats::irpa::hasMagic(data, size))
    return dumpIrpa(data, size, options);
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0)
    return dumpWeights(formats::FileFormat::Gguf, options);
  // safetensors: a little-endian u64 header length, then a JSON object.
  if (size > 8 && data[8] == '{') {
    uint64_t headerLength = 0;
    for (int i = 7; i >= 0; --i)
      headerLength = headerLength << 8 | data[i];
    if (headerLength <= size - 8)
      return dumpWeights(formats::FileFormat::Safetensors, options);
  }
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  if (!reader)
    return error(options.modulePath + ": " + reader.status().message());
  Shown shown;
  {
    Part first;
    first.path = options.modulePath;
    first.file = std::move(*file);
    first.reader = std::move(*reader);
    if (Status st = openShown(std::move(first), load, shown); !st)
      return error(st.message());
  }
  // A file that was read has its CRCs already: verification only compares.
  auto verify = [&]() -> Status {
    for (const Part &part : shown.parts) {
      const LoadedFile &f = *part.file;
      Status st = f.hasRangeCrcs()
                      ? part.reader->verifyContents(
                            [&f](uint64_t offset, uint64_t length) {
                              return f.rangeCrc(offset, length);
                            })
                      : part.reader->verifyContents(options.threads);
      if (!st)
        return st.withContext(part.path + ": ");
    }
    return Status::ok();
  };

  switch (options.action) {
  case Action::Table:
    return printTable(shown);
  case Action::Json:
    return printJson(shown);
  case Action::Verify: {
    Status st = verify();
    if (!st)
      return error(st.message());
    size_t bytes = 0;
    for (const Part &part : shown.parts)
      bytes += part.reader->fileSize();
    if (options.quiet)
      return 0;
    if (shown.isSet())
      std::printf("%s: OK (%zu segments, %zu bytes verified in %zu files)\n",
                  options.modulePath.c_str(), shown.numSegments(), bytes,
                  shown.parts.size());
    else
      std::printf("%s: OK (%zu segments, %zu bytes verified)%s\n",
                  options.modulePath.c_str(), shown.numSegments(), bytes,
                  shown.alone.empty() ? "" : (" -- " + shown.alone).c_str());
    return 0;
  }
  case Action::Extract:
    return extract(shown, options);
  case Action::Mlir: {
    if (shown.isSet())
      return error(options.modulePath +
                   ": --mlir rebuilds one module's program; this is the "
                   "first file of a sharded set: join the set with "
                   "vmpack-convert FIRST -o OUT.vmpk first");
    // Rebuilding trusts the segment bytes: check them first.
    Status st = verify();
    if (!st)
      return error(st.message());
    return printModuleAsMlir(*shown.parts[0].reader, options);
  }
  }
  return 1;
}
