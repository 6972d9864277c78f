//===- GgmlDecode.h - ggml block types to float32 -------------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Decodes whole blocks of every quantized ggml type (and the plain F32, F16
// and BF16 types) to float32, bit-identical to ggml's reference
// dequantization (ggml-org/ggml src/ggml-quants.c `dequantize_row_*`): the
// same float32 operations in the same order, so that every result, NaN
// payloads and signs included, equals ggml's. docs/quant.md gives each
// type's formula, arithmetic order and byte layout.
//
// Q8_1 has no dequantizer in ggml (its `to_float` is unset); vmpack decodes
// it as Q8_0 does, value = q * d, ignoring the stored sum s.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_GGMLDECODE_H
#define VMPACK_QUANT_GGMLDECODE_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <cstdint>

namespace vmpack::quant {

using archive::Status;
using archive::StatusOr;

/// True when decodeGgmlBlocks decodes `ggmlType`: every quantized type of
/// the table in GgmlTypes.h, and F32, F16 and BF16.
bool canDecodeGgml(uint32_t ggmlType);

/// Elements and bytes per block of `ggmlType`; 0 when it is not a ggml
/// type (GgmlTypes.h).
uint32_t ggmlBlockElements(uint32_t ggmlType);
uint32_t ggmlBlockBytes(uint32_t ggmlType);

/// Decodes `blockCount` consecutive blocks at `blocks` (blockCount *
/// ggmlBlockBytes bytes, any alignment) into `out` (blockCount *
/// ggmlBlockElements floats). Fails, writing nothing, for a type
/// canDecodeGgml refuses or a byte count that overflows.
Status decodeGgmlBlocks(uint32_t ggmlType, const uint8_t *blocks,
                        uint64_t blockCount, float *out);

/// The same for a byte range: `byteCount` must be a whole number of blocks
/// and `outCapacity` (floats) must hold them; otherwise a Format or
/// BufferTooSmall error that names the counts.
Status decodeGgmlBytes(uint32_t ggmlType, const uint8_t *data,
                       uint64_t byteCount, float *out, uint64_t outCapacity);

/// float16 bits to float32 as ggml converts them (GGML_FP16_TO_FP32): exact
/// for every number; a NaN keeps its sign and payload and becomes quiet.
float ggmlHalfToFloat(uint16_t bits);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_GGMLDECODE_H
