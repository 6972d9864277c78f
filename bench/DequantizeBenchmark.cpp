//===- DequantizeBenchmark.cpp - Dequantization against memcpy and ggml ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-dequantize-bench: one core dequantizing Q4_0, Q8_0, Q4_K, Q6_K,
// MXFP4 and planar i4 (group 128, f16 scales) to f32 and f16, with the
// output in cache (1 MiB) and far beyond it (256 MiB of f32, "dram"). Each
// benchmark iteration runs, in turn, a memcpy of the output bytes, vmpack's
// kernel and ggml's own dequantize_row_* from libggml-base.so (to f16:
// dequantize_row_* into a 64 KiB float buffer, then ggml_fp32_to_fp16_row),
// on the same buffers, so the three see the same machine state. vmpack
// runs as a caller would (dequantizeGgmlRange / dequantizePlanarRange on
// one thread). Ordinary stores: non-temporal ones through a staging
// buffer measured slower here, against ggml and memcpy alike. The main
// time is vmpack's; the counters are
//   GBps        output bytes per second of vmpack's kernel (10^9 B/s)
//   memcpy_GBps the memcpy's, x_memcpy = GBps / memcpy_GBps
//   ggml_GBps   ggml's, x_ggml = GBps / ggml_GBps (0 where ggml has no
//               such decoder or the library is absent)
// The blocks are random codes with finite, normal scales (real weights'
// scales; random f16 bits would make subnormal products).
//
// Environment: VMPACK_GGML_BASE_LIB (default: <checkout>/third_party/npm/
// .../libggml-base.so), VMPACK_DISPATCH (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Dispatch.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;

namespace {

using Clock = std::chrono::steady_clock;
using DequantizeRow = void (*)(const void *, float *, int64_t);
using ToHalfRow = void (*)(const float *, uint16_t *, int64_t);

struct Ggml {
  void *handle = nullptr;
  ToHalfRow toHalf = nullptr;
  DequantizeRow row(const char *name) const {
    return handle
               ? reinterpret_cast<DequantizeRow>(::dlsym(
                     handle, (std::string("dequantize_row_") + name).c_str()))
               : nullptr;
  }
  static const Ggml &get() {
    static Ggml g = [] {
      Ggml g;
      const char *env = std::getenv("VMPACK_GGML_BASE_LIB");
      std::string path =
          env && *env ? env
                      : std::string(VMPACK_SOURCE_DIR) +
                            "/third_party/npm/node_modules/@node-llama-cpp/"
                            "linux-x64/bins/linux-x64/libggml-base.so";
      g.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (g.handle)
        g.toHalf = reinterpret_cast<ToHalfRow>(
            ::dlsym(g.handle, "ggml_fp32_to_fp16_row"));
      return g;
    }();
    return g;
  }
};

/// A scheme under test: a ggml type, or planar i4 (ggmlType 0).
struct Scheme {
  const char *name;
  uint32_t ggmlType;
  const char *ggmlRow; // dequantize_row_<ggmlRow>, or null
};
constexpr Scheme kSchemes[] = {
    {"Q4_0", kGgmlQ4_0, "q4_0"},    {"Q8_0", kGgmlQ8_0, "q8_0"},
    {"Q4_K", kGgmlQ4_K, "q4_K"},    {"Q6_K", kGgmlQ6_K, "q6_K"},
    {"MXFP4", kGgmlMXFP4, "mxfp4"}, {"planar_i4_g128", 0, nullptr},
};

uint16_t halfBits(float f) { return floatToHalf(f); }

/// Random blocks of `type` whose float scales are normal and small.
std::vector<uint8_t> sampleBlocks(uint32_t type, uint64_t blocks) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  std::vector<uint8_t> b(blocks * t->typeSize);
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < b.size(); i += 8) {
    uint64_t r = rng();
    std::memcpy(b.data() + i, &r, std::min<size_t>(8, b.size() - i));
  }
  std::uniform_real_distribution<float> scale(0.001f, 0.05f);
  auto putHalf = [&](uint8_t *p) {
    uint16_t h = halfBits(scale(rng));
    std::memcpy(p, &h, 2);
  };
  for (uint64_t k = 0; k < blocks; ++k) {
    uint8_t *p = b.data() + k * t->typeSize;
    switch (type) {
    case kGgmlQ4_0:
    case kGgmlQ8_0:
      putHalf(p);
      break;
    case kGgmlQ4_K:
      putHalf(p);
      putHalf(p + 2);
      break;
    case kGgmlQ6_K:
      putHalf(p + 208);
      break;
    case kGgmlMXFP4:
      p[0] = uint8_t(118 + rng() % 8);
      break;
    }
  }
  return b;
}

struct Buffers {
  std::vector<uint8_t> input, scales, out, copy;
  std::vector<float> ggmlTemp;
};

