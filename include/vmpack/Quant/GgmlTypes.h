//===- GgmlTypes.h - ggml's type numbers and block geometry ---------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The one table of ggml's types (ggml-org/ggml include/ggml.h `enum
// ggml_type`, src/ggml.c `type_traits`): the number, ggml's name, how many
// elements one block holds and how many bytes it takes. Every layer that
// spells a ggml type number or a block size (the GGUF reader and writer,
// the block decoders, the planar repacks, the tools) derives it from here.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_GGMLTYPES_H
#define VMPACK_QUANT_GGMLTYPES_H

#include <cstdint>
#include <string_view>
#include <vector>

namespace vmpack::quant {

/// ggml_type values (ggml.h). Numbers ggml removed (4, 5, 31-33, 36-38)
/// are absent.
enum GgmlTypeId : uint32_t {
  kGgmlF32 = 0,
  kGgmlF16 = 1,
  kGgmlQ4_0 = 2,
  kGgmlQ4_1 = 3,
  kGgmlQ5_0 = 6,
  kGgmlQ5_1 = 7,
  kGgmlQ8_0 = 8,
  kGgmlQ8_1 = 9,
  kGgmlQ2_K = 10,
  kGgmlQ3_K = 11,
  kGgmlQ4_K = 12,
  kGgmlQ5_K = 13,
  kGgmlQ6_K = 14,
  kGgmlQ8_K = 15,
  kGgmlIQ2_XXS = 16,
  kGgmlIQ2_XS = 17,
  kGgmlIQ3_XXS = 18,
  kGgmlIQ1_S = 19,
  kGgmlIQ4_NL = 20,
  kGgmlIQ3_S = 21,
  kGgmlIQ2_S = 22,
  kGgmlIQ4_XS = 23,
  kGgmlI8 = 24,
  kGgmlI16 = 25,
  kGgmlI32 = 26,
  kGgmlI64 = 27,
  kGgmlF64 = 28,
  kGgmlIQ1_M = 29,
  kGgmlBF16 = 30,
  kGgmlTQ1_0 = 34,
  kGgmlTQ2_0 = 35,
  kGgmlMXFP4 = 39,
  kGgmlNVFP4 = 40,
  kGgmlQ1_0 = 41,
  kGgmlQ2_0 = 42,
};

/// ggml's type traits: elements per block and bytes per block. Plain types
/// have blockSize 1.
struct GgmlTypeTraits {
  uint32_t type;
  const char *name;
  uint32_t blockSize;
  uint32_t typeSize;
};

/// Every ggml type a GGUF file may hold, ascending by number.
const std::vector<GgmlTypeTraits> &ggmlTypes();
/// nullptr for numbers ggml never defined or has removed (4, 5, 31-33,
/// 36-38, and anything past the table).
const GgmlTypeTraits *ggmlTypeTraits(uint32_t type);

/// The type named `name` (ggml's name, any case: "Q4_K", "q4_k", "iq4_nl"),
/// or nullptr.
const GgmlTypeTraits *ggmlTypeByName(std::string_view name);

/// True for the block (quantized) types: every type with blockSize > 1.
bool isGgmlBlockType(uint32_t type);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_GGMLTYPES_H
