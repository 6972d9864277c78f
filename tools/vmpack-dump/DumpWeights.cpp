//===- DumpWeights.cpp - vmpack-dump on safetensors and GGUF files --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// safetensors and GGUF files are read by the formats layer's hardened
// readers (openWeightSet, which also finds and checks the rest of a
// sharded set). Each tensor shows its type as vmpack reads it
// (docs/interop.md: sub-byte types from vmpack.type records, ggml block
// types by name), the bytes it stores and where. Neither format has
// checksums: --verify checks the structure, and says so.
//
//===----------------------------------------------------------------------===//

#include "DumpWeights.h"

#include "DumpOutput.h"
#include "DumpPlanar.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/GgufValueText.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Encoding.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace vmpack;
using namespace vmpack::dump;
using namespace vmpack::formats;
using archive::printableName;

namespace {

using Files = std::vector<std::unique_ptr<WeightFile>>;

const char *kNoChecksums = "has no checksums, so damaged data cannot be "
                           "detected";

/// "tensor<4096x32xi4>", or "ggml Q4_0 (2) [4096, 4096]" for a block type
/// (its logical shape, as vmpack-dump shows a .vmpk's foreign segments).
std::string typeText(const TensorInfo &t) {
  if (!t.isOpaque())
    return tensorTypeString(t.elementType, t.shape);
  return ggmlTypeText(*t.ggmlBlockType) + " " + shapeList(t.shape);
}

const char *encodingText(const TensorInfo &t) {
  return t.isOpaque() ? "blocks" : encodingName(t.encoding);
}

/// The file's metadata as (key, text) pairs: safetensors __metadata__ or
/// a .vmpk's metadata as they are; GGUF values as strings or TYPE:JSON.
StatusOr<StringMetadata> metadataOf(const WeightFile &file) {
  if (file.format != FileFormat::Gguf)
    return file.stringMetadata;
  StringMetadata pairs;
  for (const GgufKeyValue &kv : file.ggufMetadata) {
    if (kv.value.type == GgufType::String) {
      pairs.emplace_back(kv.key, kv.value.strings.empty()
                                     ? std::string()
                                     : kv.value.strings.front());
      continue;
    }
    StatusOr<std::string> json =
        ggufValueJson(kv.value, /*replaceInvalidUtf8=*/true);
    if (!json)
      return json.status();
    pairs.emplace_back(kv.key, ggufTypeName(kv.value) + ":" + *json);
  }
  return pairs;
}

size_t countTensors(const Files &files) {
  size_t n = 0;
  for (const auto &f : files)
    n += f->tensors.size();
  return n;
}

/// Every file's tensors, in listing order, for the planar search.
std::vector<PlanarCandidate> candidatesOf(const Files &files) {
  std::vector<PlanarCandidate> out;
  for (const auto &f : files)
    for (const TensorInfo &t : f->tensors)
      out.push_back({t.name, t.elementType, t.shape, t.isOpaque()});
  return out;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int printTable(FileFormat format, const Files &files,
               const StringMetadata &metadata) {
  bool several = files.size() > 1;
  std::printf("%s: %zu tensors", formatName(format), countTensors(files));
  if (several)
    std::printf(" in %zu files", files.size());
  std::printf("\n");
  size_t nameWidth = 4, typeWidth = 4, fileWidth = 4;
  for (const auto &f : files) {
    fileWidth = std::max(fileWidth, baseName(f->path).size());
    for (const TensorInfo &t : f->tensors) {
      nameWidth = std::max(nameWidth, printableName(t.name).size());
      typeWidth = std::max(typeWidth, typeText(t).size());
    }
  }
  std::printf("%-*s  %-*s  %-8s  %12s  %12s%s%s\n", int(nameWidth), "name",
              int(typeWidth), "type", "encoding", "bytes", "offset",
              several ? "  " : "", several ? "file" : "");
  for (const auto &f : files)
    for (const TensorInfo &t : f->tensors)
      std::printf("%-*s  %-*s  %-8s  %12" PRIu64 "  %12" PRIu64 "%s%s\n",
                  int(nameWidth), printableName(t.name).c_str(), int(typeWidth),
                  typeText(t).c_str(), encodingText(t), t.length, t.offset,
                  several ? "  " : "",
                  several ? baseName(f->path).c_str() : "");
  // Each quantized weight's scheme and the logical shape of its values.
  bool anyQuantized = false;
  for (const auto &f : files)
    for (const TensorInfo &t : f->tensors) {
      std::string scheme =
          t.isOpaque() ? quantSchemeText(*t.ggmlBlockType) : std::string();
      if (scheme.empty())
        continue;
      if (!anyQuantized)
        std::printf("quantized weights:\n");
      anyQuantized = true;
      std::printf("  %s %s: %s\n", printableName(t.name).c_str(),
                  shapeList(t.shape).c_str(), scheme.c_str());
    }
  // Planar sets, each as the one weight its parts stand for.
  std::vector<PlanarCandidate> candidates = candidatesOf(files);
  printPlanarSets(findPlanarSets(candidates, metadata), candidates,
                  anyQuantized);
  if (!metadata.empty()) {
    std::printf("metadata:\n");
    for (const auto &[key, value] : metadata)
      std::printf("  %s = %s\n", jsonString(key).c_str(),
                  jsonString(value).c_str());
  }
  return 0;
}

/// The alignment every tensor's offset in a GGUF file is a multiple of:
/// general.alignment, or 32 (the reader checked the key).
uint64_t ggufAlignment(const WeightFile &file) {
  for (const GgufKeyValue &kv : file.ggufMetadata)
    if (kv.key == kGgufAlignmentKey && kv.value.type == GgufType::UInt32 &&
        !kv.value.scalars.empty())
      return kv.value.scalars.front();
  return kGgufDefaultAlignment;
}

int printJson(FileFormat format, const Files &files,
              const StringMetadata &metadata) {
  JsonDocument doc;
  doc.format = formatName(format);
  std::vector<PlanarCandidate> candidates = candidatesOf(files);
  PlanarSets planar = findPlanarSets(candidates, metadata);
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const WeightFile &f = *files[fi];
    doc.files.push_back({f.path, f.map->size(), f.tensors.size(), "null"});
    for (const TensorInfo &t : f.tensors) {
      auto it = planar.byCodes.find(doc.tensors.size());
      doc.tensors.push_back(weightTensorJson(f, t, fi));
      if (it != planar.byCodes.end())
        doc.tensors.back().quant =
            planarQuantJson(planar.weights[it->second], candidates);
    }
  }
  doc.metadata = metadata;
  doc.notes = planar.notes;
  printJsonDocument(doc);
  return 0;
}

int extract(const Files &files, const DumpOptions &options) {
  for (const auto &f : files) {
    auto it = std::find_if(
        f->tensors.begin(), f->tensors.end(),
        [&](const TensorInfo &t) { return t.name == options.extractName; });
    if (it == f->tensors.end())
      continue;
    const uint8_t *data = f->map->data() + it->offset;
    archive::Status st =
        writeOutputFile(options.outputPath, it->length,
                        [&](uint64_t at, uint8_t *out, size_t n) {
                          std::memcpy(out, data + at, n);
                        });
    return st ? 0 : error(st.message());
  }
  return error("no tensor named '" + printableName(options.extractName) +
               "' in '" + options.modulePath + "'");
}

} // namespace

