//===- DequantizeKernelsSSE41.cpp - The SSE41 dequantize kernels ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DequantizeLevel.h's vector kernels compiled for SSE4.1, in
// namespace sse41. The standard headers come first, so that nothing they
// define inline carries the target options (see lib/Pack/KernelsAVX2.cpp).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <immintrin.h>

// clang-format off
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(                            \
    "sse2,ssse3,sse4.1"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1")
#endif
// clang-format on

#define VMPACK_KERNEL_NS sse41
#define VMPACK_X86_LEVEL 2
#include "DequantizeLevel.h"

using namespace vmpack::quant::detail;

constexpr DequantizeLevel vmpack::quant::detail::kSSE41Dequantize =
    sse41::makeDequantizeLevel();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
