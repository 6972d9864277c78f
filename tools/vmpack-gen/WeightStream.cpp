//===- WeightStream.cpp - Deterministic synthetic weights -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "WeightStream.h"

#include <cassert>
#include <cstring>

using namespace vmpack::gen;

namespace {
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// splitmix64's output function: a bijection on 64 bits that mixes well
/// enough for synthetic weights and costs two multiplies.
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Words are produced a block at a time into a small array: the generating
/// loop is then a plain map over indices (vectorizable), separate from the
/// loops that lay the bits out.
constexpr uint64_t kBlockWords = 256;

inline void generateBlock(uint64_t key, uint64_t first, uint64_t count,
                          uint64_t *words) {
  for (uint64_t i = 0; i < count; ++i)
    words[i] = mix(key + (first + i + 1) * kGolden);
}

inline void storeLE64(uint8_t *out, uint64_t value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(out, &value, 8);
#else
  for (unsigned b = 0; b < 8; ++b)
    out[b] = static_cast<uint8_t>(value >> (8 * b));
#endif
}
} // namespace

WeightStream::WeightStream(uint64_t seed, uint64_t tensorIndex)
    : key(mix(mix(seed) ^ (tensorIndex * kGolden + 0x2545F4914F6CDD1Dull))) {}

uint64_t WeightStream::word(uint64_t index) const {
  return mix(key + (index + 1) * kGolden);
}

void WeightStream::fillInt4Packed(uint8_t *out, uint64_t numElements) const {
  // 16 elements per word; packed, a word is exactly 8 output bytes.
  const uint64_t fullWords = numElements / 16;
  uint64_t words[kBlockWords];
  for (uint64_t first = 0; first < fullWords; first += kBlockWords) {
    uint64_t count =
        fullWords - first < kBlockWords ? fullWords - first : kBlockWords;
    generateBlock(key, first, count, words);
    for (uint64_t i = 0; i < count; ++i)
      storeLE64(out + 8 * (first + i), words[i]);
  }
  uint64_t rest = numElements % 16;
  if (rest == 0)
    return;
  uint64_t last = word(fullWords);
  uint8_t *tail = out + 8 * fullWords;
  for (uint64_t byte = 0; byte < (rest + 1) / 2; ++byte)
    tail[byte] = static_cast<uint8_t>(last >> (8 * byte));
  if (rest % 2)
    tail[rest / 2] &= 0x0F;
}

void WeightStream::fillInt4Storage(uint8_t *out, uint64_t firstElement,
                                   uint64_t numElements) const {
  assert(firstElement % 16 == 0 && "a slice starts on a word boundary");
  const uint64_t firstWord = firstElement / 16;
  const uint64_t fullWords = numElements / 16;
  uint64_t words[kBlockWords];
  for (uint64_t first = 0; first < fullWords; first += kBlockWords) {
    uint64_t count =
        fullWords - first < kBlockWords ? fullWords - first : kBlockWords;
    generateBlock(key, firstWord + first, count, words);
    // Lay the block out packed, then split every byte into its two
    // nibbles: a byte-wise loop the compiler turns into vector shuffles.
    uint8_t packed[8 * kBlockWords];
    for (uint64_t i = 0; i < count; ++i)
      storeLE64(packed + 8 * i, words[i]);
    uint8_t *dst = out + 16 * first;
    for (uint64_t b = 0; b < 8 * count; ++b) {
      dst[2 * b] = packed[b] & 0x0F;
      dst[2 * b + 1] = packed[b] >> 4;
    }
  }
  uint64_t rest = numElements % 16;
  uint64_t last = rest ? word(firstWord + fullWords) : 0;
  for (uint64_t k = 0; k < rest; ++k)
    out[16 * fullWords + k] = static_cast<uint8_t>((last >> (4 * k)) & 0xF);
}

void WeightStream::fillF16(uint16_t *out, uint64_t numElements) const {
  // 0x3800 is 0.5; adding up to 0x7FF walks the mantissa and one exponent
  // step, so every value lies in [0.5, 2): finite, positive, never NaN.
  for (uint64_t k = 0; k < numElements; ++k) {
    uint64_t w = word(k / 4);
    out[k] = static_cast<uint16_t>(0x3800 + ((w >> (16 * (k % 4))) & 0x7FF));
  }
}
