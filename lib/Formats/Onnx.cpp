//===- Onnx.cpp - ONNX models: their tensors read and written -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Field numbers and the meaning of each field: onnx/onnx, onnx/onnx.proto
// (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto,
// StringStringEntryProto), IR version 12. The wire format is protobuf's
// (protobuf.dev/programming-guides/encoding), read with
// google::protobuf::io::CodedInputStream and written with
// CodedOutputStream's varint helpers.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Onnx.h"

#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/Parallel.h"

#include "ProtobufFields.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::formats;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using vmpack::formats::protobuf::bytesOf;
using vmpack::formats::protobuf::Field;
using vmpack::formats::protobuf::Fields;
using namespace vmpack::formats::protobuf::wire;

namespace {

// Field numbers (onnx.proto).
namespace model {
constexpr uint32_t kIrVersion = 1, kGraph = 7, kMetadataProps = 14;
constexpr uint32_t kProducerName = 2, kProducerVersion = 3, kOpsetImport = 8;
} // namespace model
namespace graph {
constexpr uint32_t kNode = 1, kName = 2, kInitializer = 5,
                   kSparseInitializer = 15;
}
namespace node {
constexpr uint32_t kInput = 1, kOutput = 2, kName = 3, kOpType = 4,
                   kAttribute = 5, kDomain = 7;
}
namespace attr {
constexpr uint32_t kName = 1, kI = 3, kT = 5, kG = 6, kTensors = 10,
                   kGraphs = 11, kSparseTensor = 22, kSparseTensors = 23;
}
namespace tensor {
constexpr uint32_t kDims = 1, kDataType = 2, kSegment = 3, kFloatData = 4,
                   kInt32Data = 5, kStringData = 6, kInt64Data = 7, kName = 8,
                   kRawData = 9, kDoubleData = 10, kUint64Data = 11,
                   kExternalData = 13, kDataLocation = 14;
}
namespace entry {
constexpr uint32_t kKey = 1, kValue = 2;
}
constexpr int32_t kOnnxString = 8;

/// A byte range of varints or fixed-width values of one repeated field.
struct Run {
  uint64_t offset, length;
};

/// Calls `each` with every varint of `runs`; false on a malformed varint.
template <typename F>
bool forEachVarint(const uint8_t *base, const std::vector<Run> &runs, F each) {
  for (const Run &r : runs) {
    CodedInputStream in(base + r.offset, int(r.length));
    while (uint64_t(in.CurrentPosition()) < r.length) {
      uint64_t v;
      if (!in.ReadVarint64(&v))
        return false;
      each(v);
    }
  }
  return true;
}

uint64_t countVarints(const uint8_t *base, const std::vector<Run> &runs) {
  uint64_t n = 0;
  for (const Run &r : runs)
    for (uint64_t i = 0; i < r.length; ++i)
      n += (base[r.offset + i] & 0x80) == 0;
  return n;
}

std::string onnxTypeName(int32_t t) {
  static const char *names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4",       "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",      "INT2"};
  if (t >= 0 && size_t(t) < sizeof(names) / sizeof(names[0]))
    return names[t];
  return "data type " + std::to_string(t);
}

/// Unique, deterministic names (docs/interop.md, "ONNX").
class Namer {
public:
  std::string name(const std::string &own, const std::string &scope) {
    if (!own.empty() && taken.insert(own).second)
      return own;
    std::string base = (scope.empty() ? std::string() : scope + "/") +
                       (own.empty() ? std::string("tensor") : own);
    if (taken.insert(base).second)
      return base;
    for (uint64_t k = next[base] + 1;; ++k) {
      std::string candidate = base + "#" + std::to_string(k);
      if (taken.insert(candidate).second) {
        next[base] = k;
        return candidate;
      }
    }
  }

private:
  std::set<std::string> taken;
  std::map<std::string, uint64_t> next;
};

class Parser {
public:
  Parser(const uint8_t *base, size_t size, const OnnxLimits &limits)
      : base(base), size(size), limits(limits) {}

  StatusOr<OnnxModel> run() {
    Fields fields(base, 0, size);
    Field f;
    std::optional<Field> graphField;
    for (;;) {
      StatusOr<bool> more = fields.next(f);
      if (!more)
        return more.status().withContext("ModelProto: ");
      if (!*more)
        break;
      if (f.number == model::kIrVersion && f.wireType == kVarint)
        out.irVersion = int64_t(f.value);
      else if (f.number == model::kGraph && f.wireType == kLen)
        graphField = f;
      else if (f.number == model::kMetadataProps && f.wireType == kLen) {
        StatusOr<std::pair<std::string, std::string>> kv = readEntry(f);
        if (!kv)
          return kv.status().withContext("ModelProto.metadata_props: ");
        out.metadata.push_back(std::move(*kv));
      }
    }
    if (!graphField)
      return Status::formatError("ModelProto has no graph (field 7); is this "
                                 "an ONNX model?");
    if (Status s = readGraph(*graphField, "", 1); !s)
      return s;
    return std::move(out);
  }

private:
  StatusOr<std::pair<std::string, std::string>> readEntry(const Field &e) {
    Fields fields(base, e.offset, e.offset + e.length);
    Field f;
    std::pair<std::string, std::string> kv;
    for (;;) {
      StatusOr<bool> more = fields.next(f);
      if (!more)
        return more.status();
      if (!*more)
        return kv;
      if (f.wireType != kLen)
        continue;
      if (f.number == entry::kKey)
        kv.first = std::string(bytesOf(base, f));
      else if (f.number == entry::kValue)
        kv.second = std::string(bytesOf(base, f));
    }
  }

  Status readGraph(const Field &g, const std::string &scope, unsigned depth) {
    if (depth > limits.maxGraphDepth)
      return Status::formatError("graphs nested deeper than " +
                                 std::to_string(limits.maxGraphDepth) + " at " +
                                 quoteName(scope));
    std::vector<Field> initializers, nodes;
    Fields fields(base, g.offset, g.offset + g.length);
    Field f;
    std::string where = scope.empty() ? "the main graph" : quoteName(scope);
    for (;;) {
      StatusOr<bool> more = fields.next(f);
      if (!more)
        return more.status().withContext("GraphProto " + where + ": ");
      if (!*more)
        break;
      if (f.wireType != kLen)
        continue;
      if (f.number == graph::kInitializer)
        initializers.push_back(f);
      else if (f.number == graph::kNode)
        nodes.push_back(f);
      else if (f.number == graph::kSparseInitializer)
        return Status::unsupported(
            "GraphProto " + where +
            ": a sparse initializer (sparse_initializer); vmpack reads dense "
            "tensors only (store it densified)");
    }
    // A graph's own initializers are named before anything nested in it.
    for (const Field &t : initializers)
      if (Status s = readTensor(t, scope, /*constantName=*/nullptr); !s)
        return s;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (Status s = readNode(nodes[i], scope, i, depth); !s)
        return s;
    return Status::ok();
  }

