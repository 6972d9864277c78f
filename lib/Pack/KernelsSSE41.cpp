//===- KernelsSSE41.cpp - The SSE4.1 dispatch level -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels.h and X86Kernels.h compiled for SSSE3 and SSE4.1, in
// namespace sse41. Every function this file defines carries those target
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
#pragma clang attribute push(__attribute__((target("sse2,ssse3,sse4.1"))),     \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse2,ssse3,sse4.1")
#endif

#define VMPACK_KERNEL_NS sse41
#define VMPACK_X86_LEVEL 2
#include "Kernels.h"
#include "X86Kernels.h"

using namespace vmpack::detail;

constexpr LevelKernels vmpack::detail::kSSE41Kernels =
    sse41::makeLevelKernels<sse41::X86Kernels, sse41::X86Common>();

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
