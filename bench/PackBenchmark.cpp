//===- PackBenchmark.cpp - Throughput of the packing kernels --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-pack-bench: one single-core table of every kernel direction and
// width, each next to a memcpy of its larger side (input or output bytes)
// timed in the same run, repetitions interleaved, medians reported (each
// repetition the fastest of three calls). The
// ratio kernel / memcpy is what bench/pack_ratios.py checks against the
// targets.
//
// Environment:
//   VMPACK_BENCH_ELEMENTS  elements per buffer; by default 2^24, fewer when
//                          the larger side would exceed 16 MiB (so both
//                          buffers stay in a 32 MiB last-level cache);
//                          134217728 measures DRAM
//   VMPACK_BENCH_REPS      repetitions per cell (default 7)
//   VMPACK_BENCH_WIDTHS    widths to run, e.g. "1-8" or "1-8,12,33" (default
//                          1-64)
//   VMPACK_DISPATCH        the kernels' dispatch level (Dispatch.h)
//
// Output: a header naming the dispatch level, then one line per cell:
//   direction W elements in_bytes out_bytes kernel_GBps memcpy_GBps ratio
// with GB/s counted on the larger side (10^9 bytes per second).
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Pack/Dispatch.h"

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
using namespace vmpack;

namespace {

uint64_t envNumber(const char *name, uint64_t fallback) {
  const char *env = std::getenv(name);
  return env && *env ? std::strtoull(env, nullptr, 10) : fallback;
}

std::vector<bool> selectedWidths() {
  std::vector<bool> on(65, false);
  const char *env = std::getenv("VMPACK_BENCH_WIDTHS");
  std::string spec = env && *env ? env : "1-64";
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos)
      end = spec.size();
    std::string item = spec.substr(pos, end - pos);
    size_t dash = item.find('-');
    unsigned lo = unsigned(std::atoi(item.c_str()));
    unsigned hi = dash == std::string::npos
                      ? lo
                      : unsigned(std::atoi(item.c_str() + dash + 1));
    for (unsigned w = lo; w <= hi && w <= 64; ++w)
      on[w] = true;
    pos = end + 1;
  }
  return on;
}

std::vector<uint8_t> randomBytes(size_t n) {
  std::vector<uint8_t> v(n);
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = rng();
    std::memcpy(v.data() + i, &r, std::min<size_t>(8, n - i));
  }
  return v;
}

/// One cell: `run` converts `elements` elements from `in` to `out`.
void measure(const char *direction, uint32_t w, uint64_t elements,
             size_t inBytes, size_t outBytes,
             const std::function<void(const uint8_t *, uint8_t *)> &run) {
  static const unsigned reps = unsigned(envNumber("VMPACK_BENCH_REPS", 7));
  size_t larger = std::max(inBytes, outBytes);
  std::vector<uint8_t> in = randomBytes(inBytes), out(outBytes);
  std::vector<uint8_t> copyIn = randomBytes(larger), copyOut(larger);
  auto kernel = [&] { run(in.data(), out.data()); };
  auto copy = [&] { std::memcpy(copyOut.data(), copyIn.data(), larger); };
  kernel(); // warm up: page faults, caches
  copy();
  std::vector<double> kernelTimes, copyTimes;
  for (unsigned r = 0; r < reps; ++r) {
    copyTimes.push_back(seconds(copy));
    kernelTimes.push_back(seconds(kernel));
  }
  double kernelRate = double(larger) / median(kernelTimes) / 1e9;
  double copyRate = double(larger) / median(copyTimes) / 1e9;
  std::printf("%-26s %2u %10llu %11zu %11zu %8.2f %8.2f %6.2f\n", direction, w,
              (unsigned long long)elements, inBytes, outBytes, kernelRate,
              copyRate, kernelRate / copyRate);
  std::fflush(stdout);
}

