//===- WeightStream.h - Deterministic synthetic weights ----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// A counter-based pseudo-random stream: word i of a stream is the splitmix64
// finalizer applied to key + (i + 1) * golden-ratio. Words do not depend on
// each other, so the fill loops carry no state between iterations and the
// compiler vectorizes them, and any slice can be produced on its own.
//
// A tensor's int4 elements are the stream's nibbles in order: element k is
// nibble k % 16 (bits 4j..4j+3) of word k / 16. The same elements therefore
// come out of fillInt4Packed (vmpack's `packed` encoding) and
// fillInt4Storage (MLIR's one-byte-per-element storage), so a packed model
// and a dense model made from the same seed hold the same numbers.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACKGEN_WEIGHTSTREAM_H
#define VMPACK_TOOLS_VMPACKGEN_WEIGHTSTREAM_H

#include <cstdint>

namespace vmpack::gen {

class WeightStream {
public:
  /// The stream of tensor number `tensorIndex` in a model made from `seed`.
  WeightStream(uint64_t seed, uint64_t tensorIndex);

  /// Word `index` of the stream.
  uint64_t word(uint64_t index) const;

  /// Writes `numElements` int4 elements in `packed` encoding: two per byte,
  /// the even element in the low nibble; ceil(numElements / 2) bytes, the
  /// unused high nibble of an odd count zero.
  void fillInt4Packed(uint8_t *out, uint64_t numElements) const;

  /// Writes the same elements as MLIR stores them: one byte per element,
  /// value in the low nibble, high nibble zero.
  void fillInt4Storage(uint8_t *out, uint64_t numElements) const {
    fillInt4Storage(out, 0, numElements);
  }

  /// Writes elements `firstElement` .. `firstElement + numElements - 1` in
  /// the same layout (element `firstElement` to out[0]). `firstElement` must
  /// be a multiple of 16, the elements of one word.
  void fillInt4Storage(uint8_t *out, uint64_t firstElement,
                       uint64_t numElements) const;

  /// Writes `numElements` f16 bit patterns with values in [0.5, 2), as a
  /// normalization weight would hold.
  void fillF16(uint16_t *out, uint64_t numElements) const;

private:
  uint64_t key;
};

} // namespace vmpack::gen

#endif // VMPACK_TOOLS_VMPACKGEN_WEIGHTSTREAM_H
