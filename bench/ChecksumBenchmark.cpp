//===- ChecksumBenchmark.cpp - CRC-32 implementations side by side --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every CRC-32 implementation compiled into the archive layer (zlib, ISA-L,
// libdeflate), on a buffer that stays in the cache (256 KiB) and on one the
// size of model weights (256 MiB, bound by memory bandwidth), against memcpy
// and a plain read of the same buffer. Bytes/s count input bytes; one core.
//
//   vmpack-checksum-bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Checksum.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace vmpack::archive;

namespace {

const std::vector<uint8_t> &randomBuffer(size_t size) {
  static std::vector<uint8_t> buffer;
  if (buffer.size() < size) {
    buffer.resize(size);
    std::mt19937_64 rng(1);
    for (size_t i = 0; i + 8 <= size; i += 8) {
      uint64_t v = rng();
      std::memcpy(buffer.data() + i, &v, 8);
    }
  }
  return buffer;
}

void crc32With(benchmark::State &state, Crc32Implementation impl) {
  size_t size = size_t(state.range(0));
  const uint8_t *data = randomBuffer(size).data();
  for (auto _ : state)
    benchmark::DoNotOptimize(crc32UpdateWith(impl, 0, data, size));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
}

void BM_Memcpy(benchmark::State &state) {
  size_t size = size_t(state.range(0));
  const uint8_t *data = randomBuffer(size).data();
  std::vector<uint8_t> out(size);
  for (auto _ : state) {
    std::memcpy(out.data(), data, size);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
}
BENCHMARK(BM_Memcpy)->Arg(256 << 10)->Arg(256 << 20)->Unit(
    benchmark::kMicrosecond);

/// The floor for anything that reads every byte: a 64-bit XOR over them.
void BM_ReadXor(benchmark::State &state) {
  size_t size = size_t(state.range(0));
  const uint8_t *data = randomBuffer(size).data();
  for (auto _ : state) {
    uint64_t acc = 0;
    for (size_t i = 0; i + 8 <= size; i += 8) {
      uint64_t v;
      std::memcpy(&v, data + i, 8);
      acc ^= v;
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
}
BENCHMARK(BM_ReadXor)
    ->Arg(256 << 10)
    ->Arg(256 << 20)
    ->Unit(benchmark::kMicrosecond);

int registerImplementations() {
  for (Crc32Implementation impl : availableCrc32Implementations()) {
    std::string name = std::string("BM_Crc32/") + crc32ImplementationName(impl);
    benchmark::RegisterBenchmark(name.c_str(), crc32With, impl)
        ->Arg(256 << 10)
        ->Arg(256 << 20)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}
const int registered = registerImplementations();

} // namespace

BENCHMARK_MAIN();
