//===- DequantizeKernelsAVX512.cpp - The AVX512 dequantize kernels --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DequantizeLevel.h's vector kernels compiled for AVX-512 F, BW and VL, in
// namespace avx512. The standard headers come first, so that nothing they
// define inline carries the target options (see lib/Pack/KernelsAVX2.cpp).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <immintrin.h>

// clang-format off
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(                            \
    "sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c,avx512f,"                        \
    "avx512bw,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c,avx512f",         \
                   "avx512bw,avx512vl")
#endif
// clang-format on

#define VMPACK_KERNEL_NS avx512
#define VMPACK_X86_LEVEL 4
#include "DequantizeLevel.h"

using namespace vmpack::quant::detail;

constexpr DequantizeLevel vmpack::quant::detail::kAVX512Dequantize =
    avx512::makeDequantizeLevel();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
