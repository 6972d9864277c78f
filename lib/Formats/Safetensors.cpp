//===- Safetensors.cpp - Reading and writing safetensors files
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-------------===//
//
// JSON is parsed by nlohmann/json (Debian's nlohmann-json3-dev), whose
// parser is iterative and validates UTF-8; a parser callback enforces the
// nesting limit and rejects duplicate keys before any deep structure is
// built. Its exceptions never leave this file.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Safetensors.h"

#include "BoundedJson.h"

#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/TypeTable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

using namespace vmpack;
using namespace vmpack::formats;
using json = nlohmann::json;

namespace {

constexpr uint64_t kLengthBytes = 8;
constexpr std::string_view kMetadataKey = "__metadata__";

/// Parses the header. `metadataOrder` receives the keys of __metadata__ in
/// file order (the parsed object sorts them).
StatusOr<json> parseHeader(const uint8_t *text, size_t size,
                           const SafetensorsLimits &limits,
                           std::vector<std::string> &metadataOrder) {
  bool inMetadata = false;
  auto onKey = [&](int depth, const std::string &key) {
    // `depth` counts the objects open: 1 for the header's own keys.
    if (depth == 1)
      inMetadata = key == kMetadataKey;
    else if (depth == 2 && inMetadata)
      metadataOrder.push_back(key);
  };
  return parseBoundedJson(text, size, limits.maxDepth, "the JSON header",
                          onKey);
}

/// A JSON number that is a non-negative integer.
std::optional<uint64_t> asUnsigned(const json &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0)
    return uint64_t(value.get<int64_t>());
  return std::nullopt;
}

Status tensorError(std::string_view name, const std::string &what) {
  return Status::formatError("safetensors header: tensor " + quoteName(name) +
                             ": " + what);
}

/// Reads one tensor entry; sets offset/length relative to the data buffer.
Status parseTensor(const std::string &name, const json &entry,
                   const SafetensorsLimits &limits, TensorInfo &info) {
  if (!entry.is_object())
    return tensorError(name, "entry is not a JSON object");
  for (auto it = entry.begin(); it != entry.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" &&
        it.key() != "data_offsets")
      return tensorError(name, "unexpected field " + quoteName(it.key()) +
                                   " (a tensor has dtype, shape and "
                                   "data_offsets)");
  auto dtype = entry.find("dtype");
  auto shape = entry.find("shape");
  auto offsets = entry.find("data_offsets");
  if (dtype == entry.end() || shape == entry.end() || offsets == entry.end())
    return tensorError(name, "needs dtype, shape and data_offsets");
  if (!dtype->is_string())
    return tensorError(name, "dtype is not a string");
  const std::string &dtypeName = dtype->get_ref<const std::string &>();
  std::optional<ElementType> type = fromSafetensorsDtype(dtypeName);
  if (!type) {
    std::string known;
    for (const InteropType &row : interopTypes())
      if (row.canonical && row.safetensorsDtype)
        known += std::string(known.empty() ? "" : " ") + row.safetensorsDtype;
    return tensorError(name, "unknown dtype " + quoteName(dtypeName) +
                                 " (known: " + known + ")");
  }
  if (!shape->is_array())
    return tensorError(name, "shape is not an array");
  if (shape->size() > limits.maxRank)
    return tensorError(name, "rank " + std::to_string(shape->size()) +
                                 " exceeds the limit of " +
                                 std::to_string(limits.maxRank));
  info.shape.clear();
  for (const json &d : *shape) {
    std::optional<uint64_t> v = asUnsigned(d);
    if (!v || *v > uint64_t(std::numeric_limits<int64_t>::max()))
      return tensorError(name, "shape holds " + d.dump() +
                                   ", not a dimension (0 ... 2^63-1)");
    info.shape.push_back(int64_t(*v));
  }
  if (!offsets->is_array() || offsets->size() != 2)
    return tensorError(name, "data_offsets is not an array [begin, end]");
  std::optional<uint64_t> begin = asUnsigned((*offsets)[0]);
  std::optional<uint64_t> end = asUnsigned((*offsets)[1]);
  if (!begin || !end)
    return tensorError(name, "data_offsets holds " + offsets->dump() +
                                 ", not two byte offsets");
  if (*end < *begin)
    return tensorError(name, "data_offsets " + offsets->dump() +
                                 " ends before it begins");
  std::optional<uint64_t> n = numElements(info.shape);
  uint64_t bits = safetensorsDtypeBits(dtypeName);
  if (!n || (*n && bits > std::numeric_limits<uint64_t>::max() / *n))
    return tensorError(name, "the shape's element count overflows");
  if (*n * bits % 8 != 0)
    return tensorError(name, std::to_string(*n) + " elements of " + dtypeName +
                                 " do not fill whole bytes");
  uint64_t expected = *n * bits / 8;
  if (*end - *begin != expected)
    return tensorError(name, "data_offsets " + offsets->dump() + " hold " +
                                 std::to_string(*end - *begin) +
                                 " bytes, but the shape and dtype need " +
                                 std::to_string(expected));
  info.name = name;
  info.elementType = *type;
  info.encoding = interopEncoding(*type);
  info.offset = *begin;
  info.length = expected;
  return Status::ok();
}

