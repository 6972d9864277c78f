//===- Encoding.cpp - Sizes and granules of the three encodings -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/Encoding.h"

#include <cstring>
#include <numeric>

using namespace vmpack;

const char *vmpack::encodingName(Encoding encoding) {
  switch (encoding) {
  case Encoding::Packed:
    return "packed";
  case Encoding::Word:
    return "word";
  case Encoding::Byte:
    return "byte";
  }
  return "<invalid>";
}

std::optional<Encoding> vmpack::parseEncoding(std::string_view name) {
  if (name == "packed")
    return Encoding::Packed;
  if (name == "word")
    return Encoding::Word;
  if (name == "byte")
    return Encoding::Byte;
  return std::nullopt;
}

bool vmpack::isEncodable(Encoding encoding, uint32_t bitWidth) {
  if (bitWidth == 0)
    return false;
  if (encoding == Encoding::Word)
    return bitWidth <= 64 || bitWidth % 8 == 0;
  return true;
}

static uint32_t powerOf2Ceil(uint32_t v) {
  uint32_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

WordLayout vmpack::wordLayout(uint32_t bitWidth) {
  if (bitWidth % 8 == 0)
    return {bitWidth, 1};
  if (bitWidth == 1)
    return {8, 1};
  uint32_t wide = 2 * bitWidth < 64 ? 2 * bitWidth : 64;
  uint32_t wordBits = 8 * powerOf2Ceil((wide + 7) / 8);
  return {wordBits, wordBits / bitWidth};
}

/// a * b, or nullopt on overflow.
static std::optional<uint64_t> mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<uint64_t> vmpack::encodedSize(Encoding encoding,
                                            uint32_t bitWidth,
                                            uint64_t numElements) {
  if (!isEncodable(encoding, bitWidth))
    return std::nullopt;
  switch (encoding) {
  case Encoding::Packed: {
    // ceil(n*W/8) without forming n*W when it would overflow: split n.
    uint64_t whole = numElements / 8, rest = numElements % 8;
    auto bytes = mul(whole, bitWidth);
    if (!bytes)
      return std::nullopt;
    uint64_t tail = (rest * bitWidth + 7) / 8;
    if (*bytes > UINT64_MAX - tail)
      return std::nullopt;
    return *bytes + tail;
  }
  case Encoding::Byte:
    return mul(numElements, (bitWidth + 7) / 8);
  case Encoding::Word: {
    WordLayout layout = wordLayout(bitWidth);
    uint64_t words = numElements / layout.elementsPerWord +
                     (numElements % layout.elementsPerWord != 0);
    return mul(words, layout.wordBits / 8);
  }
  }
  return std::nullopt;
}

uint64_t vmpack::elementGranule(uint32_t bitWidth) {
  uint64_t packed = 8 / std::gcd(bitWidth, 8u);
  uint64_t word = isEncodable(Encoding::Word, bitWidth)
                      ? wordLayout(bitWidth).elementsPerWord
                      : 1;
  return std::lcm(packed, word);
}

uint64_t vmpack::granuleByteOffset(Encoding encoding, uint32_t bitWidth,
                                   uint64_t index) {
  switch (encoding) {
  case Encoding::Packed:
    return index / 8 * bitWidth + (index % 8) * bitWidth / 8;
  case Encoding::Byte:
    return index * ((bitWidth + 7) / 8);
  case Encoding::Word: {
    WordLayout layout = wordLayout(bitWidth);
    return index / layout.elementsPerWord * (layout.wordBits / 8);
  }
  }
  return 0;
}

Encoding vmpack::mlirStorageEncoding(uint32_t bitWidth, bool isComplex) {
  return bitWidth == 1 && !isComplex ? Encoding::Packed : Encoding::Byte;
}

uint64_t vmpack::mlirSplatStorageSize(uint32_t bitWidth, bool isComplex) {
  if (bitWidth == 1 && !isComplex)
    return 1;
  return uint64_t((bitWidth + 7) / 8) * (isComplex ? 2 : 1);
}

void vmpack::expandMlirSplat(const uint8_t *splat, uint32_t bitWidth,
                             bool isComplex, uint64_t firstScalar,
                             uint64_t count, uint8_t *out) {
  if (bitWidth == 1 && !isComplex) {
    // 0x00 or 0xFF: bit 0 is the value.
    std::memset(out, splat[0] & 1, count);
    return;
  }
  uint64_t stride = (bitWidth + 7) / 8;
  unsigned scalarsPerElement = isComplex ? 2 : 1;
  for (uint64_t i = 0; i < count; ++i)
    std::memcpy(out + i * stride,
                splat + ((firstScalar + i) % scalarsPerElement) * stride,
                stride);
}
