//===- Parallel.cpp - Element ranges split over threads -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Quant/Parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

using namespace vmpack;

namespace {
std::atomic<uint64_t> threadsStarted{0};
} // namespace

unsigned vmpack::quant::piecesFor(unsigned threads, uint64_t count,
                                  uint64_t minPerPiece) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::max<uint64_t>(
      1,
      std::min<uint64_t>(threads, count / std::max<uint64_t>(1, minPerPiece))));
}

void vmpack::quant::splitRange(
    unsigned pieces, uint64_t first, uint64_t count, uint64_t unit,
    const std::function<void(uint64_t, uint64_t)> &work) {
  if (pieces <= 1) {
    work(first, first + count);
    return;
  }
  unit = std::max<uint64_t>(unit, 1);
  uint64_t end = first + count;
  std::vector<uint64_t> bounds = {first};
  for (unsigned t = 1; t < pieces; ++t) {
    uint64_t b = (first + count / pieces * t) / unit * unit;
    bounds.push_back(std::clamp(b, bounds.back(), end));
  }
  bounds.push_back(end);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < pieces; ++t) {
    pool.emplace_back(work, bounds[t], bounds[t + 1]);
    threadsStarted.fetch_add(1, std::memory_order_relaxed);
  }
  work(bounds[0], bounds[1]);
  for (std::thread &t : pool)
    t.join();
}

uint64_t vmpack::quant::splitRangeThreadsStarted() {
  return threadsStarted.load(std::memory_order_relaxed);
}
