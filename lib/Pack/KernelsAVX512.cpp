//===- KernelsAVX512.cpp - The AVX-512 dispatch level ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels.h and X86Kernels.h compiled for AVX-512 F, BW, VL, VBMI and
// VBMI2 (with AVX2, BMI2, F16C), in namespace avx512. Every function this file
// defines carries those target options (the pragma below); the standard headers
// come first, so that nothing they define inline carries them and the linker
// never picks a copy that needs more than the portable level.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <type_traits>
#include <utility>

// clang-format off
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target(                            \
    "sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c,"                                \
    "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c",                 \
                   "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2")
#endif
// clang-format on

#define VMPACK_KERNEL_NS avx512
#define VMPACK_X86_LEVEL 4
#include "Kernels.h"
#include "X86Kernels.h"

using namespace vmpack::detail;

constexpr LevelKernels vmpack::detail::kAVX512Kernels =
    avx512::makeLevelKernels<avx512::X86Kernels, avx512::X86Common>();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
