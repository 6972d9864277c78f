//===- Gguf.cpp - Reading and writing GGUF files
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//---------------------------===//
//
// Layout: ggml-org/ggml docs/gguf.md, "File Structure". Checks follow ggml's
// own reader (src/gguf.cpp, gguf_init_from_reader) where it is stricter
// than the text: no nested arrays, alignment a power of two, names shorter
// than GGML_MAX_NAME on write, rows a whole number of blocks.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Gguf.h"

#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/TypeTable.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

using namespace vmpack;
using namespace vmpack::formats;

unsigned vmpack::formats::ggufScalarBytes(GgufType type) {
  switch (type) {
  case GgufType::UInt8:
  case GgufType::Int8:
  case GgufType::Bool:
    return 1;
  case GgufType::UInt16:
  case GgufType::Int16:
    return 2;
  case GgufType::UInt32:
  case GgufType::Int32:
  case GgufType::Float32:
    return 4;
  case GgufType::UInt64:
  case GgufType::Int64:
  case GgufType::Float64:
    return 8;
  case GgufType::String:
  case GgufType::Array:
    return 0;
  }
  return 0;
}

bool vmpack::formats::ggufIsSigned(GgufType type) {
  return type == GgufType::Int8 || type == GgufType::Int16 ||
         type == GgufType::Int32 || type == GgufType::Int64;
}

namespace {

constexpr uint32_t kMagic = 0x46554747; // "GGUF" read little-endian
constexpr uint32_t kVersion = 3;
constexpr size_t kMaxWrittenNameBytes = kGgufMaxWrittenNameBytes;

bool isKnownType(uint32_t t) { return t <= uint32_t(GgufType::Float64); }

const char *ggmlName(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  return t ? t->name : "?";
}

/// A bounds-checked reader over the input. Every failure records the file
/// offset at which it happened.
class Cursor {
public:
  Cursor(const uint8_t *data, size_t size) : data(data), size(size) {}

  size_t offset() const { return pos; }
  size_t remaining() const { return size - pos; }

  bool fail(const std::string &what) {
    if (error.empty())
      error = "GGUF: at offset " + std::to_string(pos) + ": " + what;
    return false;
  }
  bool u32(uint32_t &v, const char *what) {
    uint64_t x;
    if (!bytes(4, x, what))
      return false;
    v = uint32_t(x);
    return true;
  }
  bool u64(uint64_t &v, const char *what) { return bytes(8, v, what); }
  bool bytes(unsigned n, uint64_t &v, const char *what) {
    if (remaining() < n)
      return fail(std::string("the file ends inside ") + what);
    v = 0;
    for (unsigned i = 0; i < n; ++i)
      v |= uint64_t(data[pos + i]) << (8 * i);
    pos += n;
    return true;
  }
  bool string(std::string &s, uint64_t maxBytes, const char *what) {
    uint64_t n;
    if (!u64(n, what))
      return false;
    if (n > maxBytes)
      return fail(std::string(what) + " is " + std::to_string(n) +
                  " bytes long; the limit is " + std::to_string(maxBytes));
    if (n > remaining())
      return fail(std::string(what) + " of " + std::to_string(n) +
                  " bytes runs past the end of the file");
    s.assign(reinterpret_cast<const char *>(data + pos), size_t(n));
    pos += size_t(n);
    return true;
  }

