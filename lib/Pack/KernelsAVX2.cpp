//===- KernelsAVX2.cpp - The AVX2 dispatch level --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels.h and X86Kernels.h compiled for AVX2, BMI2 and F16C, in
// namespace avx2. Every function this file defines carries those target
// options (the pragma below); the standard headers come first, so that
// nothing they define inline carries them and the linker never picks a
// copy that needs more than the portable level.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <type_traits>
#include <utility>

#if defined(__clang__)
#pragma clang attribute push(                                                  \
    __attribute__((target("sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c"))),       \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1,avx,avx2,bmi,bmi2,f16c")
#endif

#define VMPACK_KERNEL_NS avx2
#define VMPACK_X86_LEVEL 3
#include "Kernels.h"
#include "X86Kernels.h"

using namespace vmpack::detail;

constexpr LevelKernels vmpack::detail::kAVX2Kernels =
    avx2::makeLevelKernels<avx2::X86Kernels, avx2::X86Common>();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
