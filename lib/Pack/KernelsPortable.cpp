//===- KernelsPortable.cpp - The portable dispatch level ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels.h as written: plain C++, correct on any little-endian host.
//
//===----------------------------------------------------------------------===//

#define VMPACK_KERNEL_NS portable
#include "Kernels.h"

using namespace vmpack::detail;

constexpr LevelKernels vmpack::detail::kPortableKernels =
    portable::makeLevelKernels<portable::Kernels, portable::Common>();
