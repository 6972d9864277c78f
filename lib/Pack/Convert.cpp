//===- Convert.cpp - Fast conversions between encodings -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Whole-byte widths are the same bytes in every encoding (a memcpy); W <= 64
// uses the per-width kernels of the active dispatch level (Dispatch.h);
// wider odd widths fall back to the reference. Conversions with no direct
// kernel go through `byte` in blocks that stay in L1.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include "Dispatch.h"

#include <algorithm>
#include <cstring>

using namespace vmpack;
using namespace vmpack::detail;

/// `in` (encoding `from`) to `out` (`byte`).
static void toByte(const KernelSet &k, Encoding from, const uint8_t *in,
                   uint8_t *out, uint64_t n) {
  switch (from) {
  case Encoding::Packed:
    return k.packedToByte(in, out, n);
  case Encoding::Word:
    return k.wordToByte(in, out, n);
  case Encoding::Byte:
    return k.normalizeByte(in, out, n);
  }
}

/// `in` (`byte`, already normalized or not) to `out` (encoding `to`).
static void fromByte(const KernelSet &k, Encoding to, const uint8_t *in,
                     uint8_t *out, uint64_t n) {
  switch (to) {
  case Encoding::Packed:
    return k.byteToPacked(in, out, n);
  case Encoding::Word:
    return k.byteToWord(in, out, n);
  case Encoding::Byte:
    return k.normalizeByte(in, out, n);
  }
}

/// The encoding with the same bytes as `encoding` whose kernels do the
/// least: `word` is `packed` when its words have no unused bits (W = 2, 4)
/// and `byte` when each word holds one element in whole bytes (W = 1).
static Encoding simplestAlike(Encoding encoding, uint32_t bitWidth) {
  if (encoding != Encoding::Word)
    return encoding;
  WordLayout layout = wordLayout(bitWidth);
  if (layout.elementsPerWord * bitWidth == layout.wordBits)
    return Encoding::Packed;
  if (layout.elementsPerWord == 1 &&
      layout.wordBits == 8 * ((bitWidth + 7) / 8))
    return Encoding::Byte;
  return encoding;
}

void vmpack::convert(Encoding from, Encoding to, uint32_t bitWidth,
                     const void *src, void *dst, uint64_t numElements) {
  if (numElements == 0)
    return;
  from = simplestAlike(from, bitWidth);
  to = simplestAlike(to, bitWidth);
  const auto *in = static_cast<const uint8_t *>(src);
  auto *out = static_cast<uint8_t *>(dst);
  if (bitWidth % 8 == 0) {
    std::memcpy(out, in, *encodedSize(Encoding::Byte, bitWidth, numElements));
    return;
  }
  if (from == Encoding::Packed && to == Encoding::Packed) {
    // Already the layout: copy, then clear the last byte's unused bits.
    uint64_t size = *encodedSize(Encoding::Packed, bitWidth, numElements);
    std::memcpy(out, in, size);
    if (unsigned used = (numElements * bitWidth) % 8)
      out[size - 1] &= uint8_t((1u << used) - 1);
    return;
  }
  if (bitWidth > 64)
    return reference::convert(from, to, bitWidth, src, dst, numElements);

  const KernelSet &k = kernelsFor(bitWidth);
  if (from == Encoding::Byte)
    return fromByte(k, to, in, out, numElements);
  if (to == Encoding::Byte)
    return toByte(k, from, in, out, numElements);

  if (from == Encoding::Word && to == Encoding::Packed && k.wordToPacked)
    return k.wordToPacked(in, out, numElements);
  if (from == Encoding::Packed && to == Encoding::Word && k.packedToWord)
    return k.packedToWord(in, out, numElements);

  // packed <-> word, or a re-normalization within one of them: through
  // `byte`, one granule-aligned block at a time.
  constexpr uint64_t kBlockBytes = 16384;
  uint64_t granule = elementGranule(bitWidth);
  uint64_t bytesPerElement = (bitWidth + 7) / 8;
  uint64_t block = kBlockBytes / bytesPerElement / granule * granule;
  alignas(64) uint8_t scratch[kBlockBytes];
  for (uint64_t first = 0; first < numElements; first += block) {
    uint64_t n = std::min(block, numElements - first);
    toByte(k, from, in + granuleByteOffset(from, bitWidth, first), scratch, n);
    fromByte(k, to, scratch, out + granuleByteOffset(to, bitWidth, first), n);
  }
}

uint64_t vmpack::readElement(Encoding encoding, uint32_t bitWidth,
                             const void *src, uint64_t index) {
  if (bitWidth > 64)
    return reference::readElement(encoding, bitWidth, src, index);
  uint64_t value;
  kernelsFor(bitWidth).readRange(encoding, static_cast<const uint8_t *>(src),
                                 index, 1, &value);
  return value;
}
