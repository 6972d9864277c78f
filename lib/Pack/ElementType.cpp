//===- ElementType.cpp - Element type names and float layouts -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/ElementType.h"

#include <cstdlib>

using namespace vmpack;

namespace {
struct FloatName {
  ScalarKind kind;
  const char *name;
  uint32_t width;
};
} // namespace

static constexpr FloatName kFloatNames[] = {
    {ScalarKind::F4E2M1FN, "f4E2M1FN", 4},
    {ScalarKind::F6E2M3FN, "f6E2M3FN", 6},
    {ScalarKind::F6E3M2FN, "f6E3M2FN", 6},
    {ScalarKind::F8E5M2, "f8E5M2", 8},
    {ScalarKind::F8E4M3, "f8E4M3", 8},
    {ScalarKind::F8E4M3FN, "f8E4M3FN", 8},
    {ScalarKind::F8E5M2FNUZ, "f8E5M2FNUZ", 8},
    {ScalarKind::F8E4M3FNUZ, "f8E4M3FNUZ", 8},
    {ScalarKind::F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8},
    {ScalarKind::F8E3M4, "f8E3M4", 8},
    {ScalarKind::F8E8M0FNU, "f8E8M0FNU", 8},
    {ScalarKind::BF16, "bf16", 16},
    {ScalarKind::F16, "f16", 16},
    {ScalarKind::TF32, "tf32", 19},
    {ScalarKind::F32, "f32", 32},
    {ScalarKind::F64, "f64", 64},
    {ScalarKind::F80, "f80", 80},
    {ScalarKind::F128, "f128", 128},
};

uint32_t vmpack::impliedWidth(ScalarKind kind) {
  if (kind == ScalarKind::Index)
    return 64;
  for (const FloatName &f : kFloatNames)
    if (f.kind == kind)
      return f.width;
  return 0;
}

ScalarType ScalarType::floatKind(ScalarKind kind) {
  return {kind, impliedWidth(kind)};
}

std::string vmpack::toString(ScalarType type) {
  switch (type.kind) {
  case ScalarKind::SignlessInt:
    return "i" + std::to_string(type.width);
  case ScalarKind::SignedInt:
    return "si" + std::to_string(type.width);
  case ScalarKind::UnsignedInt:
    return "ui" + std::to_string(type.width);
  case ScalarKind::Index:
    return "index";
  default:
    break;
  }
  for (const FloatName &f : kFloatNames)
    if (f.kind == type.kind)
      return f.name;
  return "<unknown>";
}

std::string vmpack::toString(ElementType type) {
  std::string scalar = toString(type.scalar);
  return type.isComplex ? "complex<" + scalar + ">" : scalar;
}

static std::optional<ScalarType> parseScalar(std::string_view text) {
  if (text == "index")
    return ScalarType{ScalarKind::Index, 64};
  for (const FloatName &f : kFloatNames)
    if (text == f.name)
      return ScalarType{f.kind, f.width};
  ScalarKind kind = ScalarKind::SignlessInt;
  if (text.substr(0, 2) == "si") {
    kind = ScalarKind::SignedInt;
    text.remove_prefix(2);
  } else if (text.substr(0, 2) == "ui") {
    kind = ScalarKind::UnsignedInt;
    text.remove_prefix(2);
  } else if (text.substr(0, 1) == "i") {
    text.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (text.empty() || text.size() > 8 || text[0] == '0')
    return std::nullopt;
  uint64_t width = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    width = width * 10 + uint64_t(c - '0');
  }
  // MLIR's limit on integer widths.
  if (width == 0 || width >= (uint64_t(1) << 24))
    return std::nullopt;
  return ScalarType{kind, uint32_t(width)};
}

std::optional<ElementType> vmpack::parseElementType(std::string_view text) {
  constexpr std::string_view prefix = "complex<";
  if (text.substr(0, prefix.size()) == prefix && !text.empty() &&
      text.back() == '>') {
    auto scalar = parseScalar(
        text.substr(prefix.size(), text.size() - prefix.size() - 1));
    if (!scalar)
      return std::nullopt;
    return ElementType{*scalar, true};
  }
  auto scalar = parseScalar(text);
  if (!scalar)
    return std::nullopt;
  return ElementType{*scalar, false};
}

std::optional<FloatFormat> vmpack::floatFormat(ScalarKind kind) {
  //              exp man bias  sign  inf/nan allOnesNaN negZeroNaN
  switch (kind) {
  case ScalarKind::F4E2M1FN:
    return FloatFormat{2, 1, 1, true, false, false, false};
  case ScalarKind::F6E2M3FN:
    return FloatFormat{2, 3, 1, true, false, false, false};
  case ScalarKind::F6E3M2FN:
    return FloatFormat{3, 2, 3, true, false, false, false};
  case ScalarKind::F8E5M2:
    return FloatFormat{5, 2, 15, true, true, false, false};
  case ScalarKind::F8E4M3:
    return FloatFormat{4, 3, 7, true, true, false, false};
  case ScalarKind::F8E4M3FN:
    return FloatFormat{4, 3, 7, true, false, true, false};
  case ScalarKind::F8E5M2FNUZ:
    return FloatFormat{5, 2, 16, true, false, false, true};
  case ScalarKind::F8E4M3FNUZ:
    return FloatFormat{4, 3, 8, true, false, false, true};
  case ScalarKind::F8E4M3B11FNUZ:
    return FloatFormat{4, 3, 11, true, false, false, true};
  case ScalarKind::F8E3M4:
    return FloatFormat{3, 4, 3, true, true, false, false};
  case ScalarKind::F8E8M0FNU:
    return FloatFormat{8, 0, 127, false, false, true, false};
  case ScalarKind::BF16:
    return FloatFormat{8, 7, 127, true, true, false, false};
  case ScalarKind::F16:
    return FloatFormat{5, 10, 15, true, true, false, false};
  case ScalarKind::TF32:
    return FloatFormat{8, 10, 127, true, true, false, false};
  case ScalarKind::F32:
    return FloatFormat{8, 23, 127, true, true, false, false};
  default:
    return std::nullopt;
  }
}
