//===- PlanarRepackBenchmark.cpp - ggml blocks <-> planar vs memcpy -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-planar-bench: single-core throughput of the exact repacks of
// vmpack/Quant/GgmlPlanar.h (what --quant=planar and --quant=ggml run), for
// Q4_0, Q8_0 (byte-level fast paths) and Q4_K (the field-by-field path), on
// a [rows, 4096] weight, each next to a memcpy of the block bytes timed in
// the same run, repetitions interleaved, medians reported (each repetition
// the fastest of three calls):
//   TYPE->planar  ggmlToPlanar of every block
//   planar->TYPE  planarToGgml of every block
// with the kernels of the active dispatch level (VMPACK_DISPATCH) and, for
// Q4_0, which has one kernel per level, below it the SSE2 and the portable
// (scalar) ones, the level named after the kernel.
//
// Environment: VMPACK_BENCH_ROWS (default 256: about 0.6 MiB of Q4_0, in
// L2; 4096 is a 7B layer, beyond the caches), VMPACK_BENCH_REPS (7).
// Output: kernel bytes kernel_GBps memcpy_GBps ratio, GB/s of the block
// bytes (10^9 bytes per second).
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.h"
#include "vmpack/Quant/GgmlPlanar.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using vmpack::bench::median;
using vmpack::bench::seconds;
using namespace vmpack::quant;

namespace {

void row(const char *name, uint64_t bytes, int reps,
         const std::function<void()> &kernel) {
  std::vector<uint8_t> a(bytes, 1), b(bytes);
  auto copy = [&] { std::memcpy(b.data(), a.data(), bytes); };
  std::vector<double> k, m;
  for (int r = 0; r < reps; ++r) {
    k.push_back(seconds(kernel));
    m.push_back(seconds(copy));
  }
  double kg = double(bytes) / median(k) / 1e9;
  double mg = double(bytes) / median(m) / 1e9;
  std::printf("%-22s %10llu %8.2f %8.2f %6.2f\n", name,
              (unsigned long long)bytes, kg, mg, kg / mg);
}

} // namespace

int main() {
  const char *rowsEnv = std::getenv("VMPACK_BENCH_ROWS");
  const char *repsEnv = std::getenv("VMPACK_BENCH_REPS");
  const uint64_t rows = rowsEnv ? std::strtoull(rowsEnv, nullptr, 10) : 256;
  const int reps = repsEnv ? std::atoi(repsEnv) : 7;
  const uint64_t k = 4096;
  std::printf("# single core, [%llu, %llu]; GB/s of the block bytes; memcpy "
              "of the same bytes, same run; medians of %d\n",
              (unsigned long long)rows, (unsigned long long)k, reps);
  std::printf("%-22s %10s %8s %8s %6s\n", "kernel", "bytes", "GB/s", "memcpy",
              "ratio");
  std::mt19937 rng(1);
  for (uint32_t type : {kGgmlQ4_0, kGgmlQ8_0, kGgmlQ4_K}) {
    const uint64_t n = rows * k / ggmlBlockElements(type);
    std::vector<uint8_t> blocks(n * ggmlBlockBytes(type)), back(blocks.size());
    for (uint8_t &b : blocks)
      b = uint8_t(rng());
    std::vector<std::vector<uint8_t>> parts;
    std::vector<uint8_t *> out;
    std::vector<const uint8_t *> in;
    for (const PlanarPart &p : ggmlPlanarParts(type))
      parts.emplace_back(n * p.bytesPerBlock());
    for (auto &p : parts) {
      out.push_back(p.data());
      in.push_back(p.data());
    }
    std::vector<vmpack::DispatchLevel> levels = {vmpack::activeDispatchLevel()};
    if (type == kGgmlQ4_0)
      for (vmpack::DispatchLevel lower :
           {vmpack::DispatchLevel::SSE2, vmpack::DispatchLevel::Portable})
        if (lower < levels[0] && vmpack::isDispatchLevelSupported(lower))
          levels.push_back(lower);
    for (vmpack::DispatchLevel level : levels) {
      const std::string name = ggmlTypeTraits(type)->name,
                        at =
                            std::string(" ") + vmpack::dispatchLevelName(level);
      std::fill(back.begin(), back.end(), 0);
      row((name + "->planar" + at).c_str(), blocks.size(), reps, [&] {
        (void)ggmlToPlanarAt(level, type, blocks.data(), n, out.data());
      });
      row(("planar->" + name + at).c_str(), blocks.size(), reps, [&] {
        (void)planarToGgmlAt(level, type, in.data(), n, back.data());
      });
      if (back != blocks)
        std::printf("error: %s did not come back byte for byte\n",
                    (name + at).c_str());
    }
  }
  return 0;
}
