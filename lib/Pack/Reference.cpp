//===- Reference.cpp - The slow, obvious definition of every encoding -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Straight from docs/packing.md: an element is W bits; each encoding says at
// which bit of the output stream bit b of element k lands. Everything here
// moves one bit at a time. It is the oracle the fast kernels are tested
// against, and the fallback for widths above 64 that are not whole bytes.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include <cstring>

using namespace vmpack;

/// Stream bit at which element `index` starts in `encoding`.
static uint64_t elementBitOffset(Encoding encoding, uint32_t bitWidth,
                                 uint64_t index) {
  switch (encoding) {
  case Encoding::Packed:
    return index * bitWidth;
  case Encoding::Byte:
    return index * ((bitWidth + 7) / 8) * 8;
  case Encoding::Word: {
    WordLayout layout = wordLayout(bitWidth);
    return index / layout.elementsPerWord * layout.wordBits +
           index % layout.elementsPerWord * bitWidth;
  }
  }
  return 0;
}

/// Stream bit j is bit (j mod 8) of byte floor(j / 8).
static bool getBit(const uint8_t *bytes, uint64_t bit) {
  return (bytes[bit / 8] >> (bit % 8)) & 1;
}

static void setBit(uint8_t *bytes, uint64_t bit, bool value) {
  if (value)
    bytes[bit / 8] |= uint8_t(1u << (bit % 8));
}

void reference::convert(Encoding from, Encoding to, uint32_t bitWidth,
                        const void *src, void *dst, uint64_t numElements) {
  if (numElements == 0)
    return;
  const auto *in = static_cast<const uint8_t *>(src);
  auto *out = static_cast<uint8_t *>(dst);
  // Every bit not written below is zero: padding, unused word bits, the tail.
  std::memset(out, 0, *encodedSize(to, bitWidth, numElements));
  for (uint64_t k = 0; k < numElements; ++k) {
    uint64_t srcBit = elementBitOffset(from, bitWidth, k);
    uint64_t dstBit = elementBitOffset(to, bitWidth, k);
    for (uint32_t b = 0; b < bitWidth; ++b)
      setBit(out, dstBit + b, getBit(in, srcBit + b));
  }
}

uint64_t reference::readElement(Encoding encoding, uint32_t bitWidth,
                                const void *src, uint64_t index) {
  const auto *in = static_cast<const uint8_t *>(src);
  uint64_t first = elementBitOffset(encoding, bitWidth, index);
  uint64_t value = 0;
  for (uint32_t b = 0; b < bitWidth && b < 64; ++b)
    value |= uint64_t(getBit(in, first + b)) << b;
  return value;
}

void reference::unpackToInt(Encoding encoding, uint32_t bitWidth,
                            bool signExtend, const void *src, uint64_t first,
                            uint64_t count, void *dst, unsigned dstBytes) {
  auto *out = static_cast<uint8_t *>(dst);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t value = reference::readElement(encoding, bitWidth, src, first + i);
    bool negative = signExtend && ((value >> (bitWidth - 1)) & 1);
    for (unsigned byte = 0; byte < dstBytes; ++byte) {
      uint8_t b = 0;
      for (unsigned bit = 0; bit < 8; ++bit) {
        unsigned pos = byte * 8 + bit;
        bool set = pos < bitWidth ? ((value >> pos) & 1) : negative;
        b |= uint8_t(set) << bit;
      }
      out[i * dstBytes + byte] = b;
    }
  }
}

void reference::unpackToFloat32(Encoding encoding, ScalarKind kind,
                                const void *src, uint64_t first, uint64_t count,
                                float *dst) {
  std::optional<FloatFormat> format = floatFormat(kind);
  if (!format)
    return;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits =
        reference::readElement(encoding, impliedWidth(kind), src, first + i);
    if (kind == ScalarKind::F32) {
      uint32_t b = uint32_t(bits);
      std::memcpy(&dst[i], &b, 4);
    } else {
      dst[i] = decodeFloat(*format, uint32_t(bits));
    }
  }
}
