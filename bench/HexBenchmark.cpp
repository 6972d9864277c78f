//===- HexBenchmark.cpp - Hex decoding per dispatch level -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// decodeHex at every dispatch level this build and CPU run, and the
// one-byte-at-a-time reference, on text that stays in the cache (256 KiB of
// digits) and on text the size of a model layer's constants (256 MiB, bound
// by memory bandwidth). Bytes/s count input characters; one core.
//
//   vmpack-hex-bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Hex.h"

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

using namespace vmpack;

namespace {

const std::string &hexText(size_t size) {
  static std::string text;
  if (text.size() < size) {
    static const char digits[] = "0123456789ABCDEF";
    text.resize(size);
    std::mt19937_64 rng(1);
    for (size_t i = 0; i < size; ++i)
      text[i] = digits[rng() & 15];
  }
  return text;
}

void decodeWith(benchmark::State &state, int level) {
  size_t size = size_t(state.range(0));
  if (level >= 0 && !isDispatchLevelSupported(DispatchLevel(level))) {
    state.SkipWithError("level not supported on this build and CPU");
    return;
  }
  const char *text = hexText(size).data();
  std::vector<uint8_t> out(size / 2);
  for (auto _ : state) {
    bool ok = level < 0 ? reference::decodeHex(text, out.data(), size / 2)
                        : decodeHexAt(DispatchLevel(level), text, out.data(),
                                      size / 2);
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
}

/// decodeHexPrefix on digits followed by a quote: the text fast path's
/// one-pass decode of a literal whose end is not known.
void prefixWith(benchmark::State &state, int level) {
  size_t size = size_t(state.range(0));
  if (!isDispatchLevelSupported(DispatchLevel(level))) {
    state.SkipWithError("level not supported on this build and CPU");
    return;
  }
  std::string text = hexText(size).substr(0, size) + "\"";
  std::vector<uint8_t> out(size / 2 + 1);
  for (auto _ : state) {
    uint64_t n = decodeHexPrefixAt(DispatchLevel(level), text.data(),
                                   out.data(), (size + 1) / 2);
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
}

void registerAll() {
  benchmark::RegisterBenchmark("BM_HexReference", decodeWith, -1)
      ->Arg(256 << 10)
      ->Unit(benchmark::kMicrosecond);
  for (unsigned i = 0; i < kNumDispatchLevels; ++i) {
    std::string name =
        std::string("BM_Hex/") + dispatchLevelName(DispatchLevel(i));
    benchmark::RegisterBenchmark(name.c_str(), decodeWith, int(i))
        ->Arg(256 << 10)
        ->Arg(256 << 20)
        ->Unit(benchmark::kMicrosecond);
    name = std::string("BM_HexPrefix/") + dispatchLevelName(DispatchLevel(i));
    benchmark::RegisterBenchmark(name.c_str(), prefixWith, int(i))
        ->Arg(256 << 10)
        ->Arg(256 << 20)
        ->Unit(benchmark::kMicrosecond);
  }
}

} // namespace

int main(int argc, char **argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
