//===- HfWriterBenchmark.cpp - planar sets to HF schemes vs memcpy --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-hfwriter-bench: single-core throughput of the Hugging Face scheme
// writers of vmpack/Formats/HfQuant.h (hfLinearAsScheme), what
// `vmpack-convert --quant=gptq|gptq_v2|awq|compressed-tensors|mlx` runs on
// a group planar set. One symmetric 4-bit linear [out, in] (NAME.q si4
// `packed`, NAME.d f16 scales, groups of 128) is opened from memory as a
// planar set; each target's tensors are produced in the writers' chunks
// (kProduceChunkBytes) into one reused buffer, next to a memcpy of the same
// output bytes in the same chunks, timed in the same run, repetitions
// interleaved, medians reported (each repetition the fastest of three).
//
// Environment: VMPACK_BENCH_DIM (default 4096: out = in), VMPACK_BENCH_REPS
// (5). Output: target, output bytes, GB/s of the output, memcpy GB/s, ratio,
// and seconds per 100 M parameters.
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Pack/ElementType.h"

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
using namespace vmpack::formats;

int main() {
  const char *dimEnv = std::getenv("VMPACK_BENCH_DIM");
  const char *repsEnv = std::getenv("VMPACK_BENCH_REPS");
  const int64_t n = dimEnv ? std::strtoll(dimEnv, nullptr, 10) : 4096;
  const int reps = repsEnv ? std::atoi(repsEnv) : 5;
  const int64_t out = n, in = n, group = 128;
  const std::string name = "model.layers.0.mlp.down_proj.weight";

  std::mt19937 rng(1);
  std::vector<uint8_t> codes(uint64_t(out * in / 2));
  for (uint8_t &b : codes)
    b = uint8_t(rng());
  std::vector<uint16_t> scales(uint64_t(out * (in / group)));
  for (uint16_t &s : scales)
    s = uint16_t(0x2000 + rng() % 0x1000); // positive, normal f16

  std::vector<TensorSource> tensors(2);
  tensors[0].info.name = name + ".q";
  tensors[0].info.elementType = *parseElementType("si4");
  tensors[0].info.shape = {out, in};
  tensors[0].info.encoding = Encoding::Packed;
  tensors[0].info.length = codes.size();
  tensors[0].data = codes.data();
  tensors[1].info.name = name + ".d";
  tensors[1].info.elementType = *parseElementType("f16");
  tensors[1].info.shape = {out, in / group};
  tensors[1].info.encoding = Encoding::Byte;
  tensors[1].info.length = scales.size() * 2;
  tensors[1].data = reinterpret_cast<const uint8_t *>(scales.data());
  StringMetadata metadata = {{planarRecordKey(name), kHfPlanarRecord}};
  auto model = openHfPlanarModel(std::move(tensors), metadata, "benchmark");
  if (!model || (*model)->linears.size() != 1) {
    std::fprintf(stderr, "vmpack-hfwriter-bench: %s\n",
                 model ? "expected one linear"
                       : model.status().message().c_str());
    return 1;
  }
  const HfQuantLinear &linear = (*model)->linears[0];

  std::printf("# single core, one 4-bit linear [%lld, %lld] from a planar "
              "set, groups of %lld; output produced in %llu-byte chunks; "
              "memcpy of the same bytes in the same chunks, same run; "
              "medians of %d\n",
              (long long)out, (long long)in, (long long)group,
              (unsigned long long)kProduceChunkBytes, reps);
  std::printf("%-20s %10s %8s %8s %6s %12s\n", "target", "out_bytes", "GB/s",
              "memcpy", "ratio", "s/100M");
  std::vector<uint8_t> chunk(kProduceChunkBytes);
  for (const char *target :
       {"gptq", "gptq_v2", "awq", "compressed-tensors", "mlx"}) {
    auto outputs = hfLinearAsScheme(linear, target);
    if (!outputs) {
      std::printf("%-20s refused: %s\n", target,
                  outputs.status().message().c_str());
      continue;
    }
    uint64_t total = 0;
    for (const TensorSource &t : *outputs)
      total += t.info.length;
    std::vector<uint8_t> from(total, 1);
    auto produceAll = [&] {
      for (const TensorSource &t : *outputs)
        for (uint64_t first = 0; first < t.info.length;
             first += kProduceChunkBytes) {
          const uint64_t len =
              std::min<uint64_t>(kProduceChunkBytes, t.info.length - first);
          if (t.produce)
            t.produce(first, len, chunk.data());
          else
            std::memcpy(chunk.data(), t.data + first, len);
        }
    };
    auto copyAll = [&] {
      for (uint64_t first = 0; first < total; first += kProduceChunkBytes)
        std::memcpy(chunk.data(), from.data() + first,
                    std::min<uint64_t>(kProduceChunkBytes, total - first));
    };
    std::vector<double> k, m;
    for (int r = 0; r < reps; ++r) {
      k.push_back(seconds(produceAll));
      m.push_back(seconds(copyAll));
    }
    const double ks = median(k), ms = median(m);
    std::printf("%-20s %10llu %8.2f %8.2f %6.3f %12.3f\n", target,
                (unsigned long long)total, double(total) / ks / 1e9,
                double(total) / ms / 1e9, ms / ks, ks * 1e8 / double(out * in));
  }
  return 0;
}