JsonTensor vmpack::dump::weightTensorJson(const WeightFile &f,
                                          const TensorInfo &t, size_t file) {
  JsonTensor j;
  j.name = t.name;
  ElementType stored = t.isOpaque() ? *parseElementType("ui8") : t.elementType;
  std::vector<int64_t> storedShape =
      t.isOpaque() ? std::vector<int64_t>{int64_t(t.length)} : t.shape;
  j.type = tensorTypeString(stored, storedShape);
  j.elementType = toString(stored);
  j.shape = t.shape;
  j.encoding = encodingName(t.isOpaque() ? Encoding::Byte : t.encoding);
  j.file = file;
  j.offset = t.offset;
  j.length = t.length;
  if (f.format == FileFormat::Gguf)
    j.alignment = ggufAlignment(f);
  j.ggmlType = t.ggmlBlockType;
  return j;
}

int vmpack::dump::dumpWeights(FileFormat format, const DumpOptions &options) {
  StatusOr<Files> files = openWeightSet(options.modulePath, format);
  if (!files)
    return error(files.status().message());
  // A set's files share their metadata (openWeightSet drops the set's own
  // keys): the first file holds it.
  StatusOr<StringMetadata> metadata = metadataOf(*files->front());
  if (!metadata)
    return error(options.modulePath + ": " + metadata.status().message());
  switch (options.action) {
  case Action::Table:
    return printTable(format, *files, *metadata);
  case Action::Json:
    return printJson(format, *files, *metadata);
  case Action::Verify:
    if (options.quiet)
      return 0;
    std::printf("%s: OK (%zu tensors in %zu file(s); header, types, shapes, "
                "offsets and ranges checked; %s %s)\n",
                options.modulePath.c_str(), countTensors(*files), files->size(),
                formatName(format), kNoChecksums);
    return 0;
  case Action::Extract:
    return extract(*files, options);
  case Action::Mlir:
    return error(options.modulePath + ": a " + formatName(format) +
                 " file has no program; `vmpack-convert " + options.modulePath +
                 " -o OUT.mlir` writes its tensors as "
                 "MLIR globals");
  }
  return 1;
}
