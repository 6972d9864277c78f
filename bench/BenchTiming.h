//===- BenchTiming.h - The timing the kernel benchmarks share ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The pack, Hugging Face repack, planar repack and writer benchmarks time a
// kernel and a memcpy of the same bytes in the same round, each as the
// fastest of three back-to-back calls, and report the median of the rounds.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_BENCH_BENCHTIMING_H
#define VMPACK_BENCH_BENCHTIMING_H

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace vmpack::bench {

/// The fastest of three back-to-back calls of `f`, in seconds: on a shared
/// machine a single call is often descheduled part-way.
inline double seconds(const std::function<void()> &f) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    best = std::min(best, d.count());
  }
  return best;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace vmpack::bench

#endif // VMPACK_BENCH_BENCHTIMING_H
