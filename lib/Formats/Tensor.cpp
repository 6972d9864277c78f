//===- Tensor.cpp - One tensor of a weight file, in any format
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-------------===//

#include "vmpack/Formats/Tensor.h"

#include <cctype>
#include <limits>

using namespace vmpack;
using namespace vmpack::formats;

std::optional<uint64_t>
vmpack::formats::numElements(const std::vector<int64_t> &shape) {
  uint64_t n = 1;
  const uint64_t max = uint64_t(std::numeric_limits<int64_t>::max());
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > max / uint64_t(d))
      return std::nullopt;
    n *= uint64_t(d);
  }
  return n;
}

std::optional<uint64_t>
vmpack::formats::storedSize(const ElementType &type,
                            const std::vector<int64_t> &shape,
                            Encoding encoding) {
  std::optional<uint64_t> n = numElements(shape);
  if (!n || type.scalarBits() == 0)
    return std::nullopt;
  uint64_t scalars = *n;
  if (type.isComplex) {
    if (scalars > std::numeric_limits<uint64_t>::max() / 2)
      return std::nullopt;
    scalars *= 2;
  }
  return encodedSize(encoding, type.scalarBits(), scalars);
}

std::string
vmpack::formats::tensorTypeString(const ElementType &type,
                                  const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + toString(type) + ">";
}

std::optional<std::pair<ElementType, std::vector<int64_t>>>
vmpack::formats::parseTensorTypeString(std::string_view text) {
  constexpr std::string_view prefix = "tensor<";
  if (text.size() < prefix.size() + 1 ||
      text.substr(0, prefix.size()) != prefix || text.back() != '>')
    return std::nullopt;
  std::string_view body =
      text.substr(prefix.size(), text.size() - prefix.size() - 1);
  std::vector<int64_t> shape;
  // Dimensions are digit runs followed by 'x'; the rest is the element type
  // (which may itself contain an 'x', as in "index").
  for (;;) {
    size_t i = 0;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
      ++i;
    if (i == 0 || i >= body.size() || body[i] != 'x')
      break;
    if (i > 1 && body[0] == '0')
      return std::nullopt;
    int64_t d = 0;
    for (size_t k = 0; k < i; ++k) {
      if (d > (std::numeric_limits<int64_t>::max() - 9) / 10)
        return std::nullopt;
      d = d * 10 + (body[k] - '0');
    }
    shape.push_back(d);
    body.remove_prefix(i + 1);
  }
  std::optional<ElementType> type = parseElementType(body);
  if (!type)
    return std::nullopt;
  return std::make_pair(*type, std::move(shape));
}

std::string vmpack::formats::quoteName(std::string_view name) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < name.size() && i < 200; ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (name.size() > 200)
    out += "...";
  return out + "'";
}

Status vmpack::formats::applyTypeRecord(TensorInfo &info,
                                        const std::string &value,
                                        const std::string &where,
                                        const LogicalTypeRule &rule) {
  auto parsed = parseTensorTypeString(value);
  if (!parsed)
    return Status::formatError(where + " holds " + quoteName(value) +
                               ", not a tensor type such as "
                               "'tensor<64x128xi4>'");
  auto &[type, shape] = *parsed;
  if (info.isOpaque())
    return Status::formatError(where + " names a tensor of ggml blocks");
  auto native = rule.nativeType(type);
  if (native && native->first == info.elementType && shape == info.shape &&
      shape.size() <= rule.maxRank) {
    info.elementType = type;
    return Status::ok();
  }
  std::optional<uint64_t> size = storedSize(type, shape, Encoding::Packed);
  if (info.elementType == rule.byteType && info.shape.size() == 1 && size &&
      uint64_t(info.shape[0]) == *size) {
    info.elementType = type;
    info.shape = shape;
    info.encoding = Encoding::Packed;
    return Status::ok();
  }
  return Status::formatError(
      where + " says " + value + ", which needs " +
      (native ? native->second + " with that shape, or " : "") + "a 1-D " +
      rule.byteTypeName + " tensor of " +
      (size ? std::to_string(*size) : std::string("?")) + " bytes");
}
