//===- GgmlPlanar.h - ggml blocks to and from the planar form -------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The planar form of a quantized weight NAME of logical shape [..., K]:
// its codes NAME.q (shape [..., K], docs/packing.md's `packed` layout), its
// scales NAME.d and, where there are any, its offsets NAME.m as plain
// tensors, one value per group along the last axis. The K-quants keep both
// scale levels: NAME.d and NAME.m are the float16 super-block scale and
// minimum scale, NAME.sd and NAME.sm the small integer sub-block scales and
// minimums. docs/quant.md gives every type's parts and formula.
//
// Splitting ggml blocks into parts and joining them back are exact: every
// bit of a block lands in exactly one part (Q8_1's stored sum, which its
// value does not use, is the one exception and has no planar form), so
// ggml -> planar -> ggml gives the blocks back byte for byte.
//
// All functions work on whole blocks: part p of block i starts at byte
// i * bytesPerBlock(p) of that part, so a caller may stream any run of
// blocks.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_GGMLPLANAR_H
#define VMPACK_QUANT_GGMLPLANAR_H

#include "vmpack/Pack/Dispatch.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::quant {

enum class PlanarRole : uint8_t {
  Codes,
  Scales,
  Offsets,
  SubScales,
  SubOffsets
};

/// One tensor of a planar weight.
struct PlanarPart {
  /// Name suffix: "q", "d", "m", "sd" or "sm".
  const char *suffix;
  PlanarRole role;
  /// MLIR element type: "si4", "ui6", "f16", "f8E8M0FNU", "f4E2M1FN", ...
  /// NVFP4's scales are "ui8" bytes read as ggml's UE4M3 (docs/quant.md).
  const char *type;
  uint32_t bits;
  /// Elements of this part per ggml block.
  uint32_t perBlock;
  uint32_t bytesPerBlock() const { return bits * perBlock / 8; }
};

/// The parts of ggmlType's planar form, codes first; empty when the type
/// has none (plain types, Q8_1, Q8_K, the grid and ternary types).
const std::vector<PlanarPart> &ggmlPlanarParts(uint32_t ggmlType);
bool hasGgmlPlanarForm(uint32_t ggmlType);

/// The shape of `part` for a weight of logical shape [..., K] (K a
/// multiple of the block size): [..., K / blockSize * part.perBlock].
std::vector<int64_t> planarPartShape(uint32_t ggmlType, const PlanarPart &part,
                                     const std::vector<int64_t> &shape);

/// Splits `blockCount` blocks into the parts: parts[p] receives
/// blockCount * ggmlPlanarParts(type)[p].bytesPerBlock() bytes.
Status ggmlToPlanar(uint32_t ggmlType, const uint8_t *blocks,
                    uint64_t blockCount, uint8_t *const *parts);

/// Joins parts back into `blockCount` blocks. Bits of a packed part beyond
/// its last element (none: every part ends on a byte per block) are
/// ignored.
Status planarToGgml(uint32_t ggmlType, const uint8_t *const *parts,
                    uint64_t blockCount, uint8_t *blocks);

/// ggmlToPlanar and planarToGgml with the kernels of dispatch level `level`
/// (vmpack/Pack/Dispatch.h), which must be supported: Q4_0 has a scalar
/// reference, SSE2 and AVX-512 kernels; the other types one form. For
/// tests and benchmarks.
Status ggmlToPlanarAt(DispatchLevel level, uint32_t ggmlType,
                      const uint8_t *blocks, uint64_t blockCount,
                      uint8_t *const *parts);
Status planarToGgmlAt(DispatchLevel level, uint32_t ggmlType,
                      const uint8_t *const *parts, uint64_t blockCount,
                      uint8_t *blocks);

/// Decodes the planar form directly to float32, with the same operations
/// as decodeGgmlBlocks on the joined blocks (so the same bits).
Status decodeGgmlPlanar(uint32_t ggmlType, const uint8_t *const *parts,
                        uint64_t blockCount, float *out);

/// One stored tensor of a planar set, as a file describes it.
struct PlanarTensorInfo {
  /// The full name, NAME.q, NAME.d, ...
  std::string name;
  /// MLIR element type spelling.
  std::string type;
  std::vector<int64_t> shape;
  uint64_t byteLength = 0;
};

/// The tensors of the planar form of a ggmlType weight `name` of logical
/// shape `shape`, codes first: NAME.q, NAME.d, ... with their element
/// types, shapes and byte lengths (what a writer declares before it fills
/// them with ggmlToPlanar). Empty when the type has no planar form or the
/// last dimension is not a positive multiple of the block size.
std::vector<PlanarTensorInfo> planarTensors(uint32_t ggmlType,
                                            const std::string &name,
                                            const std::vector<int64_t> &shape);

/// Checks that `tensors` are exactly the planar form of a ggmlType weight
/// `name` of logical shape `shape` (the shape of NAME.q): every part present
/// once, with its element type, its shape (planarPartShape) and the byte
/// length of its packed layout, and nothing else named NAME.*; K a
/// multiple of the block size. A Format error names the tensor that is
/// missing, extra or wrong, and what was expected.
Status checkPlanarSet(uint32_t ggmlType, const std::string &name,
                      const std::vector<PlanarTensorInfo> &tensors);

/// Checks the scales of `blockCount` blocks as ggml's
/// ggml_validate_row_data does: no float16 (or Q8_K's float32) scale or
/// minimum is NaN or infinite, no MXFP4 exponent is 0xFF. The Format error
/// names the block and the field. Decoding itself accepts every bit pattern.
Status validateGgmlBlocks(uint32_t ggmlType, const uint8_t *blocks,
                          uint64_t blockCount);

/// A weight quantized in groups along its last axis with one level of
/// scales, as GPTQ, AWQ and the planar form of a legacy type store it:
///   value = float(q - z) * s   (ZeroPoint: z an integer of codeType)
///   value = float(q) * s + m   (AddMinimum: m of scaleType)
///   value = float(q) * s       (None)
/// in float32, s (and m) converted exactly from scaleType.
struct GroupQuantSource {
  std::string name;
  /// Logical shape [..., K]; K a multiple of groupSize.
  std::vector<int64_t> shape;
  std::string codeType;           ///< "siN" or "uiN", N <= 8
  const uint8_t *codes = nullptr; ///< packed, shape
  uint64_t groupSize = 0;
  std::string scaleType;           ///< "f16", "bf16" or "f32"
  const uint8_t *scales = nullptr; ///< [..., K / groupSize], little-endian
  OffsetKind offsetKind = OffsetKind::None;
  /// ZeroPoint: packed codeType; AddMinimum: scaleType; [..., K/groupSize].
  const uint8_t *offsets = nullptr;
};

/// Re-expresses `src` as blocks of ggmlType (Q4_0, Q4_1, Q5_0, Q5_1 or
/// Q8_0) into `out` (rows * K / 32 blocks) when every value stays exactly
/// the same float32, which is checked element by element; otherwise
/// refuses with a Format error naming the tensor and the first element that
/// would change (or the code or scale that does not fit).
Status repackToGgml(uint32_t ggmlType, const GroupQuantSource &src,
                    uint8_t *out);

/// Decodes a GroupQuantSource to float32 with the formula above.
Status decodeGroupQuant(const GroupQuantSource &src, float *out);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_GGMLPLANAR_H
