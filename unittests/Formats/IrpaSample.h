//===- IrpaSample.h - Parameter archives for tests --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Entry lists with reproducible contents: byte j of a data entry with seed
// S is (S + 7 j) mod 256, which a test (or a Python one-liner) recomputes
// without vmpack. Written by IrpaWriter from several threads in an
// interleaved chunk order.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_UNITTESTS_FORMATS_IRPASAMPLE_H
#define VMPACK_UNITTESTS_FORMATS_IRPASAMPLE_H

#include "vmpack/Formats/IrpaWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::formats::testing {

struct SampleParam {
  IrpaEntryDesc desc;
  uint32_t seed = 0; // data entries
};

inline uint8_t sampleByte(uint32_t seed, uint64_t j) {
  return uint8_t(seed + 7 * j);
}

/// Data entries of lengths 0, 1, 3, 64, 65, 4097 and 100000, splats with
/// patterns of 1, 2, 4, 8 and 16 bytes (one of length 0), one entry with
/// metadata and keys with '.', '/' and a space.
std::vector<SampleParam> sampleParams();
/// Three entries: data, splat, data (the fuzz and damage tests' input).
std::vector<SampleParam> smallParams();

/// Writes `params` to `path` with `threads` threads writing `chunk`-byte
/// chunks, thread t taking chunks t, t + threads, ... of every entry from
/// last to first.
archive::Status writeSampleIrpa(const std::string &path,
                                const std::vector<SampleParam> &params,
                                unsigned threads = 1, size_t chunk = 4096);

} // namespace vmpack::formats::testing

#endif // VMPACK_UNITTESTS_FORMATS_IRPASAMPLE_H
