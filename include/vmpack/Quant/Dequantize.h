//===- Dequantize.h - Quantized weights to floats ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Dequantization of ggml block tensors and of planar quantized tensors
// (codes + per-group scales, and optionally per-group minimums) to f32, f16
// or bf16. Every value is computed in f32 exactly as ggml's reference
// dequantize_row_* (ggml/src/ggml-quants.c) computes it, operation by
// operation (no fused multiply-add), then rounded to f16 or bf16 to the
// nearest, ties to even; a NaN stays a NaN (docs/quant.md).
//
// The kernels exist once per dispatch level of the Pack layer (Dispatch.h:
// portable C++, SSE2, AVX2, AVX-512) and give the same bytes at every
// level; the level in use is vmpack::activeDispatchLevel(). The ranged
// functions take any element range, split it into pieces decoded on
// several threads, and never allocate more than a few blocks.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_DEQUANTIZE_H
#define VMPACK_QUANT_DEQUANTIZE_H

#include "vmpack/Pack/Dispatch.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace vmpack::quant {

/// The float types dequantization writes: little-endian IEEE binary32,
/// binary16 and bfloat16.
enum class FloatType : uint8_t { F32 = 0, F16 = 1, BF16 = 2 };
constexpr unsigned kNumFloatTypes = 3;

/// 4, 2 or 2.
unsigned floatTypeBytes(FloatType type);
/// "f32", "f16" or "bf16".
const char *floatTypeName(FloatType type);
/// "f32", "f16", "bf16" (also numpy's "float32", "float16", "bfloat16").
std::optional<FloatType> parseFloatType(std::string_view name);

/// f32 to f16 and to bf16, rounding to the nearest, ties to even; values
/// beyond the range become infinities. A NaN keeps its sign and the top
/// payload bits and is made quiet (for f16 what x86's VCVTPS2PH gives).
uint16_t floatToHalf(float value);
uint16_t floatToBFloat16(float value);
/// f16 and bf16 to f32, exactly.
float halfToFloat(uint16_t value);
float bfloat16ToFloat(uint16_t value);

/// Whether a vector dequantize kernel exists for ggml type `ggmlType`:
/// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q6_K, MXFP4.
bool hasGgmlDequantizeKernel(uint32_t ggmlType);

/// Whether dequantizeGgmlRange takes `ggmlType`: every quantized ggml type
/// (GgmlDecode.h); those without a kernel go through decodeGgmlBlocks and
/// a rounding loop.
bool canDequantizeGgml(uint32_t ggmlType);

/// Decodes `blockCount` whole blocks at `blocks` to blockCount * block size
/// values at `out` (GgmlTypes.h gives the block geometry), on the calling
/// thread, at the active dispatch level. `ggmlType` must have a kernel.
void dequantizeGgmlBlocks(uint32_t ggmlType, const uint8_t *blocks,
                          uint64_t blockCount, FloatType to, void *out);
/// The same at `level`, which must be supported (isDispatchLevelSupported);
/// for tests and benchmarks.
void dequantizeGgmlBlocksAt(DispatchLevel level, uint32_t ggmlType,
                            const uint8_t *blocks, uint64_t blockCount,
                            FloatType to, void *out);

/// Elements [first, first + count) of a ggml tensor whose blocks start at
/// `tensor` (element e is in block e / block size), to `out`. Ranges that
/// start or end inside a block are decoded through a one-block buffer.
/// `threads` 0 means as many as the machine has; small ranges use one.
/// `ggmlType` must be one canDequantizeGgml takes.
void dequantizeGgmlRange(uint32_t ggmlType, const uint8_t *tensor,
                         uint64_t first, uint64_t count, FloatType to,
                         void *out, unsigned threads = 0);

/// A planar quantized tensor: codes, one scale per group of `groupSize`
/// consecutive elements (in row-major order of the logical shape; a group
/// never spans two rows), and optionally one minimum per group. Element e
/// is
///   code * d[e / groupSize]                       (no minimums)
///   code * d[e / groupSize] + m[e / groupSize]    (with minimums)
/// computed in f32, code converted exactly. These are the values of the
/// NAME.q, NAME.d, NAME.m tensors that the planar form of Q4_0, Q4_1 and
/// Q8_0 (and of the planar i4 scheme) gives.
struct PlanarView {
  /// Code bits: 4 (`packed` layout: element 2j in the low nibble of byte
  /// j) or 8 (one byte per element).
  uint32_t codeBits = 4;
  bool signedCodes = true;
  const uint8_t *codes = nullptr;
  /// Little-endian f16 scales and minimums (minimums may be null).
  const uint8_t *scales = nullptr;
  const uint8_t *minimums = nullptr;
  uint64_t groupSize = 128;
};

/// Whether `view` has a kernel: 4- or 8-bit codes, a group size > 0.
bool hasPlanarDequantizeKernel(const PlanarView &view);

/// Elements [first, first + count) of `view` to `out`.
void dequantizePlanarRange(const PlanarView &view, uint64_t first,
                           uint64_t count, FloatType to, void *out,
                           unsigned threads = 0);
/// The same on the calling thread at `level` (tests and benchmarks).
void dequantizePlanarRangeAt(DispatchLevel level, const PlanarView &view,
                             uint64_t first, uint64_t count, FloatType to,
                             void *out);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_DEQUANTIZE_H
