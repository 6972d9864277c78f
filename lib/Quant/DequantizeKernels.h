//===- DequantizeKernels.h - Dequantize kernel tables (internal) -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One table of dequantize kernels per dispatch level of the Pack layer,
// each filled in by the translation unit that compiles that level
// (DequantizeKernels*.cpp from DequantizeLevel.h). Dequantize.cpp picks the
// table of the active level.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_QUANT_DEQUANTIZEKERNELS_H
#define VMPACK_LIB_QUANT_DEQUANTIZEKERNELS_H

#include "vmpack/Quant/Dequantize.h"

#include <cstdint>

namespace vmpack::quant::detail {

/// The ggml types with a kernel, in table order.
enum KernelType : unsigned {
  kQ4_0,
  kQ4_1,
  kQ5_0,
  kQ5_1,
  kQ8_0,
  kQ4_K,
  kQ6_K,
  kMXFP4,
  kNumKernelTypes
};

/// Decodes `n` whole blocks to n * block size values.
using BlockKernel = void (*)(const uint8_t *blocks, uint64_t n, void *out);
/// Decodes elements [first, first + n) of a planar view to n values. The
/// vector levels need first, n and the group size to be multiples of 32;
/// the portable level takes any.
using PlanarKernel = void (*)(const PlanarView &view, uint64_t first,
                              uint64_t n, void *out);

struct DequantizeLevel {
  BlockKernel ggml[kNumKernelTypes][kNumFloatTypes];
  /// [0]: 4-bit codes, [1]: 8-bit codes; [signed][minimums].
  PlanarKernel planar[2][2][2][kNumFloatTypes];
};

extern const DequantizeLevel kPortableDequantize;
extern const DequantizeLevel kSSE2Dequantize;
extern const DequantizeLevel kSSE41Dequantize;
extern const DequantizeLevel kAVX2Dequantize;
extern const DequantizeLevel kAVX512Dequantize;

/// The table of `level`, which this build must carry.
const DequantizeLevel &dequantizeLevel(DispatchLevel level);

} // namespace vmpack::quant::detail

#endif // VMPACK_LIB_QUANT_DEQUANTIZEKERNELS_H
