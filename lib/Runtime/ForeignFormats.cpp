//===- ForeignFormats.cpp - safetensors and GGUF files for the C API ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parsing is the formats layer's (readSafetensors, readGguf: every offset,
// length and shape checked there); this file only recognises the formats
// and turns what the readers return into the C API's segment and metadata
// records: type strings computed once, ggml block tensors as ui8 bytes
// with their ggml type, GGUF values as text (the formats layer's form,
// GgufValueText.h).
//
//===----------------------------------------------------------------------===//

#include "ForeignFormats.h"
#include "SegmentRecord.h"

#include "vmpack/Formats/GgufValueText.h"
#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/TypeTable.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::runtime;

namespace {

/// GGUF's "GGUF" magic, as it starts the file (docs/gguf.md).
constexpr char kGgufMagic[4] = {'G', 'G', 'U', 'F'};

/// The safetensors alignment reported is capped here: a page.
constexpr uint32_t kMaxReportedAlignment = 4096;

} // namespace

std::optional<std::string>
vmpack::runtime::ggmlForeignTypeName(uint32_t ggmlType) {
  const GgmlTypeTraits *traits = ggmlTypeTraits(ggmlType);
  if (!traits)
    return std::nullopt;
  return std::string("ggml.") + traits->name;
}

StatusOr<std::string> vmpack::runtime::ggufValueText(const GgufValue &value) {
  if (value.type == GgufType::String)
    return value.strings.empty() ? std::string() : value.strings.front();
  return ggufValueJson(value, /*replaceInvalidUtf8=*/true);
}

std::optional<ForeignContainer>
vmpack::runtime::sniffForeign(const uint8_t *data, size_t size) {
  if (size >= sizeof(kGgufMagic) &&
      std::memcmp(data, kGgufMagic, sizeof(kGgufMagic)) == 0)
    return ForeignContainer::Gguf;
  // A module archive starts with a ZIP local header ("PK\3\4", then two
  // version bytes, two flag bytes and the method): its byte 8 is never '{'.
  if (size >= 9 && data[8] == '{')
    return ForeignContainer::Safetensors;
  return std::nullopt;
}

std::optional<ForeignContainer>
vmpack::runtime::foreignFromPath(std::string_view path) {
  auto endsWith = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.substr(path.size() - suffix.size()) == suffix;
  };
  if (endsWith(".safetensors"))
    return ForeignContainer::Safetensors;
  if (endsWith(".gguf"))
    return ForeignContainer::Gguf;
  return std::nullopt;
}

StatusOr<std::unique_ptr<ForeignFile>>
ForeignFile::open(ForeignContainer container, const uint8_t *data,
                  size_t size) {
  std::unique_ptr<ForeignFile> file(new ForeignFile());
  file->kind = container;
  file->base = data;
  if (container == ForeignContainer::Safetensors) {
    StatusOr<SafetensorsFile> parsed = readSafetensors(data, size);
    if (!parsed)
      return parsed.status(); // its messages start "safetensors: "
    file->tensors = std::move(parsed->tensors);
    for (auto &[key, value] : parsed->metadata)
      file->entries.push_back({key, value, "string"});
  } else {
    StatusOr<GgufFile> parsed = readGguf(data, size);
    if (!parsed)
      return parsed.status(); // its messages start "GGUF: "
    file->tensors = std::move(parsed->tensors);
    file->formatVersion = parsed->version;
    file->fileAlignment = parsed->alignment;
    file->split = ggufSplitPosition(parsed->metadata);
    for (const GgufKeyValue &kv : parsed->metadata) {
      StatusOr<std::string> text = ggufValueText(kv.value);
      if (!text)
        return Status::formatError("GGUF: key " + quoteName(kv.key) + ": " +
                                   text.status().message());
      file->entries.push_back(
          {kv.key, std::move(*text), formats::ggufTypeName(kv.value)});
    }
  }
  if (Status st = file->describe(); !st)
    return st;
  return file;
}

Status ForeignFile::describe() {
  size_t n = tensors.size();
  mlirTypes.reserve(n);
  elementTypeNames.reserve(n);
  elementCounts.reserve(n);
  foreignTypes.reserve(n);
  foreignShapes.reserve(n);
  for (TensorInfo &t : tensors) {
    std::string foreign;
    std::vector<int64_t> logicalShape;
    if (t.isOpaque()) {
      // The readers only accept ggml types of the table.
      std::optional<std::string> name = ggmlForeignTypeName(*t.ggmlBlockType);
      if (!name)
        return Status::formatError("tensor '" + t.name +
                                   "': unknown ggml type " +
                                   std::to_string(*t.ggmlBlockType));
      foreign = std::move(*name);
      logicalShape = std::move(t.shape);
      // Lengths come from the reader, which checked them against the file.
      if (t.length > uint64_t(INT64_MAX))
        return Status::formatError("tensor '" + t.name + "' is too large");
      t.elementType = opaqueByteType();
      t.shape = {int64_t(t.length)};
      t.encoding = Encoding::Byte;
    }
    std::optional<uint64_t> count = formats::numElements(t.shape);
    if (!count)
      return Status::formatError("tensor '" + t.name +
                                 "': the shape overflows");
    mlirTypes.push_back(tensorTypeString(t.elementType, t.shape));
    elementTypeNames.push_back(toString(t.elementType));
    elementCounts.push_back(*count);
    foreignTypes.push_back(std::move(foreign));
    foreignShapes.push_back(std::move(logicalShape));
  }
  for (size_t i = 0; i < n; ++i)
    if (!byName.emplace(tensors[i].name, i).second)
      return Status::formatError("two tensors are named '" + tensors[i].name +
                                 "'");
  return Status::ok();
}

uint32_t ForeignFile::alignment(size_t i) const {
  if (kind == ForeignContainer::Gguf)
    return fileAlignment;
  uint64_t offset = tensors[i].offset;
  uint32_t a = 1;
  while (a < kMaxReportedAlignment && offset % (uint64_t(a) * 2) == 0)
    a *= 2;
  return a;
}

std::optional<size_t> ForeignFile::find(std::string_view name) const {
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

void vmpack::runtime::fillSegmentInfo(const ForeignFile &file, size_t index,
                                      vmpack_segment_info_t &i) {
  const TensorInfo &t = file.tensor(index);
  // Typed, with no checksum and no source.
  fillTypedSegment(i, t.name, file.mlirType(index), file.elementTypeName(index),
                   t.elementType, t.shape, file.numElements(index), t.encoding,
                   file.tensorData(index), t.offset, t.length,
                   file.alignment(index));
}