  std::string error;

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

bool readValue(Cursor &in, GgufType type, const std::string &key,
               const GgufLimits &limits, GgufValue &value) {
  value.type = type;
  if (type == GgufType::String) {
    value.strings.emplace_back();
    return in.string(value.strings.back(), std::numeric_limits<uint64_t>::max(),
                     "a string value");
  }
  if (type == GgufType::Array) {
    uint32_t element;
    uint64_t count;
    if (!in.u32(element, "an array's element type") ||
        !in.u64(count, "an array's length"))
      return false;
    if (!isKnownType(element))
      return in.fail("key " + quoteName(key) + ": array element type " +
                     std::to_string(element) + " is not a GGUF value type");
    if (GgufType(element) == GgufType::Array)
      return in.fail("key " + quoteName(key) +
                     ": arrays of arrays are not supported (nor by ggml)");
    if (count > limits.maxArrayElements)
      return in.fail("key " + quoteName(key) + ": an array of " +
                     std::to_string(count) + " elements exceeds the limit of " +
                     std::to_string(limits.maxArrayElements));
    value.elementType = GgufType(element);
    unsigned each = ggufScalarBytes(value.elementType);
    // Every element takes at least its fixed bytes (8 for a string's
    // length): check before reserving anything.
    if (count > in.remaining() / (each ? each : 8))
      return in.fail("key " + quoteName(key) + ": an array of " +
                     std::to_string(count) +
                     " elements runs past the end of the file");
    if (each) {
      value.scalars.resize(size_t(count));
      for (uint64_t &s : value.scalars) {
        if (!in.bytes(each, s, "an array"))
          return false;
        if (value.elementType == GgufType::Bool && s > 1)
          return in.fail("key " + quoteName(key) + ": a bool is " +
                         std::to_string(s) + ", not 0 or 1");
      }
    } else {
      value.strings.resize(size_t(count));
      for (std::string &s : value.strings)
        if (!in.string(s, std::numeric_limits<uint64_t>::max(),
                       "an array's string"))
          return false;
    }
    return true;
  }
  value.scalars.emplace_back();
  if (!in.bytes(ggufScalarBytes(type), value.scalars.back(), "a value"))
    return false;
  if (type == GgufType::Bool && value.scalars.back() > 1)
    return in.fail("key " + quoteName(key) + ": a bool is " +
                   std::to_string(value.scalars.back()) + ", not 0 or 1");
  return true;
}

/// Applies a vmpack.type.NAME record: the rule of safetensors, with ggml
/// types (rank at most 4) and I8 as the byte type.
Status applyLogicalType(TensorInfo &info, const GgufValue &value) {
  std::string where =
      "GGUF: key " + quoteName(std::string(kGgufTypeKeyPrefix) + info.name);
  if (value.type != GgufType::String)
    return Status::formatError(where + " is not a string");
  LogicalTypeRule rule;
  rule.nativeType = [](const ElementType &type)
      -> std::optional<std::pair<ElementType, std::string>> {
    std::optional<uint32_t> ggml = toGgmlType(type);
    std::optional<ElementType> stored =
        ggml ? fromGgmlType(*ggml) : std::nullopt;
    if (!stored)
      return std::nullopt;
    return std::make_pair(*stored, "ggml type " + std::string(ggmlName(*ggml)));
  };
  rule.byteType = *fromGgmlType(ggmlByteType());
  rule.byteTypeName = "I8";
  rule.maxRank = 4;
  return formats::applyTypeRecord(info, value.strings[0], where, rule);
}

uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

} // namespace

GgufValue GgufValue::uint32(uint32_t v) {
  GgufValue value;
  value.type = GgufType::UInt32;
  value.scalars = {v};
  return value;
}

GgufValue GgufValue::string(std::string v) {
  GgufValue value;
  value.type = GgufType::String;
  value.strings = {std::move(v)};
  return value;
}

StatusOr<uint64_t>
vmpack::formats::ggmlTensorBytes(uint32_t ggmlType,
                                 const std::vector<int64_t> &shape) {
  if (ggmlType == 4 || ggmlType == 5)
    return Status::formatError("ggml type " + std::to_string(ggmlType) +
                               " (Q4_" + (ggmlType == 4 ? "2" : "3") +
                               ") was removed from ggml and has no block size");
  const GgmlTypeTraits *traits = ggmlTypeTraits(ggmlType);
  if (!traits)
    return Status::formatError("ggml type " + std::to_string(ggmlType) +
                               " is not a type GGUF files hold");
  std::optional<uint64_t> n = numElements(shape);
  if (!n)
    return Status::formatError("the element count overflows");
  int64_t row = shape.empty() ? 1 : shape.back();
  if (uint64_t(row) % traits->blockSize != 0)
    return Status::formatError("rows of " + std::to_string(row) +
                               " elements are not "
                               "a whole number of " +
                               traits->name + " blocks of " +
                               std::to_string(traits->blockSize));
  uint64_t blocks = *n / traits->blockSize;
  if (blocks > std::numeric_limits<uint64_t>::max() / 2 / traits->typeSize)
    return Status::formatError("the size in bytes overflows");
  return blocks * traits->typeSize;
}

StatusOr<GgufFile> vmpack::formats::readGguf(const uint8_t *data, size_t size,
                                             const GgufLimits &limits) {
  Cursor in(data, size);
  GgufFile file;
  uint32_t magic;
  if (!in.u32(magic, "the magic number"))
    return Status::formatError(in.error);
  if (magic != kMagic)
    return Status::formatError("GGUF: the file does not start with 'GGUF'");
  uint32_t version;
  if (!in.u32(version, "the version"))
    return Status::formatError(in.error);
  if (version != 2 && version != 3) {
    if (version == 0x03000000 || version == 0x02000000)
      return Status::unsupported(
          "GGUF: the file is big-endian, which vmpack does "
          "not read");
    return Status::unsupported("GGUF: version " + std::to_string(version) +
                               " is not supported (2 and 3 are)");
  }
  file.version = version;
  uint64_t numTensors, numKeyValues;
  if (!in.u64(numTensors, "the tensor count") ||
      !in.u64(numKeyValues, "the key/value count"))
    return Status::formatError(in.error);
  if (numTensors > limits.maxTensors)
    return Status::formatError("GGUF: " + std::to_string(numTensors) +
                               " tensors exceed the limit of " +
                               std::to_string(limits.maxTensors));
  if (numKeyValues > limits.maxKeyValues)
    return Status::formatError("GGUF: " + std::to_string(numKeyValues) +
                               " key/value pairs exceed the limit of " +
                               std::to_string(limits.maxKeyValues));
  // Each pair takes at least 12 bytes and each tensor info 24.
  if (numKeyValues > in.remaining() / 12 ||
      numTensors > (in.remaining() - numKeyValues * 12) / 24)
    return Status::formatError(
        "GGUF: " + std::to_string(numKeyValues) + " key/value pairs and " +
        std::to_string(numTensors) + " tensors cannot fit in the file");

  std::set<std::string> keys;
  std::map<std::string, GgufValue> types;
  for (uint64_t i = 0; i < numKeyValues; ++i) {
    GgufKeyValue kv;
    uint32_t type;
    if (!in.string(kv.key, limits.maxKeyBytes, "a key") ||
        !in.u32(type, "a value type"))
      return Status::formatError(in.error);
    if (kv.key.empty())
      return Status::formatError("GGUF: key/value pair " + std::to_string(i) +
                                 " has an empty key");
    if (!keys.insert(kv.key).second)
      return Status::formatError("GGUF: the key " + quoteName(kv.key) +
                                 " appears twice");
    if (!isKnownType(type))
      return Status::formatError("GGUF: key " + quoteName(kv.key) +
                                 ": value type " + std::to_string(type) +
                                 " is not a GGUF value type (0-12)");
    if (!readValue(in, GgufType(type), kv.key, limits, kv.value))
      return Status::formatError(in.error);
    if (kv.key == kGgufAlignmentKey) {
      if (kv.value.type != GgufType::UInt32)
        return Status::formatError("GGUF: general.alignment is not a uint32");
      uint64_t a = kv.value.scalars[0];
      if (a == 0 || (a & (a - 1)) != 0 || a > (uint64_t(1) << 30))
        return Status::formatError("GGUF: general.alignment " +
                                   std::to_string(a) +
                                   " is not a power of two up to 2^30");
      file.alignment = uint32_t(a);
    }
    if (kv.key.compare(0, kGgufTypeKeyPrefix.size(), kGgufTypeKeyPrefix) == 0)
      types[kv.key.substr(kGgufTypeKeyPrefix.size())] = std::move(kv.value);
    else
      file.metadata.push_back(std::move(kv));
  }

  std::unordered_map<std::string, size_t> byName;
  for (uint64_t i = 0; i < numTensors; ++i) {
    TensorInfo t;
    if (!in.string(t.name, limits.maxNameBytes, "a tensor name"))
      return Status::formatError(in.error);
    if (!byName.emplace(t.name, file.tensors.size()).second)
      return Status::formatError("GGUF: two tensors are named " +
                                 quoteName(t.name));
    uint32_t rank;
    if (!in.u32(rank, "a tensor's rank"))
      return Status::formatError(in.error);
    if (rank > limits.maxRank)
      return Status::formatError(
          "GGUF: tensor " + quoteName(t.name) + " has " + std::to_string(rank) +
          " dimensions; at most " + std::to_string(limits.maxRank) +
          " are allowed");
    t.shape.resize(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t dim;
      if (!in.u64(dim, "a tensor's dimensions"))
        return Status::formatError(in.error);
      if (dim > uint64_t(std::numeric_limits<int64_t>::max()))
        return Status::formatError("GGUF: tensor " + quoteName(t.name) +
                                   ": dimension " + std::to_string(dim) +
                                   " is too large");
      // GGUF lists the innermost dimension first; MLIR the outermost.
      t.shape[rank - 1 - d] = int64_t(dim);
    }
    uint32_t type;
    uint64_t offset;
    if (!in.u32(type, "a tensor's type") ||
        !in.u64(offset, "a tensor's offset"))
      return Status::formatError(in.error);
    StatusOr<uint64_t> bytes = ggmlTensorBytes(type, t.shape);
    if (!bytes)
      return Status::formatError("GGUF: tensor " + quoteName(t.name) + ": " +
                                 bytes.status().message());
    if (std::optional<ElementType> plain = fromGgmlType(type)) {
      t.elementType = *plain;
      t.encoding = interopEncoding(*plain);
    } else {
      t.ggmlBlockType = type;
      t.encoding = Encoding::Byte;
    }
    t.offset = offset;
    t.length = *bytes;
    file.tensors.push_back(std::move(t));
  }

  uint64_t dataStart = alignUp(in.offset(), file.alignment);
  if (!file.tensors.empty() && dataStart > size)
    return Status::formatError("GGUF: the tensor data section would start at " +
                               std::to_string(dataStart) +
                               ", past the end of the " + std::to_string(size) +
                               "-byte file");
  file.dataStart = dataStart;
  uint64_t dataSize = size - std::min<uint64_t>(dataStart, size);
  for (TensorInfo &t : file.tensors) {
    if (t.offset % file.alignment != 0)
      return Status::formatError("GGUF: tensor " + quoteName(t.name) +
                                 ": offset " + std::to_string(t.offset) +
                                 " is not a multiple of the alignment " +
                                 std::to_string(file.alignment));
    if (t.offset > dataSize || t.length > dataSize - t.offset)
      return Status::formatError(
          "GGUF: tensor " + quoteName(t.name) + ": data [" +
          std::to_string(t.offset) + ", +" + std::to_string(t.length) +
          ") runs past the end of the " + std::to_string(dataSize) +
          "-byte data section");
  }
  std::vector<const TensorInfo *> sorted;
  for (const TensorInfo &t : file.tensors)
    sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const TensorInfo *a, const TensorInfo *b) {
              return a->offset < b->offset;
            });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->offset < sorted[i - 1]->offset + sorted[i - 1]->length)
      return Status::formatError(
          "GGUF: tensor " + quoteName(sorted[i]->name) + " at data offset " +
          std::to_string(sorted[i]->offset) + " overlaps tensor " +
          quoteName(sorted[i - 1]->name));

  for (const auto &[name, value] : types) {
    auto it = byName.find(name);
    if (it == byName.end())
      return Status::formatError(
          "GGUF: key " + quoteName(std::string(kGgufTypeKeyPrefix) + name) +
          " names no tensor");
    if (Status s = applyLogicalType(file.tensors[it->second], value); !s)
      return s;
  }
  for (TensorInfo &t : file.tensors)
    t.offset += dataStart;
  return file;
}

