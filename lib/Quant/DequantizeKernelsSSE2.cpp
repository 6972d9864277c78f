//===- DequantizeKernelsSSE2.cpp - The SSE2 dequantize kernels ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// DequantizeLevel.h's vector kernels compiled for SSE2, in
// namespace sse2. The standard headers come first, so that nothing they
// define inline carries the target options (see lib/Pack/KernelsAVX2.cpp).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <immintrin.h>

// clang-format off
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(                            \
    "sse2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2")
#endif
// clang-format on

#define VMPACK_KERNEL_NS sse2
#define VMPACK_X86_LEVEL 1
#include "DequantizeLevel.h"

using namespace vmpack::quant::detail;

constexpr DequantizeLevel vmpack::quant::detail::kSSE2Dequantize =
    sse2::makeDequantizeLevel();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
