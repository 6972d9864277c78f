//===- Dispatch.cpp - Choosing the kernels' instruction set once ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one list of dispatch levels: their names, what each needs from the
// CPU, and which table implements it. VMPACK_DISPATCH_MAX (set by the build
// option VMPACK_DISPATCH, 0 ... 4) is the highest level compiled in; x86
// levels exist only on x86-64.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <cstdio>
#include <cstdlib>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

using namespace vmpack;
using namespace vmpack::detail;

#ifndef VMPACK_DISPATCH_MAX
#error "the build defines VMPACK_DISPATCH_MAX"
#endif
#if VMPACK_DISPATCH_MAX > 0 && !defined(__x86_64__)
#error "x86 dispatch levels need an x86-64 target"
#endif

namespace {

struct LevelInfo {
  DispatchLevel level;
  const char *name;
  const LevelKernels *kernels;
};

constexpr LevelInfo kLevels[] = {
    {DispatchLevel::Portable, "portable", &kPortableKernels},
#if VMPACK_DISPATCH_MAX >= 1
    {DispatchLevel::SSE2, "sse2", &kSSE2Kernels},
#endif
#if VMPACK_DISPATCH_MAX >= 2
    {DispatchLevel::SSE41, "sse41", &kSSE41Kernels},
#endif
#if VMPACK_DISPATCH_MAX >= 3
    {DispatchLevel::AVX2, "avx2", &kAVX2Kernels},
#endif
#if VMPACK_DISPATCH_MAX >= 4
    {DispatchLevel::AVX512, "avx512", &kAVX512Kernels},
#endif
};
constexpr unsigned kCompiledLevels = sizeof(kLevels) / sizeof(kLevels[0]);
static_assert(kCompiledLevels <= kNumDispatchLevels);

const char *const kAllNames[kNumDispatchLevels] = {"portable", "sse2", "sse41",
                                                   "avx2", "avx512"};

/// Whether the CPU (and the OS, for the AVX register state) runs `level`.
#if defined(__x86_64__)
/// F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports
/// does not know the name.
bool cpuHasF16C() {
  unsigned eax, ebx, ecx, edx;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
}
#endif

bool cpuRuns(DispatchLevel level) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (level) {
  case DispatchLevel::Portable:
    return true;
  case DispatchLevel::SSE2:
    return __builtin_cpu_supports("sse2");
  case DispatchLevel::SSE41:
    return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1");
  case DispatchLevel::AVX2:
    return cpuRuns(DispatchLevel::SSE41) && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("bmi2") && cpuHasF16C();
  case DispatchLevel::AVX512:
    return cpuRuns(DispatchLevel::AVX2) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("avx512vbmi2");
  }
  return false;
#else
  return level == DispatchLevel::Portable;
#endif
}

DispatchLevel chooseLevel() {
  DispatchLevel best = bestDispatchLevel();
  const char *env = std::getenv("VMPACK_DISPATCH");
  if (!env || !*env)
    return best;
  std::optional<DispatchLevel> wanted = parseDispatchLevel(env);
  if (!wanted) {
    std::fprintf(stderr,
                 "vmpack: VMPACK_DISPATCH='%s' is not one of portable, sse2, "
                 "sse41, avx2, avx512; using %s\n",
                 env, dispatchLevelName(best));
    return best;
  }
  if (!isDispatchLevelSupported(*wanted)) {
    std::fprintf(stderr,
                 "vmpack: VMPACK_DISPATCH=%s is not supported by this build "
                 "and CPU; using %s\n",
                 env, dispatchLevelName(best));
    return best;
  }
  return *wanted;
}

} // namespace

const char *vmpack::dispatchLevelName(DispatchLevel level) {
  unsigned i = unsigned(level);
  return i < kNumDispatchLevels ? kAllNames[i] : "?";
}

std::optional<DispatchLevel> vmpack::parseDispatchLevel(std::string_view name) {
  for (unsigned i = 0; i < kNumDispatchLevels; ++i)
    if (name == kAllNames[i])
      return DispatchLevel(i);
  return std::nullopt;
}

bool vmpack::isDispatchLevelSupported(DispatchLevel level) {
  return unsigned(level) < kCompiledLevels && cpuRuns(level);
}

DispatchLevel vmpack::bestDispatchLevel() {
  static const DispatchLevel best = [] {
    DispatchLevel level = DispatchLevel::Portable;
    for (const LevelInfo &info : kLevels)
      if (cpuRuns(info.level))
        level = info.level;
    return level;
  }();
  return best;
}

DispatchLevel vmpack::activeDispatchLevel() {
  static const DispatchLevel active = chooseLevel();
  return active;
}

const LevelKernels &vmpack::detail::levelKernels(DispatchLevel level) {
  return *kLevels[unsigned(level)].kernels;
}

const LevelKernels &vmpack::detail::commonKernels() {
  static const LevelKernels &active = levelKernels(activeDispatchLevel());
  return active;
}
