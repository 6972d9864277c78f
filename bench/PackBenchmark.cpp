//===- PackBenchmark.cpp - Throughput of the packing kernels ---------------===//
//
// Each benchmark reports the bytes of its *input* per second, next to a
// memcpy of the same input bytes measured in the same run (BM_Memcpy with
// the same size argument), so that ratios are side by side.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

using namespace vmpack;

namespace {

constexpr uint64_t kElements = uint64_t(1) << 24;

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
void BM_Memcpy(benchmark::State &state, Encoding from) {
  uint32_t w = uint32_t(state.range(0));
  size_t bytes = *encodedSize(from, w, kElements);
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
  size_t inBytes = *encodedSize(from, w, kElements);
  std::vector<uint8_t> src = randomBytes(inBytes);
  std::vector<uint8_t> dst(*encodedSize(to, w, kElements));
  for (auto _ : state) {
    convert(from, to, w, src.data(), dst.data(), kElements);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * inBytes));
}

/// Bytes of *output* per second, the figure the runtime target is set in.
void BM_UnpackToInt8(benchmark::State &state, Encoding from) {
  uint32_t w = uint32_t(state.range(0));
  std::vector<uint8_t> src = randomBytes(*encodedSize(from, w, kElements));
  std::vector<int8_t> dst(kElements);
  for (auto _ : state) {
    unpackToInt(from, w, true, src.data(), 0, kElements, dst.data(), 1);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * kElements));
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
BENCHMARK_CAPTURE(BM_Convert, byte_to_packed, Encoding::Byte,
                  Encoding::Packed)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, byte_to_word, Encoding::Byte, Encoding::Word)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Memcpy, packed_input, Encoding::Packed)->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, packed_to_byte, Encoding::Packed,
                  Encoding::Byte)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_Convert, packed_to_word, Encoding::Packed,
                  Encoding::Word)
    ->Apply(widths);
BENCHMARK_CAPTURE(BM_UnpackToInt8, packed, Encoding::Packed)
    ->Apply(smallWidths);

BENCHMARK_MAIN();
