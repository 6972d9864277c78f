//===- DequantizeKernelsPortable.cpp - Portable dequantize kernels --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DequantizeLevel.h as scalar loops: correct on any little-endian host, and
// the reference the vector levels are tested against.
//
//===----------------------------------------------------------------------===//

#define VMPACK_KERNEL_NS portable
#include "DequantizeLevel.h"

using namespace vmpack::quant::detail;

constexpr DequantizeLevel vmpack::quant::detail::kPortableDequantize =
    portable::makeDequantizeLevel();

uint16_t vmpack::quant::floatToHalf(float value) {
  return portable::floatToHalfScalar(value);
}

uint16_t vmpack::quant::floatToBFloat16(float value) {
  return portable::floatToBFloat16Scalar(value);
}

float vmpack::quant::halfToFloat(uint16_t value) {
  return portable::halfToFloat(value);
}

float vmpack::quant::bfloat16ToFloat(uint16_t value) {
  return portable::floatOf(uint32_t(value) << 16);
}
