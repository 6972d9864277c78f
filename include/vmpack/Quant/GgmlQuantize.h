//===- GgmlQuantize.h - float32 to ggml blocks, as ggml rounds ------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// ggml's reference quantizers for the plain scale-and-round block types:
// float32 rows to Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 blocks, byte for byte what
// ggml's `quantize_row_*_ref` (ggml-org/ggml src/ggml-quants.c) writes, and
// so what `ggml_quantize_chunk` writes for these types without an importance
// matrix. docs/quant.md, section 5, gives each one's arithmetic. This is
// the rounding step of `vmpack-convert --quant=TYPE --allow-rounding`; an
// exact repack (GgmlPlanar.h) never rounds.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_GGMLQUANTIZE_H
#define VMPACK_QUANT_GGMLQUANTIZE_H

#include "vmpack/Quant/GgmlDecode.h"

#include <cstdint>

namespace vmpack::quant {

/// Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0.
bool hasGgmlQuantizer(uint32_t ggmlType);

/// Quantizes `blockCount` blocks of ggmlBlockElements(ggmlType) floats at
/// `x` into `out` (blockCount * ggmlBlockBytes bytes). Unsupported for a
/// type hasGgmlQuantizer refuses.
Status quantizeGgmlBlocks(uint32_t ggmlType, const float *x,
                          uint64_t blockCount, uint8_t *out);

/// float32 to float16 bits as ggml's GGML_FP32_TO_FP16 converts them: to
/// nearest even, overflow to infinity, every NaN to the quiet 0x7E00 with
/// its sign.
uint16_t ggmlFloatToHalf(float f);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_GGMLQUANTIZE_H
