//===- QuantizedWeight.cpp - One model of a quantized weight --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The schemes of ggml's block types, from src/ggml-common.h and the
// dequantize_row_* formulas of src/ggml-quants.c (ggml-org/ggml, commit
// d99724f); docs/quant.md has the same facts with the arithmetic order.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/QuantizedWeight.h"

#include "vmpack/Quant/GgmlTypes.h"

#include <cctype>

using namespace vmpack::quant;

std::optional<QuantScheme> vmpack::quant::ggmlScheme(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  if (!t || t->blockSize == 1)
    return std::nullopt;
  QuantScheme s;
  s.name = "ggml.";
  for (const char *c = t->name; *c; ++c)
    s.name += char(std::tolower(static_cast<unsigned char>(*c)));
  s.ggmlType = type;
  s.groupSize = t->blockSize;
  auto one = [&](const char *code, const char *scale, uint64_t group) {
    s.codeType = code;
    s.groupSize = group;
    s.scales = {{scale, group}};
  };
  auto two = [&](const char *code, const char *sub, uint64_t group) {
    s.codeType = code;
    s.groupSize = group;
    s.scales = {{"f16", 256}, {sub, group}};
  };
  switch (type) {
  case kGgmlQ4_0:
    one("si4", "f16", 32);
    break;
  case kGgmlQ4_1:
    one("ui4", "f16", 32);
    s.offsetKind = OffsetKind::AddMinimum;
    s.offsets = {{"f16", 32}};
    break;
  case kGgmlQ5_0:
    one("si5", "f16", 32);
    break;
  case kGgmlQ5_1:
    one("ui5", "f16", 32);
    s.offsetKind = OffsetKind::AddMinimum;
    s.offsets = {{"f16", 32}};
    break;
  case kGgmlQ8_0:
  case kGgmlQ8_1:
    one("si8", "f16", 32);
    break;
  case kGgmlQ8_K:
    one("si8", "f32", 256);
    break;
  case kGgmlQ2_K:
    two("ui2", "ui4", 16);
    s.offsetKind = OffsetKind::SubMinimum;
    s.offsets = {{"f16", 256}, {"ui4", 16}};
    break;
  case kGgmlQ3_K:
    two("si3", "si6", 16);
    break;
  case kGgmlQ4_K:
    two("ui4", "ui6", 32);
    s.offsetKind = OffsetKind::SubMinimum;
    s.offsets = {{"f16", 256}, {"ui6", 32}};
    break;
  case kGgmlQ5_K:
    two("ui5", "ui6", 32);
    s.offsetKind = OffsetKind::SubMinimum;
    s.offsets = {{"f16", 256}, {"ui6", 32}};
    break;
  case kGgmlQ6_K:
    two("si6", "si8", 16);
    break;
  case kGgmlIQ4_NL:
    one("ui4", "f16", 32);
    s.codeBook = CodeBook::Iq4nl;
    break;
  case kGgmlIQ4_XS:
    two("ui4", "si6", 32);
    s.codeBook = CodeBook::Iq4nl;
    break;
  case kGgmlMXFP4:
    one("f4E2M1FN", "f8E8M0FNU", 32);
    s.codeBook = CodeBook::Fp4E2M1;
    break;
  case kGgmlNVFP4:
    one("f4E2M1FN", "ue4m3", 16);
    s.codeBook = CodeBook::Fp4E2M1;
    break;
  case kGgmlTQ1_0:
    one("ternary", "f16", 256);
    s.codeBook = CodeBook::Ternary;
    break;
  case kGgmlTQ2_0:
    one("ui2", "f16", 256); // value (q - 1) * d
    s.offsetKind = OffsetKind::ZeroPoint;
    break;
  case kGgmlQ1_0:
    one("ui1", "f16", 128); // value (2q - 1) * d
    break;
  case kGgmlQ2_0:
    one("ui2", "f16", 64); // value (q - 1) * d
    s.offsetKind = OffsetKind::ZeroPoint;
    break;
  default: // IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S
    s.codeType = "grid";
    s.codeBook = CodeBook::IqGrid;
    s.groupSize = 32;
    s.scales = {{"f16", 256}, {"ui4", 32}};
    break;
  }
  return s;
}

std::string vmpack::quant::describe(const QuantScheme &s) {
  std::string out = s.name + ": " + s.codeType + " codes";
  if (s.codeBook == CodeBook::Iq4nl)
    out += " (IQ4_NL code book)";
  else if (s.codeBook == CodeBook::IqGrid)
    out += " (i-quant grid)";
  else if (s.codeBook == CodeBook::BnbNf4)
    out += " (bitsandbytes NF4 table)";
  else if (s.codeBook == CodeBook::BnbFp4)
    out += " (bitsandbytes FP4 table)";
  out += ", groups of " + std::to_string(s.groupSize) + ", scales ";
  for (size_t i = 0; i < s.scales.size(); ++i)
    out += (i ? " x " : "") + s.scales[i].type;
  if (s.scales.size() > 1)
    out += " (super-block " + std::to_string(s.scales[0].groupSize) + ")";
  switch (s.offsetKind) {
  case OffsetKind::None:
    break;
  case OffsetKind::ZeroPoint:
    out += ", zero points";
    break;
  case OffsetKind::AddMinimum:
  case OffsetKind::SubMinimum:
    out += ", minimums ";
    for (size_t i = 0; i < s.offsets.size(); ++i)
      out += (i ? " x " : "") + s.offsets[i].type;
    out += s.offsetKind == OffsetKind::AddMinimum ? " added" : " subtracted";
    break;
  }
  return out;
}
