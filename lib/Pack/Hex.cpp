//===- Hex.cpp - Decoding hexadecimal text --------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Three kernels: plain C++ (a 256-entry table, no branch per digit), SSE2
// (16 digits to 8 bytes per step) and AVX2 (64 digits to 32 bytes per step).
// The vector kernels classify each character with unsigned range checks on
// `c - '0'` (digits) and `(c | 0x20) - 'a'` (letters; `| 0x20` folds only
// A-F onto a-f within that range), so any other byte fails the check; they
// finish the tail with the plain kernel.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Hex.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 1
#include <immintrin.h>
#endif

using namespace vmpack;

namespace {

/// Each byte's digit value, or 0xFF for a byte that is not a hex digit.
constexpr std::array<uint8_t, 256> kDigitValue = [] {
  std::array<uint8_t, 256> table{};
  for (unsigned c = 0; c < 256; ++c)
    table[c] = 0xFF;
  for (unsigned c = '0'; c <= '9'; ++c)
    table[c] = uint8_t(c - '0');
  for (unsigned c = 'a'; c <= 'f'; ++c) {
    table[c] = uint8_t(c - 'a' + 10);
    table[c - 'a' + 'A'] = uint8_t(c - 'a' + 10);
  }
  return table;
}();

bool decodePortable(const char *hex, uint8_t *out, uint64_t numBytes) {
  const auto *in = reinterpret_cast<const unsigned char *>(hex);
  uint8_t bad = 0;
  for (uint64_t i = 0; i < numBytes; ++i) {
    uint8_t high = kDigitValue[in[2 * i]];
    uint8_t low = kDigitValue[in[2 * i + 1]];
    bad |= high | low;
    out[i] = uint8_t(high << 4 | (low & 0xF));
  }
  // Only invalid digits have bit 7 set.
  return !(bad & 0x80);
}

uint64_t prefixPortable(const char *hex, uint8_t *out, uint64_t maxBytes) {
  const auto *in = reinterpret_cast<const unsigned char *>(hex);
  for (uint64_t i = 0; i < maxBytes; ++i) {
    uint8_t high = kDigitValue[in[2 * i]];
    uint8_t low = kDigitValue[in[2 * i + 1]];
    if ((high | low) & 0x80)
      return i;
    out[i] = uint8_t(high << 4 | low);
  }
  return maxBytes;
}

#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 1
/// Digit values of 16 characters, and in `valid` 0xFF where a character is
/// a hex digit.
__attribute__((target("sse2"))) inline __m128i digitsSSE2(__m128i chars,
                                                          __m128i &valid) {
  __m128i digit = _mm_sub_epi8(chars, _mm_set1_epi8('0'));
  __m128i isDigit =
      _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit);
  __m128i letter = _mm_sub_epi8(_mm_or_si128(chars, _mm_set1_epi8(0x20)),
                                _mm_set1_epi8('a'));
  __m128i isLetter =
      _mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(5)), letter);
  valid = _mm_or_si128(isDigit, isLetter);
  __m128i letterValue = _mm_add_epi8(letter, _mm_set1_epi8(10));
  return _mm_or_si128(_mm_and_si128(isDigit, digit),
                      _mm_andnot_si128(isDigit, letterValue));
}

/// Decodes blocks of 16 bytes, up to a block with an invalid digit when
/// `Prefix` (decodeHexPrefix) or to the end (decodeHex, then `ok` says
/// whether all were digits); returns the bytes the vector loop decoded.
template <bool Prefix>
__attribute__((target("sse2"))) uint64_t
blocksSSE2(const char *hex, uint8_t *out, uint64_t numBytes, bool &ok) {
  uint64_t i = 0;
  __m128i allValid = _mm_set1_epi8(-1);
  const __m128i lowByte = _mm_set1_epi16(0x00FF);
  for (; i + 16 <= numBytes; i += 16) {
    __m128i valid0, valid1;
    __m128i d0 = digitsSSE2(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(hex + 2 * i)),
        valid0);
    __m128i d1 = digitsSSE2(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(hex + 2 * i + 16)),
        valid1);
    if (Prefix) {
      if (_mm_movemask_epi8(_mm_and_si128(valid0, valid1)) != 0xFFFF)
        return i;
    } else {
      allValid = _mm_and_si128(allValid, _mm_and_si128(valid0, valid1));
    }
    // Each 16-bit lane holds (high digit, low digit) in memory order.
    __m128i b0 = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(d0, lowByte), 4),
                              _mm_srli_epi16(d0, 8));
    __m128i b1 = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(d1, lowByte), 4),
                              _mm_srli_epi16(d1, 8));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i),
                     _mm_packus_epi16(b0, b1));
  }
  ok = _mm_movemask_epi8(allValid) == 0xFFFF;
  return i;
}

__attribute__((target("sse2"))) bool decodeSSE2(const char *hex, uint8_t *out,
                                                uint64_t numBytes) {
  bool ok = true;
  uint64_t i = blocksSSE2<false>(hex, out, numBytes, ok);
  return decodePortable(hex + 2 * i, out + i, numBytes - i) && ok;
}

__attribute__((target("sse2"))) uint64_t prefixSSE2(const char *hex,
                                                    uint8_t *out,
                                                    uint64_t maxBytes) {
  bool ok = true;
  uint64_t i = blocksSSE2<true>(hex, out, maxBytes, ok);
  return i + prefixPortable(hex + 2 * i, out + i, maxBytes - i);
}
#endif

