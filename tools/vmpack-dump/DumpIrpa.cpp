//===- DumpIrpa.cpp - vmpack-dump on IREE parameter archives --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An .irpa stores keys and bytes, no element types: the table's type column
// is "-" and the JSON's "type" is null, and vmpack-dump says so instead of
// guessing. Splat entries have no stored bytes: --extract expands their
// pattern. --verify checks the layout; .irpa has no checksums, so damaged
// data cannot be detected.
//
//===----------------------------------------------------------------------===//

#include "DumpIrpa.h"

#include "DumpOutput.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/IrpaReader.h"
#include "vmpack/Formats/WeightFile.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::dump;
using namespace vmpack::formats;

namespace {

const char *kNoTypes =
    ".irpa stores no element types, shapes or checksums: entries are bytes";

std::string hexBytes(const uint8_t *p, size_t n) {
  std::string out;
  char buf[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", p[i]);
    out += buf;
  }
  return out;
}

const char *kindName(const IrpaEntry &e) {
  return e.kind == IrpaEntryKind::Splat ? "splat" : "data";
}

int printTable(const IrpaReader &reader) {
  std::printf("IREE parameter archive (version %u.%u): %zu entries",
              reader.versionMajor(), reader.versionMinor(),
              reader.numEntries());
  if (reader.numSkipped())
    std::printf(", %" PRIu64 " skip entries", reader.numSkipped());
  std::printf("\nnote: %s (type \"-\")\n", kNoTypes);
  size_t nameWidth = 4;
  for (const IrpaEntry &e : reader.entries())
    nameWidth = std::max(nameWidth, printableName(e.key).size());
  std::printf("%-*s  %-4s  %-5s  %12s  %9s  %12s  %s\n", int(nameWidth), "name",
              "type", "kind", "bytes", "alignment", "offset", "pattern");
  for (size_t i = 0; i < reader.numEntries(); ++i) {
    const IrpaEntry &e = reader.entry(i);
    bool splat = e.kind == IrpaEntryKind::Splat;
    std::string offset = splat ? "-" : std::to_string(e.offset);
    std::printf("%-*s  %-4s  %-5s  %12" PRIu64 "  %9" PRIu64 "  %12s",
                int(nameWidth), printableName(e.key).c_str(), "-", kindName(e),
                e.length, e.minimumAlignment, offset.c_str());
    // The pattern's bytes in file order.
    for (size_t k = 0; splat && k < e.patternLength; ++k)
      std::printf("%s%02x", k ? " " : "  ", e.pattern[k]);
    std::printf("\n");
  }
  return 0;
}

/// docs/dump-json.md: the entries as "tensors" with no type, shape,
/// encoding or checksum; a splat has no offset (no stored bytes) and its
/// "length" is the length it expands to.
int printJson(const IrpaReader &reader, const std::string &path) {
  auto segment = [](IrpaSegment s) {
    return jsonObject({{"offset", std::to_string(s.offset)},
                       {"length", std::to_string(s.length)}});
  };
  JsonDocument doc;
  doc.format = formatName(FileFormat::Irpa);
  char version[32];
  std::snprintf(version, sizeof(version), "\"%u.%u\"", reader.versionMajor(),
                reader.versionMinor());
  doc.files.push_back(
      {path, reader.fileSize(), reader.numEntries(),
       jsonObject({{"version", version},
                   {"skipped_entries", std::to_string(reader.numSkipped())},
                   {"entry_segment", segment(reader.entrySegment())},
                   {"metadata_segment", segment(reader.metadataSegment())},
                   {"storage_segment", segment(reader.storageSegment())}})});
  for (const IrpaEntry &e : reader.entries()) {
    JsonTensor t;
    t.name = e.key;
    bool splat = e.kind == IrpaEntryKind::Splat;
    if (!splat)
      t.offset = e.offset;
    t.length = e.length;
    t.alignment = e.minimumAlignment;
    t.extra = jsonObject(
        {{"kind", jsonString(kindName(e))},
         {"pattern",
          splat ? jsonString(hexBytes(e.pattern.data(), e.patternLength))
                : "null"},
         {"metadata", jsonString(hexBytes(
                          reinterpret_cast<const uint8_t *>(e.metadata.data()),
                          e.metadata.size()))}});
    doc.tensors.push_back(std::move(t));
  }
  printJsonDocument(doc);
  return 0;
}

int extract(const IrpaReader &reader, const DumpOptions &options) {
  std::optional<size_t> index = reader.findEntry(options.extractName);
  if (!index)
    return error("no entry named '" + printableName(options.extractName) +
                 "' in '" + options.modulePath + "'");
  const IrpaEntry &e = reader.entry(*index);
  const uint8_t *data = reader.entryData(*index);
  Status st = writeOutputFile(
      options.outputPath, e.length, [&](uint64_t at, uint8_t *out, size_t n) {
        if (e.kind == IrpaEntryKind::Data) {
          std::memcpy(out, data + at, n);
          return;
        }
        for (size_t j = 0; j < n; ++j)
          out[j] = e.pattern[(at + j) % e.patternLength];
      });
  if (!st)
    return error(st.message());
  return 0;
}

} // namespace

int vmpack::dump::dumpIrpa(const uint8_t *data, size_t size,
                           const DumpOptions &options) {
  auto reader = IrpaReader::open(data, size);
  if (!reader)
    return error(options.modulePath + ": " + reader.status().message());
  switch (options.action) {
  case Action::Table:
    return printTable(**reader);
  case Action::Json:
    return printJson(**reader, options.modulePath);
  case Action::Verify: {
    Status st = (*reader)->verifyLayout();
    if (!st)
      return error(options.modulePath + ": " + st.message());
    if (options.quiet)
      return 0;
    std::printf("%s: OK (%zu entries; header, entries, names, ranges and "
                "overlaps checked; .irpa has no checksums, so damaged data "
                "cannot be detected)\n",
                options.modulePath.c_str(), (*reader)->numEntries());
    return 0;
  }
  case Action::Extract:
    return extract(**reader, options);
  case Action::Mlir:
    return error(options.modulePath +
                 ": an IREE parameter archive has no program to print");
  }
  return 1;
}
