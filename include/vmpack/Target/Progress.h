//===- Progress.h - A progress bar for long writes --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TARGET_PROGRESS_H
#define VMPACK_TARGET_PROGRESS_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace mlir::vmpack_compiler {

/// Counts bytes done from any thread; when enabled, a background thread
/// redraws one stderr line a few times a second: bar, bytes done of total,
/// rate and time left.
class ProgressBar {
public:
  ProgressBar(uint64_t totalBytes, bool enabled);
  ~ProgressBar();
  void add(uint64_t bytes) { done.fetch_add(bytes, std::memory_order_relaxed); }
  /// Draws the final state and ends the line.
  void finish();

private:
  void draw(bool final);

  uint64_t total;
  bool enabled;
  std::atomic<uint64_t> done{0};
  std::chrono::steady_clock::time_point start;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread drawer;
};

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_PROGRESS_H
