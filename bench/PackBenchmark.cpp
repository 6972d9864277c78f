//===- PackBenchmark.cpp - Throughput of the packing kernels --------------===//
//
// Each benchmark reports the bytes of its *input* per second, next to a
// memcpy of the same input bytes measured in the same run (BM_Memcpy with
// the same size argument), so that ratios are side by side.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace vmpack;

namespace {

/// Elements per buffer: VMPACK_BENCH_ELEMENTS, default 2^24 (16 MiB of
/// MLIR storage for widths up to 8, which stays in a large last-level cache;
/// 2^27 measures DRAM).
uint64_t elementCount() {
  static const uint64_t count = [] {
    const char *env = std::getenv("VMPACK_BENCH_ELEMENTS");
    return env ? std::strtoull(env, nullptr, 10) : uint64_t(1) << 24;
  }();
  return count;
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

/// memcpy of the bytes a conversion from `from` reads for W-bit elements.
/// `from` = Byte stands for MLIR's in-memory storage (a bitmask for i1).
Encoding actualSource(Encoding from, uint32_t w) {
  return from == Encoding::Byte ? mlirStorageEncoding(w) : from;
}

void BM_Memcpy(benchmark::State &state, Encoding from) {
  uint32_t w = uint32_t(state.range(0));
  from = actualSource(from, w);
  size_t bytes = *encodedSize(from, w, elementCount());
  std::vector<uint8_t> src = randomBytes(bytes), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}

void BM_Convert(benchmark::State &state, Encoding from, Encoding to) {
  uint32_t w = uint32_t(state.range(0));
  from = actualSource(from, w);
  size_t inBytes = *encodedSize(from, w, elementCount());
  std::vector<uint8_t> src = randomBytes(inBytes);
  std::vector<uint8_t> dst(*encodedSize(to, w, elementCount()));
  for (auto _ : state) {
    convert(from, to, w, src.data(), dst.data(), elementCount());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * inBytes));
}

/// Bytes of *output* per second, the figure the runtime target is set in.
void BM_UnpackToInt8(benchmark::State &state, Encoding from) {
  uint32_t w = uint32_t(state.range(0));
  std::vector<uint8_t> src = randomBytes(*encodedSize(from, w, elementCount()));
  std::vector<int8_t> dst(elementCount());
  for (auto _ : state) {
    unpackToInt(from, w, true, src.data(), 0, elementCount(), dst.data(), 1);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * elementCount()));
}

void widths(benchmark::internal::Benchmark *b) {
  for (int w : {1, 2, 3, 4, 5, 6, 7, 12, 17, 33, 63})
    b->Arg(w);
  b->Unit(benchmark::kMillisecond);
}

void smallWidths(benchmark::internal::Benchmark *b) {
  for (int w : {1, 2, 3, 4, 5, 6, 7})
    b->Arg(w);
  b->Unit(benchmark::kMillisecond);
}

} // namespace

// MLIR storage (`byte`, or the bitmask for i1) is what the compiler reads.
BENCHMARK_CAPTURE(BM_Memcpy, mlir_input, Encoding::Byte)->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, mlir_to_packed, Encoding::Byte, Encoding::Packed)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, mlir_to_word, Encoding::Byte, Encoding::Word)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Memcpy, packed_input, Encoding::Packed)->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, packed_to_byte, Encoding::Packed, Encoding::Byte)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, packed_to_word, Encoding::Packed, Encoding::Word)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_UnpackToInt8, packed, Encoding::Packed)
    ->Apply(smallWidths);

BENCHMARK_MAIN();