void run(benchmark::State &state, const Scheme &scheme, FloatType to,
         uint64_t elements) {
  Buffers buf;
  unsigned bytes = floatTypeBytes(to);
  uint64_t outBytes = elements * bytes;
  PlanarView planar;
  if (scheme.ggmlType) {
    buf.input = sampleBlocks(
        scheme.ggmlType, elements / ggmlTypeTraits(scheme.ggmlType)->blockSize);
  } else {
    buf.input.resize(elements / 2);
    std::mt19937_64 rng(7);
    for (auto &b : buf.input)
      b = uint8_t(rng());
    buf.scales.resize(elements / 128 * 2);
    std::uniform_real_distribution<float> scale(0.001f, 0.05f);
    for (size_t g = 0; g < elements / 128; ++g) {
      uint16_t h = halfBits(scale(rng));
      std::memcpy(&buf.scales[2 * g], &h, 2);
    }
    planar.codeBits = 4;
    planar.signedCodes = true;
    planar.codes = buf.input.data();
    planar.scales = buf.scales.data();
    planar.groupSize = 128;
  }
  buf.out.assign(outBytes, 1);
  buf.copy.assign(outBytes, 2);
  const Ggml &ggml = Ggml::get();
  DequantizeRow row = scheme.ggmlRow ? ggml.row(scheme.ggmlRow) : nullptr;
  if (to == FloatType::F16 && !ggml.toHalf)
    row = nullptr;
  constexpr uint64_t kTemp = 16384; // floats: 64 KiB, stays in L1/L2
  buf.ggmlTemp.resize(kTemp);
  uint64_t blockSize =
      scheme.ggmlType ? ggmlTypeTraits(scheme.ggmlType)->blockSize : 1;
  uint64_t blockBytes =
      scheme.ggmlType ? ggmlTypeTraits(scheme.ggmlType)->typeSize : 0;

  double kernelSeconds = 0, memcpySeconds = 0, ggmlSeconds = 0;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  for (auto _ : state) {
    Clock::time_point t0 = Clock::now();
    std::memcpy(buf.copy.data(), buf.out.data(), outBytes);
    benchmark::ClobberMemory();
    Clock::time_point t1 = Clock::now();
    if (scheme.ggmlType)
      dequantizeGgmlRange(scheme.ggmlType, buf.input.data(), 0, elements, to,
                          buf.out.data(), 1);
    else
      dequantizePlanarRange(planar, 0, elements, to, buf.out.data(), 1);
    benchmark::ClobberMemory();
    Clock::time_point t2 = Clock::now();
    if (row && to == FloatType::F32) {
      row(buf.input.data(), reinterpret_cast<float *>(buf.out.data()),
          int64_t(elements));
    } else if (row) {
      for (uint64_t e = 0; e < elements; e += kTemp) {
        uint64_t n = std::min(kTemp, elements - e);
        row(buf.input.data() + e / blockSize * blockBytes, buf.ggmlTemp.data(),
            int64_t(n));
        ggml.toHalf(buf.ggmlTemp.data(),
                    reinterpret_cast<uint16_t *>(buf.out.data()) + e,
                    int64_t(n));
      }
    }
    benchmark::ClobberMemory();
    Clock::time_point t3 = Clock::now();
    memcpySeconds += seconds(t0, t1);
    kernelSeconds += seconds(t1, t2);
    ggmlSeconds += seconds(t2, t3);
    state.SetIterationTime(seconds(t1, t2));
  }
  double n = double(state.iterations()) * double(outBytes) / 1e9;
  double gbps = n / kernelSeconds, memcpyGbps = n / memcpySeconds;
  state.counters["GBps"] = gbps;
  state.counters["memcpy_GBps"] = memcpyGbps;
  state.counters["x_memcpy"] = gbps / memcpyGbps;
  state.counters["ggml_GBps"] = row ? n / ggmlSeconds : 0;
  state.counters["x_ggml"] = row ? gbps / (n / ggmlSeconds) : 0;
  state.SetBytesProcessed(int64_t(state.iterations() * outBytes));
}

} // namespace

int main(int argc, char **argv) {
  benchmark::AddCustomContext("vmpack_dispatch",
                              dispatchLevelName(activeDispatchLevel()));
  benchmark::AddCustomContext(
      "ggml", Ggml::get().handle ? "libggml-base.so loaded"
                                 : "libggml-base.so absent: no x_ggml");
  for (const char *where : {"cache", "dram"})
    for (const Scheme &scheme : kSchemes)
      for (FloatType to : {FloatType::F32, FloatType::F16}) {
        // 256 KiB (in L2, with the memcpy's copy) or 256 MiB of f32
        // output (a multiple of every block).
        uint64_t elements = std::string(where) == "cache" ? (uint64_t(1) << 16)
                                                          : (uint64_t(1) << 26);
        std::string name =
            std::string(scheme.name) + "/" + floatTypeName(to) + "/" + where;
        benchmark::RegisterBenchmark(
            name.c_str(),
            [scheme, to, elements](benchmark::State &s) {
              run(s, scheme, to, elements);
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(std::string(where) == "cache" ? 0.2 : 1.0);
      }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
