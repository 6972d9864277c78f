//===- DequantizeKernelsAVX2.cpp - The AVX2 dequantize kernels ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DequantizeLevel.h's vector kernels compiled for AVX2 and F16C, in
// namespace avx2. The standard headers come first, so that nothing they
// define inline carries the target options (see lib/Pack/KernelsAVX2.cpp).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <immintrin.h>

// clang-format off
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(                            \
    "sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c")
#endif
// clang-format on

#define VMPACK_KERNEL_NS avx2
#define VMPACK_X86_LEVEL 3
#include "DequantizeLevel.h"

using namespace vmpack::quant::detail;

constexpr DequantizeLevel vmpack::quant::detail::kAVX2Dequantize =
    avx2::makeDequantizeLevel();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