/// Applies a vmpack.type.NAME record to the tensor it names: an alias
/// stored under its dtype (si8 as I8), or any type stored as a dense bit
/// stream in a 1-D U8 tensor.
Status applyLogicalType(TensorInfo &info, const std::string &value) {
  LogicalTypeRule rule;
  rule.nativeType = [](const ElementType &type)
      -> std::optional<std::pair<ElementType, std::string>> {
    const char *dtype = toSafetensorsDtype(type);
    std::optional<ElementType> stored =
        dtype ? fromSafetensorsDtype(dtype) : std::nullopt;
    if (!stored)
      return std::nullopt;
    return std::make_pair(*stored, "dtype " + std::string(dtype));
  };
  rule.byteType = opaqueByteType();
  rule.byteTypeName = "U8";
  return formats::applyTypeRecord(
      info, value,
      "safetensors header: __metadata__ key " +
          quoteName(std::string(kSafetensorsTypeKeyPrefix) + info.name),
      rule);
}

struct TensorPlan {
  const char *dtype;
  Encoding encoding;
  uint64_t length;
  /// Stored as a 1-D U8 tensor of `length` bytes.
  bool packed;
  /// Needs a vmpack.type.NAME record.
  bool typeRecord;
};

/// How writeSafetensors stores `t`: its dtype when the type has one, else
/// (and for F4/F6 tensors of a bit count that is not a multiple of 8) the
/// packed bytes as U8.
StatusOr<TensorPlan> planTensor(const TensorInfo &t) {
  if (t.isOpaque()) {
    const GgmlTypeTraits *traits = ggmlTypeTraits(*t.ggmlBlockType);
    return Status::formatError(
        "tensor " + quoteName(t.name) + " is ggml " +
        (traits ? traits->name : std::to_string(*t.ggmlBlockType)) +
        " blocks, which safetensors cannot hold; write .gguf or .vmpk");
  }
  const char *dtype = toSafetensorsDtype(t.elementType);
  Encoding enc = interopEncoding(t.elementType);
  std::optional<uint64_t> length = storedSize(t.elementType, t.shape, enc);
  std::optional<uint64_t> n = numElements(t.shape);
  // F4 and F6 need whole bytes per tensor; an odd count falls back to U8.
  if (dtype && length && n && *n * safetensorsDtypeBits(dtype) % 8 == 0)
    return TensorPlan{dtype, enc, *length, false,
                      !(fromSafetensorsDtype(dtype) == t.elementType)};
  length = storedSize(t.elementType, t.shape, Encoding::Packed);
  if (!length)
    return Status::formatError("tensor " + quoteName(t.name) + ": " +
                               tensorTypeString(t.elementType, t.shape) +
                               " is too large");
  return TensorPlan{toSafetensorsDtype(opaqueByteType()), Encoding::Packed,
                    *length, true, true};
}

} // namespace