namespace {

/// Little-endian serialization of the header and tensor infos.
class Writer {
public:
  void u32(uint32_t v) { bytes(v, 4); }
  void u64(uint64_t v) { bytes(v, 8); }
  void bytes(uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      out.push_back(char(uint8_t(v >> (8 * i))));
  }
  void string(const std::string &s) {
    u64(s.size());
    out += s;
  }
  void value(const GgufValue &v) {
    if (v.type == GgufType::String) {
      string(v.strings.at(0));
      return;
    }
    if (v.type == GgufType::Array) {
      u32(uint32_t(v.elementType));
      if (v.elementType == GgufType::String) {
        u64(v.strings.size());
        for (const std::string &s : v.strings)
          string(s);
      } else {
        u64(v.scalars.size());
        for (uint64_t s : v.scalars)
          bytes(s, ggufScalarBytes(v.elementType));
      }
      return;
    }
    bytes(v.scalars.at(0), ggufScalarBytes(v.type));
  }
  std::string out;
};

Status checkValue(const GgufKeyValue &kv) {
  const GgufValue &v = kv.value;
  auto bad = [&](const std::string &what) {
    return Status::invalidArgument("metadata key " + quoteName(kv.key) + ": " +
                                   what);
  };
  if (!isKnownType(uint32_t(v.type)))
    return bad("unknown value type");
  if (v.type == GgufType::Array) {
    if (!isKnownType(uint32_t(v.elementType)) ||
        v.elementType == GgufType::Array)
      return bad("arrays hold scalars or strings");
    if (v.elementType == GgufType::String ? !v.scalars.empty()
                                          : !v.strings.empty())
      return bad("array contents do not match the element type");
  } else if (v.type == GgufType::String) {
    if (v.strings.size() != 1 || !v.scalars.empty())
      return bad("a string value holds one string");
  } else if (v.scalars.size() != 1 || !v.strings.empty()) {
    return bad("a scalar value holds one number");
  }
  unsigned each =
      ggufScalarBytes(v.type == GgufType::Array ? v.elementType : v.type);
  for (uint64_t s : v.scalars)
    if (each < 8 && (s >> (8 * each)) != 0)
      return bad("a value does not fit its type");
  return Status::ok();
}

struct Planned {
  uint32_t ggmlType;
  std::vector<int64_t> shape;
  Encoding encoding;
  uint64_t length;
  uint64_t offset;
};

/// How writeGguf stores `t`; appends its vmpack.type record, if it needs
/// one, to `records`.
StatusOr<Planned> planTensor(const TensorInfo &t, GgufMetadata *records) {
  if (t.isOpaque()) {
    if (t.shape.size() > 4)
      return Status::invalidArgument("tensor " + quoteName(t.name) +
                                     ": GGUF holds at "
                                     "most 4 dimensions");
    StatusOr<uint64_t> bytes = ggmlTensorBytes(*t.ggmlBlockType, t.shape);
    if (!bytes)
      return Status::invalidArgument("tensor " + quoteName(t.name) + ": " +
                                     bytes.status().message());
    if (*bytes != t.length)
      return Status::invalidArgument(
          "tensor " + quoteName(t.name) +
          ": its source "
          "holds " +
          std::to_string(t.length) + " bytes, not the " +
          std::to_string(*bytes) + " its ggml type and shape need");
    return Planned{*t.ggmlBlockType, t.shape, Encoding::Byte, *bytes, 0};
  } else {
    if (t.length != storedSize(t.elementType, t.shape, t.encoding))
      return Status::invalidArgument(
          "tensor " + quoteName(t.name) +
          ": its source "
          "holds " +
          std::to_string(t.length) +
          " bytes, not the size of its type and shape");
    std::optional<uint32_t> ggml = toGgmlType(t.elementType);
    if (ggml && t.shape.size() <= 4) {
      Encoding enc = interopEncoding(t.elementType);
      Planned p{*ggml, t.shape, enc, *storedSize(t.elementType, t.shape, enc),
                0};
      if (!(fromGgmlType(*ggml) == t.elementType) && records)
        records->push_back(
            {std::string(kGgufTypeKeyPrefix) + t.name,
             GgufValue::string(tensorTypeString(t.elementType, t.shape))});
      return p;
    } else {
      std::optional<uint64_t> bytes =
          storedSize(t.elementType, t.shape, Encoding::Packed);
      if (!bytes || *bytes > uint64_t(std::numeric_limits<int64_t>::max()))
        return Status::invalidArgument("tensor " + quoteName(t.name) +
                                       " is too large");
      Planned p{ggmlByteType(), {int64_t(*bytes)}, Encoding::Packed, *bytes, 0};
      if (records)
        records->push_back(
            {std::string(kGgufTypeKeyPrefix) + t.name,
             GgufValue::string(tensorTypeString(t.elementType, t.shape))});
      return p;
    }
  }
}

} // namespace

