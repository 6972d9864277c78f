//===- vmpack-dump.cpp - Inspect, verify and extract module archives ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reads modules through the archive layer only: no MLIR, no LLVM. IREE
// parameter archives (.irpa), recognised by their first bytes, go through
// the formats layer (DumpIrpa.cpp).
//
//===----------------------------------------------------------------------===//

#include "DumpIrpa.h"
#include "DumpMlir.h"
#include "DumpOptions.h"
#include "DumpOutput.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Formats/IrpaFormat.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Encoding.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::dump;

namespace {

/// A foreign segment's type: "ggml Q4_0 (2)", or the kind and number when
/// this build does not know them.
std::string foreignTypeName(const SegmentInfo &s) {
  if (s.foreignKind == kForeignGgml) {
    const formats::GgmlTypeTraits *traits =
        formats::ggmlTypeTraits(s.foreignType);
    return std::string("ggml ") + (traits ? traits->name : "type") + " (" +
           std::to_string(s.foreignType) + ")";
  }
  return "kind " + std::to_string(s.foreignKind) + " type " +
         std::to_string(s.foreignType);
}

std::string shapeList(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

int printTable(const ArchiveReader &reader) {
  std::printf("module '%s' (producer '%s', format %u): %zu segments",
              printableName(reader.moduleName()).c_str(),
              printableName(reader.producer()).c_str(), reader.formatVersion(),
              reader.numSegments());
  if (reader.numAliases())
    std::printf(", %zu aliases", reader.numAliases());
  std::printf("\n");
  size_t nameWidth = 4, typeWidth = 4;
  for (size_t i = 0; i < reader.numConstants(); ++i) {
    const SegmentInfo &s = reader.constant(i);
    nameWidth = std::max(nameWidth, printableName(s.name).size());
    typeWidth = std::max(typeWidth, s.mlirType.size());
  }
  std::printf("%-*s  %-*s  %-8s  %12s  %9s  %12s\n", int(nameWidth), "name",
              int(typeWidth), "type", "encoding", "bytes", "alignment",
              "offset");
  // A foreign segment's bytes are opaque to vmpack: the row ends with
  // the foreign type and the logical shape it was read with.
  for (const SegmentInfo &s : reader.allSegments()) {
    std::printf("%-*s  %-*s  %-8s  %12" PRIu64 "  %9u  %12" PRIu64,
                int(nameWidth), printableName(s.name).c_str(), int(typeWidth),
                s.mlirType.c_str(), encodingName(s.encoding), s.length,
                s.alignment, s.offset);
    if (s.foreignKind != kForeignNone)
      std::printf("  %s %s", foreignTypeName(s).c_str(),
                  shapeList(s.foreignShape).c_str());
    std::printf("\n");
  }
  // Aliases store nothing of their own: they name the segment they share.
  for (size_t i = reader.numSegments(); i < reader.numConstants(); ++i) {
    const SegmentInfo &a = reader.constant(i);
    std::printf("%-*s  %-*s  alias of '%s'\n", int(nameWidth),
                printableName(a.name).c_str(), int(typeWidth),
                a.mlirType.c_str(),
                printableName(reader.segment(a.aliasOf).name).c_str());
  }
  std::printf("program: %" PRIu64 " bytes at %" PRIu64 "\n",
              reader.program().length, reader.program().offset);
  std::printf("index: %" PRIu64 " bytes at %" PRIu64 "\n",
              reader.index().length, reader.index().offset);
  if (!reader.metadata().empty()) {
    std::printf("metadata:\n");
    // Values can be large (a tokenizer's vocabulary): the table shows the
    // first 200 bytes; --json gives them whole.
    constexpr size_t kShown = 200;
    for (const auto &[key, value] : reader.metadata()) {
      std::string shown = jsonString(value.substr(0, kShown));
      if (value.size() > kShown)
        shown += "... (" + std::to_string(value.size()) + " bytes)";
      std::printf("  %s = %s\n", jsonString(key).c_str(), shown.c_str());
    }
  }
  return 0;
}

int printJson(const ArchiveReader &reader) {
  std::printf("{\n  \"module\": %s,\n  \"producer\": %s,\n"
              "  \"format_version\": %u,\n  \"file_size\": %zu,\n",
              jsonString(reader.moduleName()).c_str(),
              jsonString(reader.producer()).c_str(), reader.formatVersion(),
              reader.fileSize());
  std::printf("  \"segments\": [");
  for (size_t i = 0; i < reader.numSegments(); ++i) {
    const SegmentInfo &s = reader.segment(i);
    std::printf("%s\n    {\"name\": %s, \"type\": %s, \"element_type\": %s, "
                "\"encoding\": \"%s\", \"offset\": %" PRIu64
                ", \"length\": %" PRIu64 ", \"alignment\": %u, "
                "\"checksum\": \"%08x\", \"source_kind\": %u, "
                "\"source_key\": %s, \"source_alignment\": %u",
                i ? "," : "", jsonString(s.name).c_str(),
                jsonString(s.mlirType).c_str(),
                jsonString(toString(s.elementType)).c_str(),
                encodingName(s.encoding), s.offset, s.length, s.alignment,
                s.checksum, unsigned(s.sourceKind),
                jsonString(s.sourceKey).c_str(), s.sourceAlignment);
    if (s.foreignKind != kForeignNone) {
      const formats::GgmlTypeTraits *traits =
          s.foreignKind == kForeignGgml ? formats::ggmlTypeTraits(s.foreignType)
                                        : nullptr;
      std::printf(
          ", \"foreign\": {\"kind\": %s, \"type\": %u, "
          "\"type_name\": %s, \"shape\": %s}",
          s.foreignKind == kForeignGgml ? "\"ggml\""
                                        : std::to_string(s.foreignKind).c_str(),
          s.foreignType, traits ? jsonString(traits->name).c_str() : "null",
          shapeList(s.foreignShape).c_str());
    }
    std::printf("}");
  }
  std::printf("\n  ],\n  \"aliases\": [");
  for (size_t i = reader.numSegments(); i < reader.numConstants(); ++i) {
    const SegmentInfo &a = reader.constant(i);
    std::printf("%s\n    {\"name\": %s, \"type\": %s, \"element_type\": %s, "
                "\"segment\": %s, \"source_kind\": %u, \"source_key\": %s, "
                "\"source_alignment\": %u}",
                i > reader.numSegments() ? "," : "", jsonString(a.name).c_str(),
                jsonString(a.mlirType).c_str(),
                jsonString(toString(a.elementType)).c_str(),
                jsonString(reader.segment(a.aliasOf).name).c_str(),
                unsigned(a.sourceKind), jsonString(a.sourceKey).c_str(),
                a.sourceAlignment);
  }
  // Metadata in stored order: an array of pairs, since keys are ordered.
  std::printf("\n  ],\n  \"metadata\": [");
  for (size_t i = 0; i < reader.metadata().size(); ++i) {
    const auto &[key, value] = reader.metadata()[i];
    std::printf("%s\n    {\"key\": %s, \"value\": %s}", i ? "," : "",
                jsonString(key).c_str(), jsonString(value).c_str());
  }
  const EntryInfo &p = reader.program();
  const EntryInfo &x = reader.index();
  std::printf("\n  ],\n  \"program\": {\"name\": %s, \"offset\": %" PRIu64
              ", \"length\": %" PRIu64 ", \"checksum\": \"%08x\"},\n",
              jsonString(p.name).c_str(), p.offset, p.length, p.checksum);
  std::printf("  \"index\": {\"name\": %s, \"offset\": %" PRIu64
              ", \"length\": %" PRIu64 ", \"checksum\": \"%08x\"}\n}\n",
              jsonString(x.name).c_str(), x.offset, x.length, x.checksum);
  return 0;
}

int extract(const ArchiveReader &reader, const DumpOptions &options) {
  std::optional<size_t> index = reader.findConstant(options.extractName);
  if (!index)
    return error("no segment named '" + options.extractName + "' in '" +
                 options.modulePath + "'");
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

} // namespace

int main(int argc, char **argv) {
  DumpOptions options;
  std::string usageError;
  if (!parseDumpOptions(argc, argv, options, usageError)) {
    if (usageError.empty()) {
      std::fputs(dumpUsage(), stdout);
      return 0;
    }
    std::fprintf(stderr, "vmpack-dump: error: %s\n\n%s", usageError.c_str(),
                 dumpUsage());
    return 2;
  }

  LoadOptions load;
  load.mode = options.load == "mmap"   ? LoadMode::Mmap
              : options.load == "read" ? LoadMode::Read
                                       : LoadMode::Auto;
  auto file = LoadedFile::open(options.modulePath, load);
  if (!file)
    return error(file.status().message());
  if (formats::irpa::hasMagic((*file)->data(), (*file)->size()))
    return dumpIrpa((*file)->data(), (*file)->size(), options);
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  if (!reader)
    return error(options.modulePath + ": " + reader.status().message());
  // A file that was read has its CRCs already: verification only compares.
  auto verify = [&] {
    if ((*file)->hasRangeCrcs()) {
      const LoadedFile &f = **file;
      return (*reader)->verifyContents([&f](uint64_t offset, uint64_t length) {
        return f.rangeCrc(offset, length);
      });
    }
    return (*reader)->verifyContents(options.threads);
  };

  switch (options.action) {
  case Action::Table:
    return printTable(**reader);
  case Action::Json:
    return printJson(**reader);
  case Action::Verify: {
    Status st = verify();
    if (!st)
      return error(options.modulePath + ": " + st.message());
    std::printf("%s: OK (%zu segments, %zu bytes verified)\n",
                options.modulePath.c_str(), (*reader)->numSegments(),
                (*reader)->fileSize());
    return 0;
  }
  case Action::Extract:
    return extract(**reader, options);
  case Action::Mlir: {
    // Rebuilding trusts the segment bytes: check them first.
    Status st = verify();
    if (!st)
      return error(options.modulePath + ": " + st.message());
    return printModuleAsMlir(**reader, options);
  }
  }
  return 1;
}
