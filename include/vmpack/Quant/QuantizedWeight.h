//===- QuantizedWeight.h - One model of a quantized weight ----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// A quantized weight is small codes plus scales, and zero points or
// minimums, in groups along one axis of its logical shape. One description
// serves ggml's block types, GPTQ/AWQ-style group quantization and the
// planar form (docs/quant.md):
//
//   value = (code - zeroPoint) * scale                  (OffsetKind::ZeroPoint)
//   value = code * scale + minimum (OffsetKind::AddMinimum) value = code *
//   scale - minimum                      (OffsetKind::SubMinimum) value = code
//   * scale                                (OffsetKind::None)
//
// where `code` is the stored integer, or the code book's value at that
// index, and `scale` is one stored value per group, or (two levels, as in
// the K-quants) a super-block scale times a small integer sub-scale; a
// minimum may have two levels the same way.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_QUANTIZEDWEIGHT_H
#define VMPACK_QUANT_QUANTIZEDWEIGHT_H

#include "vmpack/Pack/ElementType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vmpack::quant {

/// What a code stands for.
enum class CodeBook : uint8_t {
  None,    ///< the integer itself
  Iq4nl,   ///< kIq4nlValues[code] (ggml IQ4_NL, IQ4_XS)
  Fp4E2M1, ///< the E2M1 value of the 4-bit code (MXFP4, NVFP4)
  IqGrid,  ///< an index into one of the i-quant grids (not planar)
  Ternary, ///< base-3 digits packed five per byte (TQ1_0; not planar)
  BnbNf4,  ///< bitsandbytes' NF4 table (formats::bnbCodeValues("nf4"))
  BnbFp4,  ///< bitsandbytes' FP4 table (formats::bnbCodeValues("fp4"))
};

enum class OffsetKind : uint8_t { None, ZeroPoint, AddMinimum, SubMinimum };

/// One stored level of scales or offsets: its element type (MLIR spelling:
/// "f16", "bf16", "f32", "f8E8M0FNU", "ui6", "si8", ...) and how many
/// consecutive elements along the quantization axis share one value.
struct ScaleLevel {
  std::string type;
  uint64_t groupSize = 0;
};

/// How one quantized weight is stored.
struct QuantScheme {
  /// A short name: "ggml.q4_0", "planar", "gptq", ...
  std::string name;
  /// The codes: MLIR element type ("si4", "ui5", "f4E2M1FN", ...) and what
  /// they stand for.
  std::string codeType;
  CodeBook codeBook = CodeBook::None;
  /// Elements per group of the innermost scale level (the block size for
  /// ggml's one-level types, the sub-block size for the K-quants).
  uint64_t groupSize = 0;
  /// Outermost first: one level, or a super-block scale then the integer
  /// sub-scales it multiplies.
  std::vector<ScaleLevel> scales;
  OffsetKind offsetKind = OffsetKind::None;
  /// Zero points or minimums, levels as for scales; empty for None.
  std::vector<ScaleLevel> offsets;
  /// The ggml block type this scheme is, when it is one.
  std::optional<uint32_t> ggmlType;
};

/// A quantized weight: its scheme, its logical shape (the shape of the
/// values it stands for) and the axis the groups run along.
struct QuantizedWeight {
  std::string name;
  QuantScheme scheme;
  std::vector<int64_t> shape;
  /// Index into shape; ggml quantizes the innermost (last) axis.
  uint32_t axis = 0;
  /// GPTQ's g_idx: the group of each position along the axis, when the
  /// groups are not consecutive runs; empty otherwise.
  std::vector<int32_t> groupIndex;
};

/// The scheme of a ggml block type, or nullopt for a plain type or a number
/// ggml never defined.
std::optional<QuantScheme> ggmlScheme(uint32_t ggmlType);

/// A line for tools: "ggml Q4_K: ui4 codes, groups of 32, scales f16 x ui6
/// (super-block 256), minimums f16 x ui6 subtracted".
std::string describe(const QuantScheme &scheme);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_QUANTIZEDWEIGHT_H
