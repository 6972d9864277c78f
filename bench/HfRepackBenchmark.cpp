//===- HfRepackBenchmark.cpp - GPTQ/AWQ repack kernels vs memcpy ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-hfrepack-bench: single-core throughput of the repack kernels of
// vmpack/Quant/HfRepack.h on one [out, in] 4-bit (and 8-bit) weight of a
// 7B model's shape (4096 x 4096, groups of 128), each next to a memcpy of
// its larger side (input or output bytes) timed in the same run,
// repetitions interleaved, medians reported (each repetition the fastest of
// three calls):
//   gptq4->q4_0   qweight + scales -> Q4_0 blocks (gptqToGgmlRows)
//   gptq8->q8_0   the same for 8-bit codes -> Q8_0
//   awq->gptq     AWQ GEMM qweight -> GPTQ qweight (awqToGptqWords)
//   gptq->awq     the reverse (gptqToAwqWords)
// each with the kernels of the active dispatch level (VMPACK_DISPATCH),
// then, below it, the AVX2 ones and the portable (scalar) ones, the level
// named after the kernel.
//
// Environment: VMPACK_BENCH_DIM (default 4096), VMPACK_BENCH_REPS (7).
// Output: kernel in_bytes out_bytes kernel_GBps memcpy_GBps ratio, GB/s of
// the larger side (10^9 bytes per second).
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.h"
#include "vmpack/Quant/HfRepack.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using vmpack::bench::median;
using vmpack::bench::seconds;
using namespace vmpack::quant;

namespace {

void row(const char *name, uint64_t inBytes, uint64_t outBytes, int reps,
         const std::function<void()> &kernel) {
  const uint64_t larger = std::max(inBytes, outBytes);
  std::vector<uint8_t> a(larger, 1), b(larger);
  auto copy = [&] { std::memcpy(b.data(), a.data(), larger); };
  std::vector<double> k, m;
  for (int r = 0; r < reps; ++r) {
    k.push_back(seconds(kernel));
    m.push_back(seconds(copy));
  }
  double kg = double(larger) / median(k) / 1e9;
  double mg = double(larger) / median(m) / 1e9;
  std::printf("%-20s %10llu %10llu %8.2f %8.2f %6.2f\n", name,
              (unsigned long long)inBytes, (unsigned long long)outBytes, kg, mg,
              kg / mg);
}

} // namespace

int main() {
  const char *dimEnv = std::getenv("VMPACK_BENCH_DIM");
  const char *repsEnv = std::getenv("VMPACK_BENCH_REPS");
  const uint64_t n = dimEnv ? std::strtoull(dimEnv, nullptr, 10) : 4096;
  const int reps = repsEnv ? std::atoi(repsEnv) : 7;
  const uint64_t in = n, out = n, group = 128, groups = in / group;
  std::mt19937 rng(1);
  std::vector<uint32_t> q4(in / 8 * out), q8(in / 4 * out);
  for (auto &w : q4)
    w = rng();
  for (auto &w : q8)
    w = rng();
  std::vector<uint16_t> scales(groups * out, 0x2000);
  std::vector<uint8_t> blocks4(out * in / 32 * 18), blocks8(out * in / 32 * 34);
  std::vector<uint32_t> awq(in * out / 8), gptq(in / 8 * out);
  auto bytes = [](auto &v) { return reinterpret_cast<uint8_t *>(v.data()); };
  std::printf("# single core, %llu x %llu, groups of %llu; GB/s of the "
              "larger side; memcpy of the same bytes, same run; medians of "
              "%d\n",
              (unsigned long long)out, (unsigned long long)in,
              (unsigned long long)group, reps);
  std::printf("%-20s %10s %10s %8s %8s %6s\n", "kernel", "in_bytes",
              "out_bytes", "GB/s", "memcpy", "ratio");
  std::vector<vmpack::DispatchLevel> levels = {vmpack::activeDispatchLevel()};
  for (vmpack::DispatchLevel lower :
       {vmpack::DispatchLevel::AVX2, vmpack::DispatchLevel::Portable})
    if (lower < levels[0] && vmpack::isDispatchLevelSupported(lower))
      levels.push_back(lower);
  for (vmpack::DispatchLevel level : levels) {
    auto name = [&](const char *kernel) {
      return std::string(kernel) + " " + vmpack::dispatchLevelName(level);
    };
    row(name("gptq4->q4_0").c_str(), q4.size() * 4 + scales.size() * 2,
        blocks4.size(), reps, [&] {
          gptqToGgmlRowsAt(level, 4, bytes(q4), bytes(scales), in, out, group,
                           0, out, blocks4.data());
        });
    row(name("gptq8->q8_0").c_str(), q8.size() * 4 + scales.size() * 2,
        blocks8.size(), reps, [&] {
          gptqToGgmlRowsAt(level, 8, bytes(q8), bytes(scales), in, out, group,
                           0, out, blocks8.data());
        });
    row(name("awq->gptq").c_str(), awq.size() * 4, gptq.size() * 4, reps, [&] {
      awqToGptqWordsAt(level, bytes(q4), out, 0, in / 8, bytes(gptq));
    });
    row(name("gptq->awq").c_str(), gptq.size() * 4, awq.size() * 4, reps,
        [&] { gptqToAwqWordsAt(level, bytes(q4), out, 0, in, bytes(awq)); });
  }
  return 0;
}
