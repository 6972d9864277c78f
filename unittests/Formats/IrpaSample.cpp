//===- IrpaSample.cpp - Parameter archives for tests ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "IrpaSample.h"

#include <thread>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;

namespace {

SampleParam data(std::string key, uint64_t length, uint32_t seed,
                 std::string metadata = {}) {
  SampleParam p;
  p.desc.key = std::move(key);
  p.desc.length = length;
  p.desc.metadata = std::move(metadata);
  p.seed = seed;
  return p;
}

SampleParam splat(std::string key, uint64_t length,
                  std::vector<uint8_t> pattern) {
  SampleParam p;
  p.desc.key = std::move(key);
  p.desc.isSplat = true;
  p.desc.length = length;
  std::copy(pattern.begin(), pattern.end(), p.desc.pattern.begin());
  p.desc.patternLength = uint8_t(pattern.size());
  return p;
}

} // namespace

std::vector<SampleParam> vmpack::formats::testing::sampleParams() {
  return {
      data("blk.0.attn_q.weight", 4097, 1),
      splat("blk.0.attn_norm.weight", 8192, {0x00, 0x3c}),
      data("one", 1, 2),
      data("three", 3, 3),
      data("empty", 0, 4),
      splat("splat8", 64, {0xAB}),
      splat("splat32", 4096, {0x00, 0x00, 0x80, 0x3f}),
      data("exact 64", 64, 5, "metadata: opaque bytes"),
      splat("splat64", 24, {1, 2, 3, 4, 5, 6, 7, 8}),
      data("sixty-five", 65, 6),
      splat("complex<f64>", 32,
            {0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0}),
      splat("empty splat", 0, {0x11, 0x22}),
      data("dir/big", 100000, 7),
  };
}

std::vector<SampleParam> vmpack::formats::testing::smallParams() {
  return {
      data("w", 5, 1),
      splat("s", 8, {0x00, 0x3c}),
      data("b", 3, 2),
  };
}

vmpack::archive::Status vmpack::formats::testing::writeSampleIrpa(
    const std::string &path, const std::vector<SampleParam> &params,
    unsigned threads, size_t chunk) {
  auto writer = IrpaWriter::create(path);
  if (!writer)
    return writer.status();
  for (const SampleParam &p : params) {
    const IrpaEntryDesc &d = p.desc;
    auto added =
        d.isSplat
            ? (*writer)->addSplatEntry(d.key, d.length, d.pattern.data(),
                                       d.patternLength, d.metadata)
            : (*writer)->addDataEntry(d.key, d.length, d.alignment, d.metadata);
    if (!added)
      return added.status();
  }
  if (Status st = (*writer)->beginData(); !st)
    return st;
  std::vector<Status> results(threads, Status::ok());
  auto work = [&](unsigned t) {
    std::vector<uint8_t> buf(chunk);
    for (size_t k = params.size(); k-- > 0;) {
      const SampleParam &p = params[k];
      if (p.desc.isSplat)
        continue;
      uint64_t chunks = (p.desc.length + chunk - 1) / chunk;
      for (uint64_t c = t; c < chunks; c += threads) {
        uint64_t start = c * chunk;
        size_t n = size_t(std::min<uint64_t>(chunk, p.desc.length - start));
        for (size_t j = 0; j < n; ++j)
          buf[j] = sampleByte(p.seed, start + j);
        if (Status st =
                (*writer)->writeEntryData(uint32_t(k), start, buf.data(), n);
            !st) {
          results[t] = st;
          return;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work, t);
  work(0);
  for (std::thread &th : pool)
    th.join();
  for (const Status &st : results)
    if (!st)
      return st;
  return (*writer)->finish();
}
