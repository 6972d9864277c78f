//===- GgmlTypes.cpp - ggml's type numbers and block geometry -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Source: ggml-org/ggml, include/ggml.h `enum ggml_type`, src/ggml.c
// `type_traits` (blck_size, type_size) and src/ggml-common.h (block structs
// and their static_asserted sizes), commit d99724f.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/GgmlTypes.h"

#include <algorithm>
#include <cctype>

using namespace vmpack::quant;

const std::vector<GgmlTypeTraits> &vmpack::quant::ggmlTypes() {
  // Block sizes: QK_K = 256, QK4_0 = QK4_1 = QK5_0 = QK5_1 = QK8_0 = QK8_1 =
  // QK4_NL = QK_MXFP4 = 32, QK_NVFP4 = 64, QK1_0 = 128, QK2_0 = 64. Bytes per
  // block are the sizes ggml-common.h static_asserts for each block struct.
  static const std::vector<GgmlTypeTraits> table = {
      {kGgmlF32, "F32", 1, 4},
      {kGgmlF16, "F16", 1, 2},
      {kGgmlQ4_0, "Q4_0", 32, 18},
      {kGgmlQ4_1, "Q4_1", 32, 20},
      {kGgmlQ5_0, "Q5_0", 32, 22},
      {kGgmlQ5_1, "Q5_1", 32, 24},
      {kGgmlQ8_0, "Q8_0", 32, 34},
      {kGgmlQ8_1, "Q8_1", 32, 36},
      {kGgmlQ2_K, "Q2_K", 256, 84},
      {kGgmlQ3_K, "Q3_K", 256, 110},
      {kGgmlQ4_K, "Q4_K", 256, 144},
      {kGgmlQ5_K, "Q5_K", 256, 176},
      {kGgmlQ6_K, "Q6_K", 256, 210},
      {kGgmlQ8_K, "Q8_K", 256, 292},
      {kGgmlIQ2_XXS, "IQ2_XXS", 256, 66},
      {kGgmlIQ2_XS, "IQ2_XS", 256, 74},
      {kGgmlIQ3_XXS, "IQ3_XXS", 256, 98},
      {kGgmlIQ1_S, "IQ1_S", 256, 50},
      {kGgmlIQ4_NL, "IQ4_NL", 32, 18},
      {kGgmlIQ3_S, "IQ3_S", 256, 110},
      {kGgmlIQ2_S, "IQ2_S", 256, 82},
      {kGgmlIQ4_XS, "IQ4_XS", 256, 136},
      {kGgmlI8, "I8", 1, 1},
      {kGgmlI16, "I16", 1, 2},
      {kGgmlI32, "I32", 1, 4},
      {kGgmlI64, "I64", 1, 8},
      {kGgmlF64, "F64", 1, 8},
      {kGgmlIQ1_M, "IQ1_M", 256, 56},
      {kGgmlBF16, "BF16", 1, 2},
      {kGgmlTQ1_0, "TQ1_0", 256, 54},
      {kGgmlTQ2_0, "TQ2_0", 256, 66},
      {kGgmlMXFP4, "MXFP4", 32, 17},
      {kGgmlNVFP4, "NVFP4", 64, 36},
      {kGgmlQ1_0, "Q1_0", 128, 18},
      {kGgmlQ2_0, "Q2_0", 64, 18},
  };
  return table;
}

const GgmlTypeTraits *vmpack::quant::ggmlTypeTraits(uint32_t type) {
  const std::vector<GgmlTypeTraits> &table = ggmlTypes();
  auto it = std::lower_bound(
      table.begin(), table.end(), type,
      [](const GgmlTypeTraits &t, uint32_t v) { return t.type < v; });
  if (it == table.end() || it->type != type)
    return nullptr;
  return &*it;
}

const GgmlTypeTraits *vmpack::quant::ggmlTypeByName(std::string_view name) {
  for (const GgmlTypeTraits &t : ggmlTypes()) {
    std::string_view n = t.name;
    if (n.size() != name.size())
      continue;
    bool same = true;
    for (size_t i = 0; i < n.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(n[i])) ==
             std::tolower(static_cast<unsigned char>(name[i]));
    if (same)
      return &t;
  }
  return nullptr;
}

bool vmpack::quant::isGgmlBlockType(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  return t && t->blockSize > 1;
}