/// Elements for a cell whose larger side takes `bytesPerElement` bytes per
/// element.
uint64_t elementsFor(double bytesPerElement) {
  static const uint64_t fixed = envNumber("VMPACK_BENCH_ELEMENTS", 0);
  if (fixed)
    return fixed;
  uint64_t inCache = uint64_t(double(16u << 20) / bytesPerElement);
  return std::min<uint64_t>(uint64_t(1) << 24, inCache) / 64 * 64;
}

size_t sizeOf(Encoding e, uint32_t w, uint64_t n) {
  return size_t(*encodedSize(e, w, n));
}

void convertCell(const char *direction, Encoding from, Encoding to,
                 uint32_t w) {
  if (!isEncodable(from, w) || !isEncodable(to, w))
    return;
  double perElement =
      std::max(double(sizeOf(from, w, 1024)), double(sizeOf(to, w, 1024))) /
      1024;
  uint64_t n = elementsFor(perElement);
  measure(direction, w, n, sizeOf(from, w, n), sizeOf(to, w, n),
          [&](const uint8_t *in, uint8_t *out) {
            convert(from, to, w, in, out, n);
          });
}

void unpackCell(const char *direction, uint32_t w, bool signExtend,
                unsigned dstBytes) {
  uint64_t n = elementsFor(dstBytes);
  measure(direction, w, n, sizeOf(Encoding::Packed, w, n), n * dstBytes,
          [&](const uint8_t *in, uint8_t *out) {
            unpackToInt(Encoding::Packed, w, signExtend, in, 0, n, out,
                        dstBytes);
          });
}

} // namespace

int main() {
  std::printf("# vmpack-pack-bench: dispatch level %s (best on this CPU: %s)\n",
              dispatchLevelName(activeDispatchLevel()),
              dispatchLevelName(bestDispatchLevel()));
  std::printf(
      "# GB/s of the larger side; memcpy of the same bytes, same run; "
      "medians of %llu interleaved repetitions (each the best of 3 calls)\n",
      (unsigned long long)envNumber("VMPACK_BENCH_REPS", 7));
  std::printf("# %-24s %2s %10s %11s %11s %8s %8s %6s\n", "direction", "W",
              "elements", "in_bytes", "out_bytes", "GB/s", "memcpy", "ratio");
  std::vector<bool> widths = selectedWidths();
  for (uint32_t w = 1; w <= 64; ++w) {
    if (!widths[w])
      continue;
    // MLIR storage is `byte`, or the bitmask (`packed`) for i1.
    Encoding mlir = mlirStorageEncoding(w);
    convertCell("mlir->packed", mlir, Encoding::Packed, w);
    convertCell("packed->mlir", Encoding::Packed, mlir, w);
    convertCell("mlir->word", mlir, Encoding::Word, w);
    convertCell("word->packed", Encoding::Word, Encoding::Packed, w);
    convertCell("packed->word", Encoding::Packed, Encoding::Word, w);
    if (w <= 8) {
      unpackCell("packed->int8", w, true, 1);
      unpackCell("packed->uint8", w, false, 1);
    }
    if (w <= 16) {
      unpackCell("packed->int16", w, true, 2);
      unpackCell("packed->uint16", w, false, 2);
    }
  }
  // Floats: `packed` source, float32 output.
  for (unsigned k = 0; k < 64; ++k) {
    auto kind = ScalarKind(k);
    std::optional<FloatFormat> format = floatFormat(kind);
    uint32_t w = impliedWidth(kind);
    if (!format || w > 16 || !widths[w])
      continue;
    std::string name = "packed->f32:" + toString(ScalarType::floatKind(kind));
    uint64_t n = elementsFor(4);
    measure(name.c_str(), w, n, sizeOf(Encoding::Packed, w, n), n * 4,
            [&](const uint8_t *in, uint8_t *out) {
              unpackToFloat32(Encoding::Packed, kind, in, 0, n,
                              reinterpret_cast<float *>(out));
            });
  }
  return 0;
}