  Status readNode(const Field &n, const std::string &scope, size_t index,
                  unsigned depth) {
    std::string name, opType, domain, output;
    std::vector<std::string> inputs;
    bool haveOutput = false;
    std::vector<Field> attributes;
    Fields fields(base, n.offset, n.offset + n.length);
    Field f;
    for (;;) {
      StatusOr<bool> more = fields.next(f);
      if (!more)
        return more.status().withContext("NodeProto: ");
      if (!*more)
        break;
      if (f.wireType != kLen)
        continue;
      switch (f.number) {
      case node::kName:
        name = std::string(bytesOf(base, f));
        break;
      case node::kOpType:
        opType = std::string(bytesOf(base, f));
        break;
      case node::kDomain:
        domain = std::string(bytesOf(base, f));
        break;
      case node::kInput:
        inputs.emplace_back(bytesOf(base, f));
        break;
      case node::kOutput:
        if (!haveOutput)
          output = std::string(bytesOf(base, f));
        haveOutput = true;
        break;
      case node::kAttribute:
        attributes.push_back(f);
        break;
      default:
        break;
      }
    }
    std::string label = name.empty() ? "node" + std::to_string(index) : name;
    std::string nodeScope = (scope.empty() ? "" : scope + "/") + label;
    bool constant =
        opType == "Constant" && (domain.empty() || domain == "ai.onnx");
    // Nodes of the main graph that hold quantized weights.
    bool quantNode = scope.empty() &&
                     ((opType == "MatMulNBits" && domain == "com.microsoft") ||
                      (opType == "DequantizeLinear" &&
                       (domain.empty() || domain == "ai.onnx")));
    OnnxNode recorded;
    for (const Field &a : attributes) {
      std::string attrName;
      std::optional<int64_t> intValue;
      std::vector<Field> graphs, tensors;
      bool sparse = false;
      Fields af(base, a.offset, a.offset + a.length);
      for (;;) {
        StatusOr<bool> more = af.next(f);
        if (!more)
          return more.status().withContext("AttributeProto: ");
        if (!*more)
          break;
        if (f.number == attr::kI && f.wireType == kVarint)
          intValue = int64_t(f.value);
        if (f.wireType != kLen)
          continue;
        if (f.number == attr::kName)
          attrName = std::string(bytesOf(base, f));
        else if (f.number == attr::kG || f.number == attr::kGraphs)
          graphs.push_back(f);
        else if (f.number == attr::kT)
          tensors.push_back(f);
        else if (f.number == attr::kSparseTensor ||
                 f.number == attr::kSparseTensors)
          sparse = true;
      }
      if (quantNode && intValue)
        recorded.ints[attrName] = *intValue;
      if (constant && sparse)
        return Status::unsupported(
            "Constant node " + quoteName(label) +
            ": a sparse_value; vmpack reads dense tensors only");
      if (constant && attrName == "value")
        for (const Field &t : tensors) {
          std::string own = haveOutput ? output : label;
          if (Status s = readTensor(t, scope, &own); !s)
            return s;
        }
      for (size_t k = 0; k < graphs.size(); ++k) {
        std::string sub = nodeScope + "/" + attrName;
        if (graphs.size() > 1)
          sub += "/" + std::to_string(k);
        if (Status s = readGraph(graphs[k], sub, depth + 1); !s)
          return s;
      }
    }
    if (quantNode) {
      recorded.opType = opType;
      recorded.domain = domain;
      recorded.inputs = std::move(inputs);
      out.nodes.push_back(std::move(recorded));
    }
    return Status::ok();
  }

  /// Reads the TensorProto in `t`: an initializer, or a Constant's value
  /// named `constantName`.
  Status readTensor(const Field &t, const std::string &scope,
                    const std::string *constantName) {
    if (out.tensors.size() >= limits.maxTensors)
      return Status::formatError(
          "more than " + std::to_string(limits.maxTensors) + " tensors");
    OnnxTensor x;
    x.protoOffset = t.offset;
    x.protoLength = t.length;
    x.initializer = constantName == nullptr;
    std::string ownName;
    std::vector<Run> dimRuns;
    std::vector<int64_t> dims;
    std::optional<Field> raw;
    int64_t dataType = 0;
    uint64_t location = 0;
    std::vector<Field> external;
    // Typed fields by field number.
    std::map<uint32_t, std::vector<Run>> typed;
    bool strings = false, segment = false;
    Fields fields(base, t.offset, t.offset + t.length);
    Field f;
    auto where = [&]() {
      std::string n = constantName ? *constantName : ownName;
      return std::string(constantName ? "Constant " : "initializer ") +
             quoteName(scope.empty() ? n : scope + "/" + n);
    };
    for (;;) {
      StatusOr<bool> more = fields.next(f);
      if (!more)
        return more.status().withContext("TensorProto: ");
      if (!*more)
        break;
      auto packedOr = [&](uint32_t scalarWire, uint64_t scalarBytes) {
        if (f.wireType == kLen)
          typed[f.number].push_back({f.offset, f.length});
        else if (f.wireType == scalarWire)
          typed[f.number].push_back({f.fieldEnd - scalarBytes, scalarBytes});
      };
      switch (f.number) {
      case tensor::kDims:
        if (f.wireType == kLen)
          dimRuns.push_back({f.offset, f.length});
        else if (f.wireType == kVarint)
          dims.push_back(int64_t(f.value));
        break;
      case tensor::kDataType:
        if (f.wireType == kVarint)
          dataType = int64_t(f.value);
        break;
      case tensor::kSegment:
        segment = true;
        break;
      case tensor::kFloatData:
        packedOr(kFixed32, 4);
        break;
      case tensor::kDoubleData:
        packedOr(kFixed64, 8);
        break;
      case tensor::kInt32Data:
      case tensor::kInt64Data:
      case tensor::kUint64Data:
        // An unpacked varint: its bytes end where the field ends.
        if (f.wireType == kLen)
          typed[f.number].push_back({f.offset, f.length});
        else if (f.wireType == kVarint) {
          uint64_t n = uint64_t(CodedOutputStream::VarintSize64(f.value));
          typed[f.number].push_back({f.fieldEnd - n, n});
        }
        break;
      case tensor::kStringData:
        strings = true;
        break;
      case tensor::kName:
        if (f.wireType == kLen)
          ownName = std::string(bytesOf(base, f));
        break;
      case tensor::kRawData:
        if (f.wireType == kLen)
          raw = f;
        break;
      case tensor::kExternalData:
        if (f.wireType == kLen)
          external.push_back(f);
        break;
      case tensor::kDataLocation:
        if (f.wireType == kVarint)
          location = f.value;
        break;
      default:
        break;
      }
    }
    if (!constantName && ownName.empty())
      return Status::formatError(
          "an initializer without a name in " +
          (scope.empty() ? std::string("the main graph") : quoteName(scope)));
    if (!forEachVarint(base, dimRuns,
                       [&](uint64_t v) { dims.push_back(int64_t(v)); }))
      return Status::formatError(where() + ": malformed dims");
    if (segment)
      return Status::unsupported(
          where() + ": a segment of a tensor (TensorProto.segment)");
    if (dataType == kOnnxString || strings)
      return Status::unsupported(
          where() + ": a STRING tensor; vmpack reads fixed-width tensors only");
    std::optional<ElementType> type = dataType > 0 && dataType <= INT32_MAX
                                          ? fromOnnxType(int32_t(dataType))
                                          : std::nullopt;
    if (!type)
      return Status::unsupported(where() + ": unknown " +
                                 onnxTypeName(int32_t(dataType)));
    if (dims.size() > limits.maxRank)
      return Status::formatError(
          where() + ": rank " + std::to_string(dims.size()) +
          " exceeds the limit of " + std::to_string(limits.maxRank));
    for (int64_t d : dims)
      if (d < 0)
        return Status::formatError(where() + ": negative dimension " +
                                   std::to_string(d));
    x.dataType = int32_t(dataType);
    x.info.name = Namer_.name(constantName ? *constantName : ownName, scope);
    x.info.elementType = *type;
    x.info.shape = dims;
    x.info.encoding = interopEncoding(*type);
    std::optional<uint64_t> bytes = storedSize(*type, dims, x.info.encoding);
    std::optional<uint64_t> count = numElements(dims);
    if (!bytes || !count)
      return Status::formatError(where() + ": " + onnxTypeName(x.dataType) +
                                 " of shape " + tensorTypeString(*type, dims) +
                                 " is too large");
    x.info.length = *bytes;
    std::string typeText =
        onnxTypeName(x.dataType) + " " + tensorTypeString(*type, dims);
    int sources =
        (raw ? 1 : 0) + (location == 1 ? 1 : 0) + (typed.empty() ? 0 : 1);
    if (typed.size() > 1 || sources > 1)
      return Status::formatError(
          where() + ": its data is in more than one of raw_data, external "
                    "data and the typed fields");
    if (location > 1)
      return Status::formatError(where() + ": data_location " +
                                 std::to_string(location) +
                                 " (DEFAULT 0 and EXTERNAL 1 are defined)");
    if (!external.empty() && location != 1)
      return Status::formatError(
          where() + ": external_data without data_location EXTERNAL");
    if (raw) {
      if (raw->length != *bytes)
        return Status::formatError(
            where() + ": raw_data holds " + std::to_string(raw->length) +
            " bytes; " + typeText + " needs " + std::to_string(*bytes));
      x.storage = OnnxStorage::Raw;
      x.info.offset = raw->offset;
    } else if (location == 1) {
      if (Status s = readExternal(x, external, where()); !s)
        return s;
    } else if (!typed.empty()) {
      if (Status s = decodeTyped(x, typed.begin()->first, typed.begin()->second,
                                 *count, where());
          !s)
        return s;
    } else if (*bytes != 0) {
      return Status::formatError(where() + ": no data for " + typeText);
    } else {
      x.storage = OnnxStorage::Raw;
      x.info.offset = t.offset;
    }
    out.tensors.push_back(std::move(x));
    return Status::ok();
  }

