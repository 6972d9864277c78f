//===- ForeignFormats.cpp - safetensors and GGUF files for the C API ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parsing is the formats layer's (readSafetensors, readGguf: every offset,
// length and shape checked there); this file only recognises the formats
// and turns what the readers return into the C API's segment and metadata
// records: type strings computed once, ggml block tensors as ui8 bytes
// with their ggml type, GGUF values as text.
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

/// Non-finite floats as Python's json module reads them.
void appendFloat(std::string &out, double v, int digits) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Infinity" : "Infinity";
  } else {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    out += buf;
  }
}

/// One scalar (its bits in `bits`) of a number or bool type.
void appendScalar(std::string &out, GgufType type, uint64_t bits) {
  switch (type) {
  case GgufType::Int8:
    out += std::to_string(int64_t(int8_t(bits)));
    return;
  case GgufType::Int16:
    out += std::to_string(int64_t(int16_t(bits)));
    return;
  case GgufType::Int32:
    out += std::to_string(int64_t(int32_t(bits)));
    return;
  case GgufType::Int64:
    out += std::to_string(int64_t(bits));
    return;
  case GgufType::Float32: {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    appendFloat(out, f, 9); // FLT_DECIMAL_DIG: reads back exactly
    return;
  }
  case GgufType::Float64: {
    double d;
    std::memcpy(&d, &bits, 8);
    appendFloat(out, d, 17); // DBL_DECIMAL_DIG
    return;
  }
  case GgufType::Bool:
    out += bits ? "true" : "false";
    return;
  default:
    out += std::to_string(bits);
    return;
  }
}

/// A JSON string literal: quotes, backslashes and control characters
/// escaped; other bytes as they are.
void appendJsonString(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

} // namespace

std::optional<std::string>
vmpack::runtime::ggmlForeignTypeName(uint32_t ggmlType) {
  const GgmlTypeTraits *traits = ggmlTypeTraits(ggmlType);
  if (!traits)
    return std::nullopt;
  return std::string("ggml.") + traits->name;
}

std::string vmpack::runtime::ggufValueText(const GgufValue &value) {
  std::string out;
  if (value.type == GgufType::String)
    return value.strings.empty() ? out : value.strings.front();
  if (value.type != GgufType::Array) {
    if (!value.scalars.empty())
      appendScalar(out, value.type, value.scalars.front());
    return out;
  }
  out += '[';
  if (value.elementType == GgufType::String) {
    for (size_t i = 0; i < value.strings.size(); ++i) {
      if (i)
        out += ", ";
      appendJsonString(out, value.strings[i]);
    }
  } else {
    for (size_t i = 0; i < value.scalars.size(); ++i) {
      if (i)
        out += ", ";
      appendScalar(out, value.elementType, value.scalars[i]);
    }
  }
  out += ']';
  return out;
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
    for (const GgufKeyValue &kv : parsed->metadata)
      file->entries.push_back(
          {kv.key, ggufValueText(kv.value), formats::ggufTypeName(kv.value)});
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
