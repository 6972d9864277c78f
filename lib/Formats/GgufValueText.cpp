//===- GgufValueText.cpp - GGUF metadata values as strings ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The JSON part is written by hand for numbers (so that float text is the
// shortest that reads back to the same bits through the reader's path) and
// by nlohmann/json for strings (escaping, UTF-8 checked); it is read by
// nlohmann/json with a callback that bounds nesting and length.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/GgufValueText.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace vmpack;
using namespace vmpack::formats;
using json = nlohmann::json;

namespace {

struct TypeName {
  GgufType type;
  const char *name;
};
// GGUF's own names (docs/gguf.md, gguf_metadata_value_type), lower case.
constexpr TypeName kTypeNames[] = {
    {GgufType::UInt8, "uint8"},     {GgufType::Int8, "int8"},
    {GgufType::UInt16, "uint16"},   {GgufType::Int16, "int16"},
    {GgufType::UInt32, "uint32"},   {GgufType::Int32, "int32"},
    {GgufType::Float32, "float32"}, {GgufType::Bool, "bool"},
    {GgufType::String, "string"},   {GgufType::Array, "array"},
    {GgufType::UInt64, "uint64"},   {GgufType::Int64, "int64"},
    {GgufType::Float64, "float64"},
};

const char *nameOf(GgufType type) {
  for (const TypeName &t : kTypeNames)
    if (t.type == type)
      return t.name;
  return "?";
}

std::optional<GgufType> typeNamed(std::string_view name) {
  for (const TypeName &t : kTypeNames)
    if (name == t.name)
      return t.type;
  return std::nullopt;
}

/// Bits of one scalar of a number type.
unsigned bitsOf(GgufType type) { return 8 * ggufScalarBytes(type); }

/// The shortest %g text whose strtod (then, for float32, conversion to
/// float) gives the same bits, with a '.' or exponent so that it reads as
/// a float; "\"0x...\"" for NaN and infinities.
std::string floatText(GgufType type, uint64_t bits) {
  double value;
  if (type == GgufType::Float32) {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    value = f;
  } else {
    std::memcpy(&value, &bits, 8);
  }
  char buf[64];
  if (!std::isfinite(value)) {
    std::snprintf(buf, sizeof(buf), "\"0x%0*" PRIx64 "\"",
                  type == GgufType::Float32 ? 8 : 16, bits);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    double back = std::strtod(buf, nullptr);
    bool same;
    if (type == GgufType::Float32) {
      float f = float(back);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      same = b == uint32_t(bits);
    } else {
      uint64_t b;
      std::memcpy(&b, &back, 8);
      same = b == bits;
    }
    if (same)
      break;
  }
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

/// One scalar as JSON text.
std::string scalarText(GgufType type, uint64_t bits) {
  if (type == GgufType::Bool)
    return bits ? "true" : "false";
  if (type == GgufType::Float32 || type == GgufType::Float64)
    return floatText(type, bits);
  unsigned width = bitsOf(type);
  if (ggufIsSigned(type)) {
    int64_t v = width == 64 ? int64_t(bits)
                            : int64_t(bits << (64 - width)) >> (64 - width);
    return std::to_string(v);
  }
  return std::to_string(bits);
}

struct DecodeError {
  std::string message;
};

/// Bits of one JSON scalar of `type`, or a DecodeError.
uint64_t scalarBits(GgufType type, const json &v) {
  if (type == GgufType::Bool) {
    if (!v.is_boolean())
      throw DecodeError{"a bool must be true or false"};
    return v.get<bool>() ? 1 : 0;
  }
  if (type == GgufType::Float32 || type == GgufType::Float64) {
    bool f32 = type == GgufType::Float32;
    if (v.is_string()) {
      const std::string &s = v.get_ref<const std::string &>();
      size_t digits = f32 ? 8 : 16;
      if (s.size() != digits + 2 || s.compare(0, 2, "0x") != 0 ||
          s.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
        throw DecodeError{"a " + std::string(nameOf(type)) +
                          " string must be 0x and " + std::to_string(digits) +
                          " hex digits of its bits"};
      return std::strtoull(s.c_str() + 2, nullptr, 16);
    }
    if (!v.is_number())
      throw DecodeError{"a " + std::string(nameOf(type)) +
                        " must be a number or a string of its bits"};
    double d = v.get<double>();
    if (f32) {
      float f = float(d);
      if (std::isfinite(d) && !std::isfinite(f))
        throw DecodeError{"a float32 is out of range"};
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  }
  unsigned width = bitsOf(type);
  if (v.is_number_unsigned() ||
      (v.is_number_integer() && v.get<int64_t>() >= 0)) {
    uint64_t u = v.get<uint64_t>();
    uint64_t max = ggufIsSigned(type) ? (uint64_t(1) << (width - 1)) - 1
                   : width == 64      ? UINT64_MAX
                                      : (uint64_t(1) << width) - 1;
    if (u > max)
      throw DecodeError{std::to_string(u) + " does not fit " + nameOf(type)};
    return u;
  }
  if (v.is_number_integer()) {
    int64_t s = v.get<int64_t>();
    int64_t min = width == 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
    if (!ggufIsSigned(type) || s < min)
      throw DecodeError{std::to_string(s) + " does not fit " + nameOf(type)};
    return width == 64 ? uint64_t(s)
                       : uint64_t(s) & ((uint64_t(1) << width) - 1);
  }
  throw DecodeError{std::string("a ") + nameOf(type) + " must be an integer"};
}

} // namespace

std::string vmpack::formats::ggufTypeName(const GgufValue &value) {
  if (value.type == GgufType::Array)
    return std::string("array<") + nameOf(value.elementType) + ">";
  return nameOf(value.type);
}

StatusOr<std::string> vmpack::formats::ggufValueJson(const GgufValue &value,
                                                     bool replaceInvalidUtf8) {
  GgufType type =
      value.type == GgufType::Array ? value.elementType : value.type;
  if (value.type == GgufType::String || type == GgufType::Array ||
      !typeNamed(nameOf(type)))
    return Status::invalidArgument(
        "only values that are not strings take the text "
        "form");
  if (type == GgufType::String) {
    try {
      return json(value.strings)
          .dump(-1, ' ', false,
                replaceInvalidUtf8 ? json::error_handler_t::replace
                                   : json::error_handler_t::strict);
    } catch (const json::exception &) {
      return Status::invalidArgument("a string of the array is not UTF-8");
    }
  }
  if (value.type != GgufType::Array) {
    if (value.scalars.size() != 1)
      return Status::invalidArgument("a scalar value holds one number");
    return scalarText(type, value.scalars[0]);
  }
  std::string text = "[";
  for (size_t i = 0; i < value.scalars.size(); ++i) {
    if (i)
      text += ",";
    text += scalarText(type, value.scalars[i]);
  }
  return text + "]";
}

StatusOr<std::string> vmpack::formats::encodeGgufValue(const GgufValue &value) {
  StatusOr<std::string> body = ggufValueJson(value);
  if (!body)
    return body.status();
  return ggufTypeName(value) + ":" + *body;
}

StatusOr<GgufValue> vmpack::formats::decodeGgufValue(std::string_view text,
                                                     const GgufLimits &limits) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return Status::invalidArgument("not of the form TYPE:VALUE");
  std::string_view name = text.substr(0, colon);
  GgufValue value;
  bool isArray = false;
  if (name.size() > 7 && name.substr(0, 6) == "array<" && name.back() == '>') {
    isArray = true;
    name = name.substr(6, name.size() - 7);
  }
  std::optional<GgufType> type = typeNamed(name);
  if (!type || *type == GgufType::Array ||
      (*type == GgufType::String && !isArray))
    return Status::invalidArgument("unknown value type '" +
                                   std::string(text.substr(0, colon)) + "'");
  value.type = isArray ? GgufType::Array : *type;
  value.elementType = isArray ? *type : GgufType::UInt32;

  std::string_view body = text.substr(colon + 1);
  uint64_t elements = 0;
  json::parser_callback_t bound = [&](int depth, json::parse_event_t event,
                                      json &) -> bool {
    if (event == json::parse_event_t::object_start ||
        (event == json::parse_event_t::array_start && (!isArray || depth > 0)))
      throw DecodeError{"values are flat: no objects, no nested arrays"};
    if (event == json::parse_event_t::value && depth == 1 &&
        ++elements > limits.maxArrayElements)
      throw DecodeError{"an array longer than " +
                        std::to_string(limits.maxArrayElements) + " elements"};
    return true;
  };
  try {
    json parsed = json::parse(body.begin(), body.end(), bound);
    if (!isArray) {
      value.scalars.push_back(scalarBits(*type, parsed));
      return value;
    }
    if (!parsed.is_array())
      return Status::invalidArgument("an array value must be a JSON array");
    for (const json &element : parsed) {
      if (*type == GgufType::String) {
        if (!element.is_string())
          return Status::invalidArgument("an array<string> holds strings");
        value.strings.push_back(element.get<std::string>());
      } else {
        value.scalars.push_back(scalarBits(*type, element));
      }
    }
    return value;
  } catch (const DecodeError &e) {
    return Status::invalidArgument(e.message);
  } catch (const json::exception &e) {
    return Status::invalidArgument(
        std::string("the value is not valid JSON: ") + e.what());
  }
}

StatusOr<StringMetadata>
vmpack::formats::ggufToStringMetadata(const GgufMetadata &metadata) {
  StringMetadata out;
  for (const GgufKeyValue &kv : metadata) {
    if (kv.value.type == GgufType::String) {
      if (kv.value.strings.size() != 1)
        return Status::invalidArgument("metadata key '" + kv.key +
                                       "': a string value holds one string");
      out.emplace_back(kv.key, kv.value.strings[0]);
      continue;
    }
    StatusOr<std::string> text = encodeGgufValue(kv.value);
    if (!text)
      return Status::invalidArgument("GGUF metadata key '" + kv.key +
                                     "': " + text.status().message());
    out.emplace_back(std::string(kGgufValueKeyPrefix) + kv.key,
                     std::move(*text));
  }
  return out;
}

StatusOr<GgufMetadata>
vmpack::formats::stringMetadataToGguf(const StringMetadata &metadata) {
  GgufMetadata out;
  std::set<std::string_view> keys;
  for (const auto &[key, text] : metadata) {
    if (key.compare(0, kGgufValueKeyPrefix.size(), kGgufValueKeyPrefix) != 0) {
      out.push_back({key, GgufValue::string(text)});
      continue;
    }
    std::string gguf = key.substr(kGgufValueKeyPrefix.size());
    if (gguf.empty())
      return Status::invalidArgument("metadata key '" + key +
                                     "' names no GGUF key");
    StatusOr<GgufValue> value = decodeGgufValue(text);
    if (!value)
      return Status::invalidArgument("metadata key '" + key +
                                     "': " + value.status().message());
    out.push_back({std::move(gguf), std::move(*value)});
  }
  for (const GgufKeyValue &kv : out)
    if (!keys.insert(kv.key).second)
      return Status::invalidArgument(
          "metadata key '" + kv.key + "' appears both as a string and under '" +
          std::string(kGgufValueKeyPrefix) + kv.key + "'");
  return out;
}