#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 3
__attribute__((target("avx2"))) inline __m256i digitsAVX2(__m256i chars,
                                                          __m256i &valid) {
  __m256i digit = _mm256_sub_epi8(chars, _mm256_set1_epi8('0'));
  __m256i isDigit =
      _mm256_cmpeq_epi8(_mm256_min_epu8(digit, _mm256_set1_epi8(9)), digit);
  __m256i letter = _mm256_sub_epi8(
      _mm256_or_si256(chars, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('a'));
  __m256i isLetter =
      _mm256_cmpeq_epi8(_mm256_min_epu8(letter, _mm256_set1_epi8(5)), letter);
  valid = _mm256_or_si256(isDigit, isLetter);
  return _mm256_blendv_epi8(_mm256_add_epi8(letter, _mm256_set1_epi8(10)),
                            digit, isDigit);
}

template <bool Prefix>
__attribute__((target("avx2"))) uint64_t
blocksAVX2(const char *hex, uint8_t *out, uint64_t numBytes, bool &ok) {
  uint64_t i = 0;
  __m256i allValid = _mm256_set1_epi8(-1);
  // (high, low) -> 16 * high + low, per 16-bit lane.
  const __m256i weights = _mm256_set1_epi16(0x0110);
  for (; i + 32 <= numBytes; i += 32) {
    __m256i valid0, valid1;
    __m256i d0 = digitsAVX2(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(hex + 2 * i)),
        valid0);
    __m256i d1 = digitsAVX2(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(hex + 2 * i + 32)),
        valid1);
    if (Prefix) {
      if (unsigned(_mm256_movemask_epi8(_mm256_and_si256(valid0, valid1))) !=
          0xFFFFFFFFu)
        return i;
    } else {
      allValid = _mm256_and_si256(allValid, _mm256_and_si256(valid0, valid1));
    }
    __m256i w0 = _mm256_maddubs_epi16(d0, weights);
    __m256i w1 = _mm256_maddubs_epi16(d1, weights);
    // packus works per 128-bit lane: put the quarters back in order.
    __m256i packed =
        _mm256_permute4x64_epi64(_mm256_packus_epi16(w0, w1), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), packed);
  }
  ok = unsigned(_mm256_movemask_epi8(allValid)) == 0xFFFFFFFFu;
  return i;
}

__attribute__((target("avx2"))) bool decodeAVX2(const char *hex, uint8_t *out,
                                                uint64_t numBytes) {
  bool ok = true;
  uint64_t i = blocksAVX2<false>(hex, out, numBytes, ok);
  return decodeSSE2(hex + 2 * i, out + i, numBytes - i) && ok;
}

__attribute__((target("avx2"))) uint64_t prefixAVX2(const char *hex,
                                                    uint8_t *out,
                                                    uint64_t maxBytes) {
  bool ok = true;
  uint64_t i = blocksAVX2<true>(hex, out, maxBytes, ok);
  return i + prefixSSE2(hex + 2 * i, out + i, maxBytes - i);
}
#endif

} // namespace

bool vmpack::reference::decodeHex(const char *hex, uint8_t *out,
                                  uint64_t numBytes) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  for (uint64_t i = 0; i < numBytes; ++i) {
    int high = value(hex[2 * i]), low = value(hex[2 * i + 1]);
    if (high < 0 || low < 0)
      return false;
    out[i] = uint8_t(high * 16 + low);
  }
  return true;
}

uint64_t vmpack::reference::decodeHexPrefix(const char *hex, uint8_t *out,
                                            uint64_t maxBytes) {
  for (uint64_t i = 0; i < maxBytes; ++i)
    if (!reference::decodeHex(hex + 2 * i, out + i, 1))
      return i;
  return maxBytes;
}

uint64_t vmpack::decodeHexPrefixAt(DispatchLevel level, const char *hex,
                                   uint8_t *out, uint64_t maxBytes) {
#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 3
  if (level >= DispatchLevel::AVX2)
    return prefixAVX2(hex, out, maxBytes);
#endif
#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 1
  if (level >= DispatchLevel::SSE2)
    return prefixSSE2(hex, out, maxBytes);
#endif
  (void)level;
  return prefixPortable(hex, out, maxBytes);
}

uint64_t vmpack::decodeHexPrefix(const char *hex, uint8_t *out,
                                 uint64_t maxBytes) {
  static const DispatchLevel level = activeDispatchLevel();
  return decodeHexPrefixAt(level, hex, out, maxBytes);
}

bool vmpack::decodeHexAt(DispatchLevel level, const char *hex, uint8_t *out,
                         uint64_t numBytes) {
#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 3
  if (level >= DispatchLevel::AVX2)
    return decodeAVX2(hex, out, numBytes);
#endif
#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 1
  if (level >= DispatchLevel::SSE2)
    return decodeSSE2(hex, out, numBytes);
#endif
  (void)level;
  return decodePortable(hex, out, numBytes);
}

bool vmpack::decodeHex(const char *hex, uint8_t *out, uint64_t numBytes) {
  static const DispatchLevel level = activeDispatchLevel();
  return decodeHexAt(level, hex, out, numBytes);
}

namespace {
/// The two digits of every byte value, in output order.
struct DigitPairs {
  char pairs[256][2];
  constexpr DigitPairs() : pairs() {
    const char *digits = "0123456789ABCDEF";
    for (unsigned b = 0; b < 256; ++b) {
      pairs[b][0] = digits[b >> 4];
      pairs[b][1] = digits[b & 15];
    }
  }
};
constexpr DigitPairs kDigitPairs;
} // namespace

void vmpack::encodeHex(const uint8_t *bytes, uint64_t numBytes, char *out) {
  for (uint64_t i = 0; i < numBytes; ++i)
    std::memcpy(out + 2 * i, kDigitPairs.pairs[bytes[i]], 2);
}