  static std::optional<uint64_t> decimal(const std::string &s) {
    if (s.empty() || s.size() > 19)
      return std::nullopt;
    uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + uint64_t(c - '0');
    }
    return v;
  }

  Status readExternal(OnnxTensor &x, const std::vector<Field> &entries,
                      const std::string &where) {
    std::optional<std::string> location;
    std::optional<uint64_t> offset, length;
    for (const Field &e : entries) {
      StatusOr<std::pair<std::string, std::string>> kv = readEntry(e);
      if (!kv)
        return kv.status().withContext(where + ": external_data: ");
      auto number = [&](std::optional<uint64_t> &into) -> Status {
        into = decimal(kv->second);
        if (!into)
          return Status::formatError(where + ": external_data " + kv->first +
                                     " " + quoteName(kv->second) +
                                     " is not a decimal number");
        return Status::ok();
      };
      if (kv->first == "location")
        location = kv->second;
      else if (kv->first == "offset") {
        if (Status s = number(offset); !s)
          return s;
      } else if (kv->first == "length") {
        if (Status s = number(length); !s)
          return s;
      }
      // "checksum" (SHA-1 of the file) and unknown keys are not used.
    }
    if (!location || location->empty())
      return Status::formatError(where + ": external data without a location");
    if (length && *length != x.info.length)
      return Status::formatError(
          where + ": external data of " + std::to_string(*length) + " bytes; " +
          onnxTypeName(x.dataType) + " " +
          tensorTypeString(x.info.elementType, x.info.shape) + " needs " +
          std::to_string(x.info.length));
    x.storage = OnnxStorage::External;
    x.location = *location;
    x.info.offset = offset.value_or(0);
    return Status::ok();
  }

  /// The typed field `number`'s values as raw_data bytes.
  Status decodeTyped(OnnxTensor &x, uint32_t number,
                     const std::vector<Run> &runs, uint64_t count,
                     const std::string &where) {
    const int32_t t = x.dataType;
    const uint32_t bits = x.info.elementType.scalarBits();
    const uint64_t scalars = count * x.info.elementType.scalarsPerElement();
    auto wrongField = [&](const char *field) {
      return Status::formatError(where + ": " + field + " holds no " +
                                 onnxTypeName(t) + " (onnx.proto)");
    };
    auto wrongCount = [&](uint64_t have, uint64_t need) {
      return Status::formatError(
          where + ": " + std::to_string(have) + " values; " + onnxTypeName(t) +
          " " + tensorTypeString(x.info.elementType, x.info.shape) + " needs " +
          std::to_string(need));
    };
    std::vector<uint8_t> &out = x.decoded;
    x.storage = OnnxStorage::Typed;
    if (number == tensor::kFloatData || number == tensor::kDoubleData) {
      bool isFloat = number == tensor::kFloatData;
      if (isFloat ? !(t == 1 || t == 14) : !(t == 11 || t == 15))
        return wrongField(isFloat ? "float_data" : "double_data");
      uint64_t width = isFloat ? 4 : 8, have = 0;
      for (const Run &r : runs) {
        if (r.length % width)
          return Status::formatError(where + ": a packed field of " +
                                     std::to_string(r.length) + " bytes");
        have += r.length / width;
      }
      if (have != scalars)
        return wrongCount(have, scalars);
      // Little-endian IEEE values on the wire, as in raw_data.
      out.reserve(size_t(have * width));
      for (const Run &r : runs)
        out.insert(out.end(), base + r.offset, base + r.offset + r.length);
      return Status::ok();
    }
    uint64_t have = countVarints(base, runs);
    if (number == tensor::kInt64Data || number == tensor::kUint64Data) {
      bool isInt64 = number == tensor::kInt64Data;
      if (isInt64 ? t != 7 : !(t == 12 || t == 13))
        return wrongField(isInt64 ? "int64_data" : "uint64_data");
      if (have != scalars)
        return wrongCount(have, scalars);
      uint64_t width = t == 12 ? 4 : 8;
      out.resize(size_t(have * width));
      uint8_t *p = out.data();
      bool fits = true;
      if (!forEachVarint(base, runs, [&](uint64_t v) {
            if (width == 4 && v > UINT32_MAX)
              fits = false;
            for (uint64_t b = 0; b < width; ++b)
              *p++ = uint8_t(v >> (8 * b));
          }))
        return Status::formatError(where + ": a malformed varint");
      if (!fits)
        return Status::formatError(where + ": a UINT32 value past 2^32-1");
      return Status::ok();
    }
    // int32_data: one element per value for 8 bits and more; for sub-byte
    // types each value holds one byte of the packed elements.
    if (number != tensor::kInt32Data || t == 1 || t == 7 || t == 11 ||
        t == 12 || t == 13 || t == 14 || t == 15)
      return wrongField("int32_data");
    uint64_t width = bits < 8 ? 1 : bits / 8;
    uint64_t need = bits < 8 ? x.info.length : scalars;
    if (have != need)
      return wrongCount(have, need);
    int64_t lo = width == 1 ? -128 : width == 2 ? -32768 : INT32_MIN;
    int64_t hi = width == 1 ? 255 : width == 2 ? 65535 : INT32_MAX;
    out.resize(size_t(need * width));
    uint8_t *p = out.data();
    bool fits = true;
    if (!forEachVarint(base, runs, [&](uint64_t v) {
          // An int32 on the wire is sign-extended to 64 bits.
          int64_t s = int64_t(v);
          if (s < lo || s > hi)
            fits = false;
          for (uint64_t b = 0; b < width; ++b)
            *p++ = uint8_t(uint64_t(s) >> (8 * b));
        }))
      return Status::formatError(where + ": a malformed varint");
    if (!fits)
      return Status::formatError(where +
                                 ": an int32_data value out of the "
                                 "range of " +
                                 onnxTypeName(t));
    return Status::ok();
  }

