//===- Dispatch.h - Which instruction set the kernels use -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bulk kernels of Convert.h exist once per dispatch level: a portable
// C++ path that is correct on any host, and x86-64 paths for wider vector
// instruction sets. The level is chosen once, at the first conversion: the
// best level the CPU supports (cpuid), capped by the build option
// VMPACK_DISPATCH, unless the environment variable VMPACK_DISPATCH names a
// lower one. Every level gives exactly the same bytes as the reference.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PACK_DISPATCH_H
#define VMPACK_PACK_DISPATCH_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace vmpack {

/// Ordered: each level's CPU requirements include the previous level's.
enum class DispatchLevel : uint8_t {
  Portable = 0, ///< Plain C++, any host.
  SSE2 = 1,     ///< x86-64 baseline.
  SSE41 = 2,    ///< + SSSE3, SSE4.1.
  AVX2 = 3,     ///< + AVX2, BMI2, F16C.
  AVX512 = 4,   ///< + AVX-512 F, BW, VL, VBMI, VBMI2.
};
constexpr unsigned kNumDispatchLevels = 5;

/// "portable", "sse2", "sse41", "avx2" or "avx512".
const char *dispatchLevelName(DispatchLevel level);
std::optional<DispatchLevel> parseDispatchLevel(std::string_view name);

/// Whether this build carries kernels for `level` and this CPU runs them.
bool isDispatchLevelSupported(DispatchLevel level);

/// The best supported level, capped by the build's VMPACK_DISPATCH option.
DispatchLevel bestDispatchLevel();

/// The level the kernels use, fixed for the life of the process: the
/// environment's VMPACK_DISPATCH when it names a supported level, otherwise
/// bestDispatchLevel() (an unknown or unsupported name is reported once on
/// stderr).
DispatchLevel activeDispatchLevel();

} // namespace vmpack

#endif // VMPACK_PACK_DISPATCH_H