StatusOr<SafetensorsFile>
vmpack::formats::readSafetensors(const uint8_t *data, size_t size,
                                 const SafetensorsLimits &limits) {
  if (size < kLengthBytes)
    return Status::formatError(
        "safetensors: the file is " + std::to_string(size) +
        " bytes; it must start with an 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | data[i];
  if (n > limits.maxHeaderBytes)
    return Status::formatError("safetensors: the header length " +
                               std::to_string(n) + " exceeds the limit of " +
                               std::to_string(limits.maxHeaderBytes) +
                               " bytes");
  if (n > size - kLengthBytes)
    return Status::formatError(
        "safetensors: the header length " + std::to_string(n) +
        " runs past the end of the " + std::to_string(size) + "-byte file");
  if (n == 0 || data[kLengthBytes] != '{')
    return Status::formatError(
        "safetensors: the header at offset 8 does not start "
        "with '{'");
  std::vector<std::string> metadataOrder;
  StatusOr<json> header =
      parseHeader(data + kLengthBytes, size_t(n), limits, metadataOrder);
  if (!header)
    return header.status().withContext("safetensors: ");
  if (!header->is_object())
    return Status::formatError("safetensors: the header is not a JSON object");

  SafetensorsFile file;
  file.headerBytes = n;
  uint64_t dataStart = kLengthBytes + n;
  uint64_t dataSize = size - dataStart;
  std::map<std::string, std::string> types;
  for (auto it = header->begin(); it != header->end(); ++it) {
    if (it.key() == kMetadataKey) {
      if (!it->is_object())
        return Status::formatError("safetensors header: __metadata__ is not an "
                                   "object of strings");
      // In file order, as the keys appeared.
      for (const std::string &key : metadataOrder) {
        auto m = it->find(key);
        if (m == it->end())
          continue;
        if (!m->is_string())
          return Status::formatError(
              "safetensors header: __metadata__ value of " + quoteName(key) +
              " is not a string");
        const std::string &value = m->get_ref<const std::string &>();
        if (key.compare(0, kSafetensorsTypeKeyPrefix.size(),
                        kSafetensorsTypeKeyPrefix) == 0)
          types[key.substr(kSafetensorsTypeKeyPrefix.size())] = value;
        else
          file.metadata.emplace_back(key, value);
      }
      if (metadataOrder.size() != it->size())
        return Status::formatError(
            "safetensors header: __metadata__ keys could not "
            "be ordered");
      continue;
    }
    TensorInfo info;
    if (Status s = parseTensor(it.key(), *it, limits, info); !s)
      return s;
    file.tensors.push_back(std::move(info));
  }

  // The buffer must be covered exactly: no overlaps, no holes, nothing past
  // the end (safetensors' Metadata::validate).
  std::sort(file.tensors.begin(), file.tensors.end(),
            [](const TensorInfo &a, const TensorInfo &b) {
              return a.offset != b.offset ? a.offset < b.offset
                                          : a.length < b.length;
            });
  uint64_t expect = 0;
  for (const TensorInfo &t : file.tensors) {
    uint64_t end = t.offset + t.length; // both bounded by the checks below
    if (t.offset > dataSize || t.length > dataSize - t.offset)
      return tensorError(
          t.name, "data [" + std::to_string(t.offset) + ", " +
                      std::to_string(end) + ") runs past the end of the " +
                      std::to_string(dataSize) + "-byte data buffer");
    if (t.offset < expect)
      return tensorError(t.name, "data [" + std::to_string(t.offset) + ", " +
                                     std::to_string(end) +
                                     ") overlaps the previous tensor, which "
                                     "ends at " +
                                     std::to_string(expect));
    if (t.offset > expect)
      return tensorError(t.name, "data starts at " + std::to_string(t.offset) +
                                     ", leaving a hole after offset " +
                                     std::to_string(expect));
    expect = end;
  }
  if (expect != dataSize)
    return Status::formatError(
        "safetensors: the tensors cover " + std::to_string(expect) +
        " bytes of the " + std::to_string(dataSize) +
        "-byte data buffer; the rest is unaccounted for");

  std::unordered_map<std::string_view, size_t> byName;
  for (size_t i = 0; i < file.tensors.size(); ++i)
    byName.emplace(file.tensors[i].name, i);
  for (const auto &[name, value] : types) {
    auto it = byName.find(name);
    if (it == byName.end())
      return Status::formatError(
          "safetensors header: __metadata__ key " +
          quoteName(std::string(kSafetensorsTypeKeyPrefix) + name) +
          " names no tensor");
    if (Status s = applyLogicalType(file.tensors[it->second], value); !s)
      return s;
  }
  for (TensorInfo &t : file.tensors)
    t.offset += dataStart;
  return file;
}

Status vmpack::formats::writeSafetensors(
    const std::string &path, const std::vector<TensorSource> &tensors,
    const StringMetadata &metadata, OutputGroup *group) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  for (const auto &[key, value] : metadata) {
    if (key.compare(0, kSafetensorsTypeKeyPrefix.size(),
                    kSafetensorsTypeKeyPrefix) == 0)
      return Status::invalidArgument("metadata key " + quoteName(key) +
                                     " is reserved for "
                                     "vmpack's tensor types");
    if (meta.contains(key))
      return Status::invalidArgument("metadata key " + quoteName(key) +
                                     " appears twice");
    meta[key] = value;
  }
  struct Planned {
    Encoding encoding;
    uint64_t length;
  };
  std::vector<Planned> plan;
  std::set<std::string_view> names;
  uint64_t offset = 0;
  for (const TensorSource &src : tensors) {
    const TensorInfo &t = src.info;
    if (t.name == kMetadataKey)
      return Status::invalidArgument("a tensor cannot be named __metadata__ in "
                                     "safetensors");
    if (!names.insert(t.name).second)
      return Status::invalidArgument("two tensors are named " +
                                     quoteName(t.name));
    StatusOr<TensorPlan> p = planTensor(t);
    if (!p)
      return p.status();
    nlohmann::ordered_json entry;
    entry["dtype"] = p->dtype;
    if (p->packed)
      entry["shape"] = std::vector<uint64_t>{p->length};
    else
      entry["shape"] = t.shape;
    if (p->typeRecord)
      meta[std::string(kSafetensorsTypeKeyPrefix) + t.name] =
          tensorTypeString(t.elementType, t.shape);
    std::optional<uint64_t> length = p->length;
    Encoding enc = p->encoding;
    if (offset > std::numeric_limits<uint64_t>::max() - *length)
      return Status::invalidArgument("the tensors' total size overflows");
    entry["data_offsets"] = {offset, offset + *length};
    offset += *length;
    header[t.name] = std::move(entry);
    plan.push_back({enc, *length});
  }
  if (!meta.empty()) {
    nlohmann::ordered_json withMeta = nlohmann::ordered_json::object();
    withMeta[std::string(kMetadataKey)] = std::move(meta);
    for (auto it = header.begin(); it != header.end(); ++it)
      withMeta[it.key()] = std::move(it.value());
    header = std::move(withMeta);
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::ordered_json::exception &e) {
    return Status::invalidArgument(
        std::string("cannot write the safetensors header (a "
                    "name or metadata value is not UTF-8?): ") +
        e.what());
  }
  text.resize((text.size() + 7) / 8 * 8, ' ');
  uint64_t dataStart = kLengthBytes + text.size();
  if (offset > std::numeric_limits<uint64_t>::max() - dataStart)
    return Status::invalidArgument("the tensors' total size overflows");
  StatusOr<std::unique_ptr<OutputFile>> out =
      OutputFile::create(path, dataStart + offset, group);
  if (!out)
    return out.status();
  uint8_t length[kLengthBytes];
  for (unsigned i = 0; i < kLengthBytes; ++i)
    length[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
  if (Status s = (*out)->write(0, length, kLengthBytes); !s)
    return s;
  if (Status s = (*out)->write(kLengthBytes, text.data(), text.size()); !s)
    return s;
  uint64_t at = dataStart;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].info.length != storedSize(tensors[i].info.elementType,
                                             tensors[i].info.shape,
                                             tensors[i].info.encoding))
      return Status::invalidArgument(
          "tensor " + quoteName(tensors[i].info.name) + ": its source holds " +
          std::to_string(tensors[i].info.length) +
          " bytes, not the size of its type and shape");
    if (Status s = (*out)->writeTensor(at, tensors[i], plan[i].encoding); !s)
      return s;
    at += plan[i].length;
  }
  return (*out)->commit();
}

StatusOr<uint64_t>
vmpack::formats::safetensorsStoredBytes(const TensorInfo &tensor) {
  StatusOr<TensorPlan> p = planTensor(tensor);
  if (!p)
    return p.status();
  return p->length;
}