  const uint8_t *base;
  size_t size;
  const OnnxLimits &limits;
  OnnxModel out;
  Namer Namer_;
};

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string fileNameOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Checks an external data location (relative, inside the model's folder)
/// and returns the file's real path.
StatusOr<std::string> resolveLocation(const std::string &dir,
                                      const std::string &location,
                                      const std::string &where) {
  auto refuse = [&](const std::string &why) {
    return Status::formatError(where + ": external data location " +
                               quoteName(location) + " " + why);
  };
  if (location.find('\0') != std::string::npos)
    return refuse("contains a NUL byte");
  if (location[0] == '/')
    return refuse("is an absolute path; ONNX locations are relative to the "
                  "model's directory");
  size_t at = 0;
  while (at <= location.size()) {
    size_t slash = location.find('/', at);
    if (slash == std::string::npos)
      slash = location.size();
    if (location.compare(at, slash - at, "..") == 0 && slash - at == 2)
      return refuse("has a '..' component, which could leave the model's "
                    "directory");
    at = slash + 1;
  }
  std::string full = dir + "/" + location;
  char *real = ::realpath(full.c_str(), nullptr);
  if (!real)
    return Status::ioError(where + ": external data file " + quoteName(full) +
                           ": " + std::strerror(errno));
  std::string resolved(real);
  std::free(real);
  char *realDir = ::realpath(dir.c_str(), nullptr);
  if (!realDir)
    return Status::ioError("'" + dir + "': " + std::strerror(errno));
  std::string root(realDir);
  std::free(realDir);
  if (root != "/")
    root += "/";
  if (resolved.compare(0, root.size(), root) != 0)
    return refuse("resolves (through a symbolic link) to " +
                  quoteName(resolved) + ", outside the model's directory");
  return resolved;
}

struct MappedExternal {
  std::unique_ptr<archive::MappedFile> map;
  int fd = -1;
  ~MappedExternal() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// openOnnx, keeping the parsed model.
StatusOr<std::unique_ptr<WeightFile>>
openModel(const std::string &path, const OnnxLimits &limits, OnnxModel *keep) {
  auto file = std::make_unique<WeightFile>();
  file->path = path;
  file->format = FileFormat::Onnx;
  StatusOr<std::unique_ptr<archive::MappedFile>> map =
      archive::MappedFile::open(path);
  if (!map)
    return map.status();
  file->map = std::move(*map);
  file->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto failed = [&](const Status &s) {
    return s.withContext("'" + path + "': ");
  };
  if (file->map->size() >= size_t(INT_MAX))
    return failed(Status::formatError(
        "a protobuf message of " + std::to_string(file->map->size()) +
        " bytes; protobuf (and ONNX) limit a model to 2 GiB, larger "
        "weights go to external data"));
  StatusOr<OnnxModel> model =
      parseOnnx(file->map->data(), file->map->size(), limits);
  if (!model)
    return failed(model.status());
  const std::string dir = directoryOf(path);
  std::map<std::string, size_t> byPath; // real path -> index in externals
  std::vector<std::shared_ptr<MappedExternal>> externals;
  // Per external file: (offset, end, tensor index), to find overlaps.
  std::map<size_t, std::vector<std::tuple<uint64_t, uint64_t, size_t>>> ranges;
  for (size_t i = 0; i < model->tensors.size(); ++i) {
    OnnxTensor &t = model->tensors[i];
    WeightFile::Bytes where;
    if (t.storage == OnnxStorage::Raw) {
      where.data = file->map->data() + t.info.offset;
      where.fd = file->fd;
      where.fileOffset = t.info.offset;
    } else if (t.storage == OnnxStorage::Typed) {
      auto owned = std::make_shared<std::vector<uint8_t>>(std::move(t.decoded));
      where.data = owned->data();
      t.info.offset = 0;
      file->owned.push_back(owned);
    } else {
      std::string name = "tensor " + quoteName(t.info.name);
      StatusOr<std::string> real = resolveLocation(dir, t.location, name);
      if (!real)
        return failed(real.status());
      auto [it, added] = byPath.emplace(*real, externals.size());
      if (added) {
        auto ext = std::make_shared<MappedExternal>();
        StatusOr<std::unique_ptr<archive::MappedFile>> m =
            archive::MappedFile::open(*real);
        if (!m)
          return failed(m.status().withContext(name + ": "));
        ext->map = std::move(*m);
        ext->fd = ::open(real->c_str(), O_RDONLY | O_CLOEXEC);
        externals.push_back(ext);
        file->owned.push_back(ext);
      }
      const MappedExternal &ext = *externals[it->second];
      uint64_t size = ext.map->size();
      if (t.info.offset > size || t.info.length > size - t.info.offset)
        return failed(Status::formatError(
            name + ": external data [" + std::to_string(t.info.offset) + ", +" +
            std::to_string(t.info.length) + ") runs past the end of " +
            quoteName(t.location) + " (" + std::to_string(size) + " bytes)"));
      where.data = ext.map->data() + t.info.offset;
      where.fd = ext.fd;
      where.fileOffset = t.info.offset;
      if (t.info.length)
        ranges[it->second].emplace_back(t.info.offset,
                                        t.info.offset + t.info.length, i);
    }
    file->tensors.push_back(t.info);
    file->locations.push_back(where);
  }
  for (auto &[index, list] : ranges) {
    std::sort(list.begin(), list.end());
    for (size_t k = 1; k < list.size(); ++k)
      if (std::get<0>(list[k]) < std::get<1>(list[k - 1]))
        return failed(Status::formatError(
            "tensors " +
            quoteName(file->tensors[std::get<2>(list[k - 1])].name) + " and " +
            quoteName(file->tensors[std::get<2>(list[k])].name) +
            " overlap in their external data file"));
  }
  file->stringMetadata = model->metadata;
  if (keep)
    *keep = std::move(*model);
  return file;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// A model being written: literal bytes and tensor data, in order.
struct Piece {
  std::string bytes;
  const TensorSource *source = nullptr;
  Encoding encoding = Encoding::Byte;
  uint64_t length = 0;
};

class Emitter {
public:
  void literal(std::string_view b) {
    if (b.empty())
      return;
    if (pieces.empty() || pieces.back().source)
      pieces.emplace_back();
    pieces.back().bytes.append(b.data(), b.size());
    total += b.size();
  }
  void varint(uint64_t v) {
    uint8_t buf[10];
    uint8_t *end = CodedOutputStream::WriteVarint64ToArray(v, buf);
    literal(std::string_view(reinterpret_cast<char *>(buf), size_t(end - buf)));
  }
  void tag(uint32_t number, uint32_t wire) {
    varint(uint64_t(number) << 3 | wire);
  }
  void varintField(uint32_t number, uint64_t v) {
    tag(number, kVarint);
    varint(v);
  }
  void bytesField(uint32_t number, std::string_view b) {
    tag(number, kLen);
    varint(b.size());
    literal(b);
  }
  void message(uint32_t number, Emitter &&child) {
    tag(number, kLen);
    varint(child.total);
    for (Piece &p : child.pieces) {
      if (p.source) {
        pieces.push_back(std::move(p));
      } else {
        literal(p.bytes);
        continue;
      }
    }
    total += child.dataBytes;
    dataBytes += child.dataBytes;
  }
  void data(const TensorSource *s, Encoding e, uint64_t n) {
    tag(tensor::kRawData, kLen);
    varint(n);
    if (!n)
      return;
    Piece p;
    p.source = s;
    p.encoding = e;
    p.length = n;
    pieces.push_back(std::move(p));
    total += n;
    dataBytes += n;
  }
  std::vector<Piece> pieces;
  uint64_t total = 0;
  uint64_t dataBytes = 0;
};

/// How one tensor of the output is written.
struct Replacement {
  const TensorSource *source;
  Encoding encoding;
  uint64_t length;
  /// Offset in the external data file, when not inline.
  std::optional<uint64_t> externalOffset;
};

struct WriteContext {
  const uint8_t *base = nullptr;
  /// Template TensorProto payload offset -> (payload length, replacement).
  std::map<uint64_t, std::pair<uint64_t, Replacement *>> byOffset;
  std::string dataLocation;
};

Status emitTensorData(const Replacement &r, const WriteContext &ctx,
                      Emitter &out) {
  if (!r.externalOffset) {
    out.data(r.source, r.encoding, r.length);
    return Status::ok();
  }
  auto kv = [&](const std::string &k, const std::string &v) {
    Emitter e;
    e.bytesField(entry::kKey, k);
    e.bytesField(entry::kValue, v);
    out.message(tensor::kExternalData, std::move(e));
  };
  kv("location", ctx.dataLocation);
  kv("offset", std::to_string(*r.externalOffset));
  kv("length", std::to_string(r.length));
  out.varintField(tensor::kDataLocation, 1);
  return Status::ok();
}

/// A new TensorProto for a source (no template).
void emitNewTensor(const Replacement &r, int32_t dataType,
                   const WriteContext &ctx, Emitter &out) {
  for (int64_t d : r.source->info.shape)
    out.varintField(tensor::kDims, uint64_t(d));
  out.varintField(tensor::kDataType, uint64_t(dataType));
  out.bytesField(tensor::kName, r.source->info.name);
  (void)emitTensorData(r, ctx, out);
}

bool isDataField(uint32_t n) {
  return n == tensor::kFloatData || n == tensor::kInt32Data ||
         n == tensor::kStringData || n == tensor::kInt64Data ||
         n == tensor::kRawData || n == tensor::kDoubleData ||
         n == tensor::kUint64Data || n == tensor::kExternalData ||
         n == tensor::kDataLocation;
}

/// Copies the message at [begin, end) of the template, rewriting the
/// TensorProtos in ctx.byOffset and the messages that contain them.
Status rewrite(const WriteContext &ctx, uint64_t begin, uint64_t end,
               Emitter &out, const Replacement *tensorOf) {
  Fields fields(ctx.base, begin, end);
  Field f;
  for (;;) {
    StatusOr<bool> more = fields.next(f);
    if (!more)
      return more.status();
    if (!*more)
      break;
    std::string_view whole(
        reinterpret_cast<const char *>(ctx.base + f.fieldBegin),
        size_t(f.fieldEnd - f.fieldBegin));
    if (tensorOf) {
      // A replaced TensorProto: everything but its data.
      if (!isDataField(f.number))
        out.literal(whole);
      continue;
    }
    if (f.wireType != kLen) {
      out.literal(whole);
      continue;
    }
    auto it = ctx.byOffset.lower_bound(f.offset);
    if (it == ctx.byOffset.end() || it->first >= f.offset + f.length) {
      out.literal(whole);
      continue;
    }
    Emitter child;
    if (it->first == f.offset && it->second.first == f.length) {
      if (Status s = rewrite(ctx, f.offset, f.offset + f.length, child,
                             it->second.second);
          !s)
        return s;
      if (Status s = emitTensorData(*it->second.second, ctx, child); !s)
        return s;
    } else if (Status s =
                   rewrite(ctx, f.offset, f.offset + f.length, child, nullptr);
               !s) {
      return s;
    }
    out.message(f.number, std::move(child));
  }
  return Status::ok();
}

/// The lowest IR version (and its opset) that has every type written.
std::pair<int64_t, int64_t> irVersionFor(const std::vector<int32_t> &types) {
  int32_t top = 0;
  for (int32_t t : types)
    top = std::max(top, t);
  // onnx/onnx docs/Versioning.md: IR 8 (opset 17) up to BFLOAT16, IR 9
  // (opset 19) the FLOAT8 types, IR 10 (opset 21) INT4/UINT4, IR 11
  // (opset 23) FLOAT4E2M1 and FLOAT8E8M0, IR 12 (opset 25) INT2/UINT2.
  if (top <= 16)
    return {8, 17};
  if (top <= 20)
    return {9, 19};
  if (top <= 22)
    return {10, 21};
  if (top <= 24)
    return {11, 23};
  return {12, 25};
}

} // namespace

StatusOr<OnnxModel> vmpack::formats::parseOnnx(const uint8_t *data, size_t size,
                                               const OnnxLimits &limits) {
  if (size >= size_t(INT_MAX))
    return Status::formatError("a protobuf message of " + std::to_string(size) +
                               " bytes, past protobuf's 2 GiB limit");
  return Parser(data, size, limits).run();
}

StatusOr<std::unique_ptr<WeightFile>>
vmpack::formats::openOnnx(const std::string &path, const OnnxLimits &limits,
                          OnnxModel *model) {
  return openModel(path, limits, model);
}

//===----------------------------------------------------------------------===//
// Quantized weights: onnxruntime docs/ContribOperators.md
// (com.microsoft.MatMulNBits) and onnx/onnx docs/Operators.md
// (DequantizeLinear, opset 21 for INT4/UINT4 and blocks).
//===----------------------------------------------------------------------===//

namespace {

bool isFloatScale(int32_t t) { return t == 1 || t == 10 || t == 16; }

float loadFloat(int32_t type, const uint8_t *p) {
  if (type == 1) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h = uint16_t(p[0] | p[1] << 8);
  return type == 10 ? quant::halfToFloat(h) : quant::bfloat16ToFloat(h);
}

/// Element `e` of a packed little-endian bit stream of `bits`-bit values.
unsigned packedValue(const uint8_t *p, uint64_t e, unsigned bits) {
  uint64_t bit = e * bits;
  unsigned v = (p[bit / 8] >> (bit % 8)) & ((1u << bits) - 1);
  return v;
}

std::string mlirOf(int32_t onnxType) {
  return toString(*fromOnnxType(onnxType));
}

} // namespace

StatusOr<std::vector<OnnxQuantizedWeight>>
vmpack::formats::onnxQuantizedWeights(const OnnxModel &model,
                                      const WeightFile &file) {
  std::map<std::string, int64_t> byName;
  for (size_t i = 0; i < file.tensors.size(); ++i)
    byName.emplace(file.tensors[i].name, int64_t(i));
  auto find = [&](const OnnxNode &n, size_t k) -> int64_t {
    if (k >= n.inputs.size() || n.inputs[k].empty())
      return -1;
    auto it = byName.find(n.inputs[k]);
    return it == byName.end() ? -2 : it->second;
  };
  std::vector<OnnxQuantizedWeight> out;
  for (const OnnxNode &n : model.nodes) {
    OnnxQuantizedWeight w;
    w.codes = find(n, n.opType == "MatMulNBits" ? 1 : 0);
    w.scales = find(n, n.opType == "MatMulNBits" ? 2 : 1);
    w.zeroPoints = find(n, n.opType == "MatMulNBits" ? 3 : 2);
    // Weights computed by the graph, not stored, are not ours.
    if (w.codes < 0 || w.scales < 0 || w.zeroPoints == -2)
      continue;
    const TensorInfo &codes = file.tensors[size_t(w.codes)];
    const TensorInfo &scales = file.tensors[size_t(w.scales)];
    const int32_t codeType = *toOnnxType(codes.elementType);
    const int32_t scaleType = *toOnnxType(scales.elementType);
    const std::string where = n.opType + " over " + quoteName(codes.name);
    auto bad = [&](const std::string &why) {
      return Status::formatError(where + ": " + why);
    };
    if (!isFloatScale(scaleType))
      return bad("scales " + quoteName(scales.name) +
                 " are not float32, float16 or bfloat16");
    const TensorInfo *zp =
        w.zeroPoints >= 0 ? &file.tensors[size_t(w.zeroPoints)] : nullptr;
    quant::QuantizedWeight &q = w.weight;
    q.name = codes.name;
    q.scheme.offsetKind = quant::OffsetKind::ZeroPoint;
    q.scheme.scales = {{mlirOf(scaleType), 0}};
    if (n.opType == "MatMulNBits") {
      auto attr = [&](const char *k, int64_t dflt) {
        auto it = n.ints.find(k);
        return it == n.ints.end() ? dflt : it->second;
      };
      int64_t K = attr("K", -1), N = attr("N", -1), bits = attr("bits", 4),
              block = attr("block_size", -1);
      if (bits != 2 && bits != 4 && bits != 8)
        return bad("bits " + std::to_string(bits) +
                   " (2, 4 and 8 are read; 3-bit blobs are not)");
      if (block < 16 || (block & (block - 1)) || K <= 0 || N <= 0 ||
          K > (int64_t(1) << 40) || N > (int64_t(1) << 40))
        return bad("K " + std::to_string(K) + ", N " + std::to_string(N) +
                   ", block_size " + std::to_string(block) +
                   " (a power of two of at least 16)");
      int64_t blocks = (K + block - 1) / block;
      std::vector<int64_t> bShape{N, blocks, block * bits / 8};
      if (codeType != 2 || codes.shape != bShape)
        return bad("B is " + tensorTypeString(codes.elementType, codes.shape) +
                   ", not " + tensorTypeString(*fromOnnxType(2), bShape));
      std::optional<uint64_t> ns = numElements(scales.shape);
      if (!ns || *ns != uint64_t(N * blocks))
        return bad("scales " + quoteName(scales.name) + " hold " +
                   std::to_string(ns.value_or(0)) + " values, not N * " +
                   "n_blocks = " + std::to_string(N * blocks));
      if (zp) {
        int32_t zt = *toOnnxType(zp->elementType);
        std::optional<uint64_t> nz = numElements(zp->shape);
        w.packedZeroPoints = zt == 2 && zt != scaleType;
        uint64_t want = w.packedZeroPoints
                            ? uint64_t(N * ((blocks * bits + 7) / 8))
                            : uint64_t(N * blocks);
        if ((!w.packedZeroPoints && zt != scaleType) || !nz || *nz != want)
          return bad("zero_points " + quoteName(zp->name) + " are " +
                     tensorTypeString(zp->elementType, zp->shape) + ", not " +
                     std::to_string(want) + " " +
                     (w.packedZeroPoints ? "packed uint8 values"
                                         : "values of the scales' type"));
      }
      w.bits = unsigned(bits);
      w.blockSize = block;
      q.scheme.name = "onnx.matmulnbits";
      q.scheme.codeType = "ui" + std::to_string(bits);
      q.scheme.groupSize = uint64_t(block);
      q.shape = {N, K};
      q.axis = 1;
    } else {
      auto it = n.ints.find("axis");
      int64_t axis = it == n.ints.end() ? 1 : it->second;
      auto bs = n.ints.find("block_size");
      int64_t block = bs == n.ints.end() ? 0 : bs->second;
      if (codeType != 21 && codeType != 22)
        continue; // Only the 4-bit ones are quantized weights of ours.
      int64_t rank = int64_t(codes.shape.size());
      if (axis < 0)
        axis += rank;
      w.matMulNBits = false;
      w.bits = 4;
      w.blockSize = block;
      bool perTensor = scales.shape.empty() ||
                       (scales.shape.size() == 1 && scales.shape[0] == 1);
      if (!perTensor && (axis < 0 || axis >= rank))
        return bad("axis " + std::to_string(axis) + " of a rank " +
                   std::to_string(rank) + " tensor");
      std::vector<int64_t> want;
      if (perTensor) {
        want = scales.shape;
        w.blockSize = -1;
      } else if (block <= 0) {
        want = {codes.shape[size_t(axis)]};
      } else {
        want = codes.shape;
        want[size_t(axis)] = (want[size_t(axis)] + block - 1) / block;
      }
      if (scales.shape != want)
        return bad("scales " + quoteName(scales.name) + " have shape " +
                   tensorTypeString(scales.elementType, scales.shape) +
                   "; the codes and axis need " +
                   tensorTypeString(scales.elementType, want));
      if (zp && (*toOnnxType(zp->elementType) != codeType ||
                 zp->shape != scales.shape))
        return bad("zero_point " + quoteName(zp->name) + " is " +
                   tensorTypeString(zp->elementType, zp->shape) +
                   ", not the codes' type in the scales' shape");
      w.packedZeroPoints = true;
      q.scheme.name = "onnx.dequantizelinear";
      q.scheme.codeType = codeType == 22 ? "si4" : "ui4";
      q.scheme.groupSize = block > 0 ? uint64_t(block) : 0;
      q.shape = codes.shape;
      q.axis = uint32_t(perTensor ? 0 : axis);
    }
    if (zp)
      q.scheme.offsets = {
          {w.packedZeroPoints ? q.scheme.codeType : mlirOf(scaleType),
           q.scheme.groupSize}};
    q.scheme.scales[0].groupSize = q.scheme.groupSize;
    out.push_back(std::move(w));
  }
  return out;
}

namespace {
/// Elements per thread below which onnxDequantizedSource does not split a
/// range: each element is decoded on its own (a few ns), so a piece of
/// 2^14 takes several times what starting a thread does.
constexpr uint64_t kOnnxMinPerThread = uint64_t(1) << 14;
} // namespace

TensorSource vmpack::formats::onnxDequantizedSource(
    const OnnxQuantizedWeight &w, const WeightFile &file, quant::FloatType type,
    unsigned threads) {
  std::vector<TensorSource> all = file.sources();
  auto shared = std::make_shared<std::vector<TensorSource>>();
  shared->push_back(all[size_t(w.codes)]);
  shared->push_back(all[size_t(w.scales)]);
  if (w.zeroPoints >= 0)
    shared->push_back(all[size_t(w.zeroPoints)]);
  const TensorInfo &codesInfo = file.tensors[size_t(w.codes)];
  const int32_t scaleType =
      *toOnnxType(file.tensors[size_t(w.scales)].elementType);
  const bool signedCodes =
      codesInfo.elementType.scalar.kind != ScalarKind::UnsignedInt &&
      !w.matMulNBits;
  const unsigned width = quant::floatTypeBytes(type);
  TensorSource out;
  out.info.name = w.weight.name;
  out.info.shape = w.weight.shape;
  out.info.elementType = *fromOnnxType(type == quant::FloatType::F32   ? 1
                                       : type == quant::FloatType::F16 ? 10
                                                                       : 16);
  out.info.encoding = Encoding::Byte;
  out.info.length = *numElements(w.weight.shape) * width;
  std::vector<int64_t> shape = w.weight.shape;
  const OnnxQuantizedWeight q = w;
  // Elements [eBegin, eEnd), the bytes of them in [first, first + n) to
  // dst; pieces of a range on several threads write disjoint bytes.
  auto elements = [shared, q, shape, scaleType, signedCodes, width,
                   type](uint64_t eBegin, uint64_t eEnd, uint64_t first,
                         uint64_t n, uint8_t *dst) {
    const TensorSource &codes = (*shared)[0];
    const TensorSource &scales = (*shared)[1];
    const TensorSource *zps = shared->size() > 2 ? &(*shared)[2] : nullptr;
    const unsigned sb = scaleType == 1 ? 4 : 2;
    // Strides of the logical shape, for DequantizeLinear's axis.
    uint64_t inner = 1;
    for (size_t d = q.weight.axis + 1; d < shape.size(); ++d)
      inner *= uint64_t(shape[d]);
    for (uint64_t e = eBegin; e < eEnd; ++e) {
      uint64_t code, scaleIndex;
      int64_t codeValue, zeroPoint;
      if (q.matMulNBits) {
        uint64_t K = uint64_t(shape[1]), row = e / K, k = e % K;
        uint64_t blocks =
            (K + uint64_t(q.blockSize) - 1) / uint64_t(q.blockSize);
        uint64_t blob = uint64_t(q.blockSize) * q.bits / 8;
        uint64_t b = k / uint64_t(q.blockSize), j = k % uint64_t(q.blockSize);
        code = packedValue(codes.data + (row * blocks + b) * blob, j, q.bits);
        codeValue = int64_t(code);
        scaleIndex = row * blocks + b;
        zeroPoint = int64_t(1) << (q.bits - 1);
        if (zps && q.packedZeroPoints) {
          uint64_t perRow = (blocks * q.bits + 7) / 8;
          zeroPoint = packedValue(zps->data + row * perRow, b, q.bits);
        }
      } else {
        code = packedValue(codes.data, e, 4);
        codeValue = signedCodes ? int64_t(code ^ 8) - 8 : int64_t(code);
        if (q.blockSize < 0) {
          scaleIndex = 0;
        } else {
          uint64_t dim = uint64_t(shape[q.weight.axis]);
          uint64_t outer = e / (inner * dim), a = (e / inner) % dim,
                   in = e % inner;
          if (q.blockSize == 0)
            scaleIndex = a;
          else {
            uint64_t nb =
                (dim + uint64_t(q.blockSize) - 1) / uint64_t(q.blockSize);
            scaleIndex = (outer * nb + a / uint64_t(q.blockSize)) * inner + in;
          }
        }
        zeroPoint = 0;
        if (zps) {
          unsigned z = packedValue(zps->data, scaleIndex, 4);
          zeroPoint = signedCodes ? int64_t(z ^ 8) - 8 : int64_t(z);
        }
      }
      float scale = loadFloat(scaleType, scales.data + scaleIndex * sb);
      float value;
      if (zps && !q.packedZeroPoints)
        value = (float(codeValue) -
                 loadFloat(scaleType, zps->data + scaleIndex * sb)) *
                scale;
      else
        value = float(codeValue - zeroPoint) * scale;
      uint8_t bytes[4];
      if (type == quant::FloatType::F32)
        std::memcpy(bytes, &value, 4);
      else {
        uint16_t h = type == quant::FloatType::F16
                         ? quant::floatToHalf(value)
                         : quant::floatToBFloat16(value);
        bytes[0] = uint8_t(h);
        bytes[1] = uint8_t(h >> 8);
      }
      for (unsigned b = 0; b < width; ++b) {
        uint64_t at = e * width + b;
        if (at >= first && at < first + n)
          dst[at - first] = bytes[b];
      }
    }
  };
  out.produce = [elements, width, threads](uint64_t first, uint64_t n,
                                           uint8_t *dst) {
    uint64_t e0 = first / width, e1 = (first + n + width - 1) / width;
    quant::splitRange(
        quant::piecesFor(threads, e1 - e0, kOnnxMinPerThread), e0, e1 - e0, 1,
        [&](uint64_t b, uint64_t e) { elements(b, e, first, n, dst); });
  };
  return out;
}

Status vmpack::formats::writeOnnx(const std::string &path,
                                  const std::vector<TensorSource> &tensors,
                                  const OnnxWriteOptions &options) {
  const std::string dataPath =
      options.dataPath.empty() ? path + ".data" : options.dataPath;
  if (!options.inlineData && directoryOf(dataPath) != directoryOf(path))
    return Status::invalidArgument("the external data file '" + dataPath +
                                   "' must be beside the model '" + path + "'");
  WriteContext ctx;
  ctx.dataLocation = fileNameOf(dataPath);
  std::vector<std::unique_ptr<Replacement>> replacements;
  std::vector<int32_t> types;
  uint64_t dataEnd = 0;
  const uint64_t align = std::max<uint32_t>(options.alignment, 1);
  auto place = [&](const TensorSource *s, int32_t) -> Replacement * {
    auto r = std::make_unique<Replacement>();
    r->source = s;
    r->encoding = interopEncoding(s->info.elementType);
    r->length = *storedSize(s->info.elementType, s->info.shape, r->encoding);
    if (!options.inlineData && r->length) {
      dataEnd = (dataEnd + align - 1) / align * align;
      r->externalOffset = dataEnd;
      dataEnd += r->length;
    }
    replacements.push_back(std::move(r));
    return replacements.back().get();
  };
  auto typeOf = [&](const TensorSource &s) -> StatusOr<int32_t> {
    std::optional<int32_t> t;
    if (!s.info.isOpaque())
      t = toOnnxType(s.info.elementType);
    if (!t || !storedSize(s.info.elementType, s.info.shape,
                          interopEncoding(s.info.elementType)))
      return Status::unsupported(
          "tensor " + quoteName(s.info.name) + ": " +
          (s.info.isOpaque()
               ? std::string("a ggml block-quantized tensor has no ONNX type "
                             "(--dequantize=f16 gives one)")
               : tensorTypeString(s.info.elementType, s.info.shape) +
                     " has no ONNX data type (docs/interop.md)"));
    return *t;
  };

  Emitter modelOut;
  std::unique_ptr<WeightFile> templ;
  OnnxModel templModel;
  std::vector<TensorSource> templSources;
  if (options.templatePath.empty()) {
    Emitter g;
    g.bytesField(graph::kName, "vmpack");
    std::set<std::string> names;
    for (const TensorSource &s : tensors) {
      StatusOr<int32_t> t = typeOf(s);
      if (!t)
        return t.status();
      if (!names.insert(s.info.name).second)
        return Status::invalidArgument("two tensors named " +
                                       quoteName(s.info.name));
      types.push_back(*t);
      Emitter te;
      emitNewTensor(*place(&s, *t), *t, ctx, te);
      g.message(graph::kInitializer, std::move(te));
    }
    auto [ir, opset] = irVersionFor(types);
    modelOut.varintField(model::kIrVersion, uint64_t(ir));
    modelOut.bytesField(model::kProducerName, "vmpack");
    modelOut.message(model::kGraph, std::move(g));
    Emitter op;
    op.bytesField(1, "");
    op.varintField(2, uint64_t(opset));
    modelOut.message(model::kOpsetImport, std::move(op));
    for (const auto &[k, v] : options.metadata) {
      Emitter e;
      e.bytesField(entry::kKey, k);
      e.bytesField(entry::kValue, v);
      modelOut.message(model::kMetadataProps, std::move(e));
    }
  } else {
    StatusOr<std::unique_ptr<WeightFile>> opened =
        openModel(options.templatePath, OnnxLimits(), &templModel);
    if (!opened)
      return opened.status().withContext("--onnx-template: ");
    templ = std::move(*opened);
    templSources = templ->sources();
    std::map<std::string, const TensorSource *> given;
    for (const TensorSource &s : tensors)
      if (!given.emplace(s.info.name, &s).second)
        return Status::invalidArgument("two tensors named " +
                                       quoteName(s.info.name));
    std::set<std::string> used;
    ctx.base = templ->map->data();
    for (size_t i = 0; i < templModel.tensors.size(); ++i) {
      const OnnxTensor &t = templModel.tensors[i];
      auto it = given.find(t.info.name);
      const TensorSource *source = nullptr;
      if (it != given.end()) {
        const TensorSource &s = *it->second;
        std::optional<int32_t> type =
            s.info.isOpaque() ? std::nullopt : toOnnxType(s.info.elementType);
        std::string have =
            s.info.isOpaque()
                ? "a ggml block tensor"
                : tensorTypeString(s.info.elementType, s.info.shape) +
                      (type ? " (" + onnxTypeName(*type) + ")" : "");
        if (!type || *type != t.dataType || s.info.shape != t.info.shape)
          return Status::invalidArgument(
              "tensor " + quoteName(t.info.name) + ": the input has " + have +
              ", the template's " +
              (t.initializer ? "initializer" : "Constant") + " is " +
              tensorTypeString(t.info.elementType, t.info.shape) + " (" +
              onnxTypeName(t.dataType) + ")");
        source = &s;
        used.insert(t.info.name);
      } else if (t.storage == OnnxStorage::External) {
        // The template's own data, which must move to the new file.
        source = &templSources[i];
      }
      if (!source)
        continue;
      Replacement *r = place(source, t.dataType);
      ctx.byOffset[t.protoOffset] = {t.protoLength, r};
    }
    for (const TensorSource &s : tensors)
      if (!used.count(s.info.name))
        return Status::invalidArgument(
            "tensor " + quoteName(s.info.name) +
            " of the input is no initializer or Constant of the template '" +
            options.templatePath + "'");
    if (Status s = rewrite(ctx, 0, templ->map->size(), modelOut, nullptr); !s)
      return s.withContext("--onnx-template '" + options.templatePath + "': ");
  }

  if (modelOut.total >= uint64_t(INT_MAX))
    return Status::invalidArgument(
        "the model would be " + std::to_string(modelOut.total) +
        " bytes, past protobuf's 2 GiB limit; write its data to an external "
        "file instead of inline");

  OutputGroup group;
  StatusOr<std::unique_ptr<OutputFile>> modelFile =
      OutputFile::create(path, modelOut.total, &group);
  if (!modelFile)
    return modelFile.status();
  uint64_t at = 0;
  for (const Piece &p : modelOut.pieces) {
    if (p.source) {
      if (Status s = (*modelFile)->writeTensor(at, *p.source, p.encoding); !s)
        return s;
      at += p.length;
    } else {
      if (Status s = (*modelFile)->write(at, p.bytes.data(), p.bytes.size());
          !s)
        return s;
      at += p.bytes.size();
    }
  }
  if (Status s = (*modelFile)->commit(); !s)
    return s;
  bool external = false;
  for (const std::unique_ptr<Replacement> &r : replacements)
    external = external || r->externalOffset.has_value();
  if (external) {
    StatusOr<std::unique_ptr<OutputFile>> dataFile =
        OutputFile::create(dataPath, dataEnd, &group);
    if (!dataFile)
      return dataFile.status();
    for (const std::unique_ptr<Replacement> &r : replacements)
      if (r->externalOffset)
        if (Status s = (*dataFile)->writeTensor(*r->externalOffset, *r->source,
                                                r->encoding);
            !s)
          return s;
    if (Status s = (*dataFile)->commit(); !s)
      return s;
  }
  return group.commitAll();
}