Status vmpack::formats::writeGguf(const std::string &path,
                                  const std::vector<TensorSource> &tensors,
                                  const GgufMetadata &metadata,
                                  OutputGroup *group) {
  uint32_t alignment = kGgufDefaultAlignment;
  std::set<std::string> keys;
  for (const GgufKeyValue &kv : metadata) {
    if (kv.key.empty() || kv.key.size() > 65535)
      return Status::invalidArgument("metadata key " + quoteName(kv.key) +
                                     " must be 1 to 65535 bytes");
    if (!keys.insert(kv.key).second)
      return Status::invalidArgument("metadata key " + quoteName(kv.key) +
                                     " appears twice");
    if (kv.key.compare(0, kGgufTypeKeyPrefix.size(), kGgufTypeKeyPrefix) == 0)
      return Status::invalidArgument("metadata key " + quoteName(kv.key) +
                                     " is reserved for vmpack's tensor types");
    if (Status s = checkValue(kv); !s)
      return s;
    if (kv.key == kGgufAlignmentKey) {
      uint64_t a = kv.value.type == GgufType::UInt32 ? kv.value.scalars[0] : 0;
      if (a < 8 || (a & (a - 1)) != 0 || a > (uint64_t(1) << 30))
        return Status::invalidArgument(
            "general.alignment must be a uint32 power of two "
            "from 8 to 2^30");
      alignment = uint32_t(a);
    }
  }

  std::vector<Planned> plan;
  GgufMetadata records;
  std::set<std::string_view> names;
  uint64_t dataSize = 0;
  for (const TensorSource &src : tensors) {
    const TensorInfo &t = src.info;
    if (t.name.size() > kMaxWrittenNameBytes)
      return Status::invalidArgument("tensor " + quoteName(t.name) +
                                     ": GGUF names are "
                                     "at most 63 bytes (ggml's GGML_MAX_NAME)");
    if (!names.insert(t.name).second)
      return Status::invalidArgument("two tensors are named " +
                                     quoteName(t.name));
    StatusOr<Planned> p = planTensor(t, &records);
    if (!p)
      return p.status();
    p->offset = dataSize;
    if (p->length > std::numeric_limits<uint64_t>::max() / 2 - dataSize)
      return Status::invalidArgument("the tensors' total size overflows");
    dataSize = alignUp(dataSize + p->length, alignment);
    plan.push_back(std::move(*p));
  }

  Writer w;
  w.u32(kMagic);
  w.u32(kVersion);
  w.u64(tensors.size());
  w.u64(metadata.size() + records.size());
  for (const GgufMetadata *list :
       std::initializer_list<const GgufMetadata *>{&metadata, &records})
    for (const GgufKeyValue &kv : *list) {
      w.string(kv.key);
      w.u32(uint32_t(kv.value.type));
      w.value(kv.value);
    }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Planned &p = plan[i];
    w.string(tensors[i].info.name);
    w.u32(uint32_t(p.shape.size()));
    for (auto d = p.shape.rbegin(); d != p.shape.rend(); ++d)
      w.u64(uint64_t(*d));
    w.u32(p.ggmlType);
    w.u64(p.offset);
  }
  uint64_t dataStart = alignUp(w.out.size(), alignment);
  StatusOr<std::unique_ptr<OutputFile>> out =
      OutputFile::create(path, dataStart + dataSize, group);
  if (!out)
    return out.status();
  if (Status s = (*out)->write(0, w.out.data(), w.out.size()); !s)
    return s;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (Status s = (*out)->writeTensor(dataStart + plan[i].offset, tensors[i],
                                       plan[i].encoding);
        !s)
      return s;
  return (*out)->commit();
}

StatusOr<uint64_t> vmpack::formats::ggufStoredBytes(const TensorInfo &tensor) {
  StatusOr<Planned> p = planTensor(tensor, nullptr);
  if (!p)
    return p.status();
  return p->length;
}
