//===- SampleTensors.h - Tensors with known contents for format tests -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Every sample tensor holds a pattern a reader in any language can
// recompute: scalar k of tensor number t is the W-bit value
// (k * 37 + t * 11) mod 2^W (0/1 for i1), stored in the `byte` encoding
// (each scalar zero-extended to whole little-endian bytes). The Python
// interop reader (test/Formats/read_safetensors.py) checks the same formula.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_UNITTESTS_FORMATS_SAMPLETENSORS_H
#define VMPACK_UNITTESTS_FORMATS_SAMPLETENSORS_H

#include "vmpack/Formats/Tensor.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace vmpack::formats::testing {

/// A tensor and the buffer its source bytes live in.
struct OwnedTensor {
  TensorSource source;
  std::shared_ptr<std::vector<uint8_t>> bytes;
};

/// The pattern value of scalar k of tensor t for W-bit scalars.
inline uint64_t patternValue(uint32_t bits, uint64_t k, uint64_t t) {
  uint64_t v = k * 37 + t * 11;
  if (bits == 1)
    return v & 1;
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}

/// A tensor named `name` of `type` and `shape` holding the pattern of
/// tensor number `t`, in the `byte` encoding.
OwnedTensor patternTensor(const std::string &name, const ElementType &type,
                          const std::vector<int64_t> &shape, uint64_t t);

/// The same, with random contents (only the low W bits of each scalar).
OwnedTensor randomTensor(const std::string &name, const ElementType &type,
                         const std::vector<int64_t> &shape,
                         std::mt19937_64 &rng);

/// Every element type the interop table names, plus types no foreign dtype
/// holds (sub-byte integers, f8E4M3, f8E3M4, ...), as MLIR spellings.
std::vector<std::string> sampleTypeNames();

/// One pattern tensor of every sample type, with odd shapes.
std::vector<OwnedTensor> sampleTensors();

/// Stored bytes of `info` in the file `data`, converted to `byte`.
std::vector<uint8_t> toByteEncoding(const TensorInfo &info,
                                    const uint8_t *data);

std::vector<TensorSource> sources(const std::vector<OwnedTensor> &tensors);

} // namespace vmpack::formats::testing

#endif // VMPACK_UNITTESTS_FORMATS_SAMPLETENSORS_H
