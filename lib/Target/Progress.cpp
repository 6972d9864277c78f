//===- Progress.cpp - A progress bar for long writes ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/Progress.h"

#include <cstdio>

using namespace mlir::vmpack_compiler;

ProgressBar::ProgressBar(uint64_t totalBytes, bool enabled)
    : total(totalBytes), enabled(enabled),
      start(std::chrono::steady_clock::now()) {
  if (!enabled)
    return;
  drawer = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, std::chrono::milliseconds(200),
                          [this] { return stopping; }))
      draw(/*final=*/false);
  });
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::finish() {
  if (!enabled)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  if (drawer.joinable())
    drawer.join();
  draw(/*final=*/true);
  enabled = false;
}

static void formatBytes(char *out, size_t size, double bytes) {
  const char *units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  std::snprintf(out, size, unit ? "%.2f %s" : "%.0f %s", bytes, units[unit]);
}

void ProgressBar::draw(bool final) {
  uint64_t now = done.load(std::memory_order_relaxed);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  double fraction = total ? double(now) / double(total) : 1.0;
  if (fraction > 1)
    fraction = 1;
  constexpr int kWidth = 30;
  char bar[kWidth + 1];
  int filled = int(fraction * kWidth);
  for (int i = 0; i < kWidth; ++i)
    bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = 0;
  char doneText[32], totalText[32], rateText[32];
  formatBytes(doneText, sizeof doneText, double(now));
  formatBytes(totalText, sizeof totalText, double(total));
  double rate = seconds > 0 ? double(now) / seconds : 0;
  formatBytes(rateText, sizeof rateText, rate);
  double left = rate > 0 ? double(total - std::min(now, total)) / rate : 0;
  std::fprintf(stderr, "\r[%s] %s / %s  %s/s  %.0fs left   %s", bar, doneText,
               totalText, rateText, left, final ? "\n" : "");
  std::fflush(stderr);
}
