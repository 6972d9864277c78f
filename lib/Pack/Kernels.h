//===- Kernels.h - Per-width conversion kernels (internal) ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kernels<W> holds the portable loops for one element width W (1 ... 64). W
// is a template parameter so that masks, strides and word geometry are
// constants and the compiler can unroll and vectorize each loop. Widths that
// divide 8 get hand-shaped loops (the hot int4/int2/int1 cases); the rest
// use 64-bit accumulators. Common holds the loops that do not depend on W.
//
// Each dispatch level compiles this file in its own translation unit, with
// its own target options, inside its own namespace (VMPACK_KERNEL_NS): no
// function compiled for one instruction set can be merged by the linker
// into another level's code. The x86 levels then replace some of these
// loops with vector code (X86Kernels.h); the rest are the same source
// compiled for the wider instruction set.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_KERNEL_NS
#error "define VMPACK_KERNEL_NS (one namespace per dispatch level) first"
#endif

#include "Dispatch.h"

#include "vmpack/Pack/Encoding.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "vmpack's kernels assume a little-endian host");

namespace vmpack::detail::VMPACK_KERNEL_NS {

/// The unsigned integer of N bytes, for N in {1, 2, 4, 8}.
template <unsigned N>
using UIntOfSize = std::conditional_t<
    N == 1, uint8_t,
    std::conditional_t<N == 2, uint16_t,
                       std::conditional_t<N == 4, uint32_t, uint64_t>>>;

/// Little-endian loads and stores of N <= 8 bytes. Odd sizes are composed
/// of power-of-two accesses: going through a stack temporary would stall on
/// store-to-load forwarding.

template <unsigned N> inline uint64_t loadLE(const uint8_t *p) {
  static_assert(N >= 1 && N <= 8, "1 to 8 bytes");
  if constexpr (N == 1 || N == 2 || N == 4 || N == 8) {
    UIntOfSize<N> v;
    std::memcpy(&v, p, N);
    return v;
  } else if constexpr (N == 3) {
    return loadLE<2>(p) | loadLE<1>(p + 2) << 16;
  } else if constexpr (N == 5) {
    return loadLE<4>(p) | loadLE<1>(p + 4) << 32;
  } else if constexpr (N == 6) {
    return loadLE<4>(p) | loadLE<2>(p + 4) << 32;
  } else {
    // Bytes 3 ... 6 overlap the first load's byte 3 with the same value.
    return loadLE<4>(p) | loadLE<4>(p + 3) << 24;
  }
}

template <unsigned N> inline void storeLE(uint8_t *p, uint64_t v) {
  static_assert(N >= 1 && N <= 8, "1 to 8 bytes");
  if constexpr (N == 1 || N == 2 || N == 4 || N == 8) {
    auto narrow = UIntOfSize<N>(v);
    std::memcpy(p, &narrow, N);
  } else if constexpr (N == 3) {
    storeLE<2>(p, v);
    storeLE<1>(p + 2, v >> 16);
  } else if constexpr (N == 5) {
    storeLE<4>(p, v);
    storeLE<1>(p + 4, v >> 32);
  } else if constexpr (N == 6) {
    storeLE<4>(p, v);
    storeLE<2>(p + 4, v >> 32);
  } else {
    storeLE<4>(p, v);
    storeLE<4>(p + 3, v >> 24);
  }
}

inline uint64_t loadPartialLE(const uint8_t *p, unsigned n) {
  uint64_t v = 0;
  std::memcpy(&v, p, n);
  return v;
}

constexpr uint32_t wordBitsFor(uint32_t w) {
  if (w % 8 == 0)
    return w;
  if (w == 1)
    return 8;
  uint32_t wide = 2 * w < 64 ? 2 * w : 64;
  uint32_t bytes = (wide + 7) / 8, p = 1;
  while (p < bytes)
    p <<= 1;
  return 8 * p;
}

/// Appends W-bit values to a little-endian bit stream, 64 bits at a time.
template <uint32_t W> struct BitWriter {
  uint8_t *out;
  uint64_t acc = 0;
  unsigned used = 0;

  explicit BitWriter(uint8_t *out) : out(out) {}
  void put(uint64_t value) {
    acc |= value << used;
    used += W;
    if (used >= 64) {
      storeLE<8>(out, acc);
      out += 8;
      used -= 64;
      acc = used ? value >> (W - used) : 0;
    }
  }
  /// Writes the partial last word: exactly the bytes that hold bits.
  void flush() { std::memcpy(out, &acc, (used + 7) / 8); }
};

template <uint32_t W> struct Kernels {
  /// Whether wordToPacked and packedToWord exist. Here only for the wide
  /// widths (8 < W < 64, not whole bytes): the used bits of a `word` are
  /// the next kPerWord * W bits of the `packed` stream, so each word is one
  /// bit-field move. Narrower widths go through bytes, or through the vector
  /// levels' own loops.
  static constexpr bool kHasDirectWord = W > 8 && W < 64 && W % 8 != 0;
  /// Whether packedToInt exists (not here: through 64-bit values).
  static constexpr bool kHasPackedToInt = false;
  static constexpr uint32_t kBytes = (W + 7) / 8; ///< `byte` stride
  static constexpr uint64_t kMask =
      W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
  static constexpr uint32_t kWordBits = wordBitsFor(W);
  static constexpr uint32_t kWordBytes = kWordBits / 8;
  static constexpr uint32_t kPerWord = W == 1 ? 1 : kWordBits / W;

  static uint64_t loadByteElement(const uint8_t *in, uint64_t k) {
    return loadLE<kBytes>(in + k * kBytes) & kMask;
  }

  /// Element k of a packed stream of `srcBytes` bytes, never reading past it.
  static uint64_t loadPackedElement(const uint8_t *in, uint64_t srcBytes,
                                    uint64_t k) {
    uint64_t bit = k * W, byte = bit / 8;
    unsigned shift = bit % 8;
    uint64_t v = byte + 8 <= srcBytes
                     ? loadLE<8>(in + byte)
                     : loadPartialLE(in + byte, unsigned(srcBytes - byte));
    v >>= shift;
    if constexpr (W > 56) {
      // The element spills into a ninth byte; it exists because the
      // element's last bit is in it.
      if (shift + W > 64)
        v |= uint64_t(in[byte + 8]) << (64 - shift);
    }
    return v & kMask;
  }

  /// The Bits-bit field at bit offset `bit` of a packed stream, where the
  /// 8-byte load at bit / 8 (and the ninth byte, when the field straddles
  /// it) is known to be inside the input.
  template <uint32_t Bits>
  static uint64_t loadFieldInside(const uint8_t *in, uint64_t bit) {
    uint64_t v = loadLE<8>(in + bit / 8) >> (bit % 8);
    if constexpr (Bits > 56)
      if (bit % 8 + Bits > 64)
        v |= uint64_t(in[bit / 8 + 8]) << (64 - bit % 8);
    if constexpr (Bits == 64)
      return v;
    else
      return v & ((uint64_t(1) << Bits) - 1);
  }

  static uint64_t loadWordElement(const uint8_t *in, uint64_t k) {
    uint64_t word = loadLE<kWordBytes>(in + k / kPerWord * kWordBytes);
    return (word >> (k % kPerWord * W)) & kMask;
  }

  static void byteToPacked(const uint8_t *in, uint8_t *out, uint64_t n) {
    uint64_t done = 0;
    if constexpr (W == 4) {
      uint64_t pairs = n / 2;
      for (uint64_t i = 0; i < pairs; ++i)
        out[i] = uint8_t((in[2 * i] & 0xF) | (in[2 * i + 1] << 4));
      done = pairs * 2;
    } else if constexpr (W == 2) {
      uint64_t quads = n / 4;
      for (uint64_t i = 0; i < quads; ++i)
        out[i] = uint8_t((in[4 * i] & 3) | (in[4 * i + 1] & 3) << 2 |
                         (in[4 * i + 2] & 3) << 4 | in[4 * i + 3] << 6);
      done = quads * 4;
    } else if constexpr (W == 1) {
      // Gathers bit 0 of eight bytes into one byte with a multiply: the
      // partial products land on distinct bits, so nothing carries.
      uint64_t octets = n / 8;
      for (uint64_t i = 0; i < octets; ++i) {
        uint64_t x = loadLE<8>(in + 8 * i) & 0x0101010101010101ull;
        out[i] = uint8_t((x * 0x0102040810204080ull) >> 56);
      }
      done = octets * 8;
    } else if constexpr (W < 8) {
      // Eight one-byte elements become exactly W bytes.
      uint64_t octets = n / 8;
      for (uint64_t i = 0; i < octets; ++i) {
        uint64_t x = loadLE<8>(in + 8 * i), acc = 0;
        for (unsigned j = 0; j < 8; ++j)
          acc |= ((x >> (8 * j)) & kMask) << (j * W);
        storeLE<W>(out + i * W, acc);
      }
      done = octets * 8;
    }
    BitWriter<W> writer(out + done * W / 8);
    for (uint64_t k = done; k < n; ++k)
      writer.put(loadByteElement(in, k));
    writer.flush();
  }

  static void packedToByte(const uint8_t *in, uint8_t *out, uint64_t n) {
    uint64_t done = 0;
    if constexpr (W == 4) {
      uint64_t pairs = n / 2;
      for (uint64_t i = 0; i < pairs; ++i) {
        uint8_t b = in[i];
        out[2 * i] = b & 0xF;
        out[2 * i + 1] = b >> 4;
      }
      done = pairs * 2;
    } else if constexpr (W == 2) {
      // One byte holds four elements; spread them to the four bytes of a
      // 32-bit word.
      uint64_t quads = n / 4;
      for (uint64_t i = 0; i < quads; ++i) {
        uint32_t x = in[i];
        storeLE<4>(out + 4 * i, (x | x << 6 | x << 12 | x << 18) & 0x03030303u);
      }
      done = quads * 4;
    } else if constexpr (W == 1) {
      // Bit j of the input byte to byte j: replicate the byte, keep bit j in
      // byte j, then turn "nonzero" into 1 without carries between bytes.
      uint64_t octets = n / 8;
      for (uint64_t i = 0; i < octets; ++i) {
        uint64_t spread =
            (in[i] * 0x0101010101010101ull) & 0x8040201008040201ull;
        storeLE<8>(out + 8 * i, ((spread + 0x7F7F7F7F7F7F7F7Full) >> 7) &
                                    0x0101010101010101ull);
      }
      done = octets * 8;
    } else if constexpr (W < 8) {
      // W bytes hold exactly eight elements.
      uint64_t octets = n / 8;
      for (uint64_t i = 0; i < octets; ++i) {
        uint64_t x = loadLE<W>(in + i * W), bytes = 0;
        for (unsigned j = 0; j < 8; ++j)
          bytes |= ((x >> (j * W)) & kMask) << (8 * j);
        storeLE<8>(out + 8 * i, bytes);
      }
      done = octets * 8;
    }
    uint64_t srcBytes = (n * W + 7) / 8;
    // Elements whose 8-byte load stays inside the input need no check.
    uint64_t unchecked = srcBytes >= 9 ? ((srcBytes - 9) * 8) / W : 0;
    uint64_t k = done;
    for (; k < unchecked; ++k)
      storeLE<kBytes>(out + k * kBytes, loadFieldInside<W>(in, k * W));
    for (; k < n; ++k)
      storeLE<kBytes>(out + k * kBytes, loadPackedElement(in, srcBytes, k));
  }

  /// `packed` to one byte per element, sign-extended (W <= 8).
  static void packedToInt8(const uint8_t *in, uint8_t *out, uint64_t n) {
    static_assert(W <= 8, "one byte per element");
    packedToByte(in, out, n);
    if constexpr (W < 8)
      for (uint64_t k = 0; k < n; ++k)
        out[k] = uint8_t(int8_t(uint8_t(out[k] << (8 - W))) >> (8 - W));
  }

  static void byteToWord(const uint8_t *in, uint8_t *out, uint64_t n) {
    uint64_t words = n / kPerWord;
    uint64_t w = 0;
    if constexpr (kBytes != 1 && kBytes != 2 && kBytes != 4 && kBytes != 8) {
      // Odd strides: one 8-byte load per element while it stays inside the
      // input, instead of the two narrower loads loadLE<kBytes> needs.
      uint64_t inBytes = n * kBytes;
      for (; w < words && (w + 1) * kPerWord * kBytes + 8 - kBytes <= inBytes;
           ++w) {
        uint64_t acc = 0;
        for (unsigned j = 0; j < kPerWord; ++j)
          acc |= (loadLE<8>(in + (w * kPerWord + j) * kBytes) & kMask)
                 << (j * W);
        storeLE<kWordBytes>(out + w * kWordBytes, acc);
      }
    }
    for (; w < words; ++w) {
      uint64_t acc = 0;
      for (unsigned j = 0; j < kPerWord; ++j)
        acc |= loadByteElement(in, w * kPerWord + j) << (j * W);
      storeLE<kWordBytes>(out + w * kWordBytes, acc);
    }
    if (uint64_t rest = n % kPerWord) {
      uint64_t acc = 0;
      for (unsigned j = 0; j < rest; ++j)
        acc |= loadByteElement(in, words * kPerWord + j) << (j * W);
      storeLE<kWordBytes>(out + words * kWordBytes, acc);
    }
  }

  static void wordToByte(const uint8_t *in, uint8_t *out, uint64_t n) {
    for (uint64_t k = 0; k < n; ++k)
      storeLE<kBytes>(out + k * kBytes, loadWordElement(in, k));
  }

  /// `packed` -> `word` for the wide widths: one field of kPerWord * W bits
  /// per word, read with one 8-byte load (plus a ninth byte when the field
  /// straddles it) while that stays inside the input.
  static void packedToWord(const uint8_t *in, uint8_t *out, uint64_t n) {
    static_assert(kHasDirectWord, "wide widths only");
    constexpr uint32_t kField = kPerWord * W;
    uint64_t srcBytes = (n * W + 7) / 8;
    uint64_t words = n / kPerWord;
    uint64_t unchecked = srcBytes >= 9 ? ((srcBytes - 9) * 8) / kField : 0;
    uint64_t w = 0;
    for (uint64_t end = std::min(words, unchecked); w < end; ++w)
      storeLE<kWordBytes>(out + w * kWordBytes,
                          loadFieldInside<kField>(in, w * kField));
    // The last words, the partial one included, element by element.
    for (uint64_t k = w * kPerWord; k < n; k += kPerWord, ++w) {
      uint64_t acc = 0;
      for (unsigned j = 0; j < kPerWord && k + j < n; ++j)
        acc |= loadPackedElement(in, srcBytes, k + j) << (j * W);
      storeLE<kWordBytes>(out + w * kWordBytes, acc);
    }
  }

  /// `word` -> `packed` for the wide widths: each word's used bits appended
  /// to the stream as one field; a partial last word adds only its elements.
  static void wordToPacked(const uint8_t *in, uint8_t *out, uint64_t n) {
    static_assert(kHasDirectWord, "wide widths only");
    constexpr uint32_t kField = kPerWord * W;
    constexpr uint64_t kFieldMask =
        kField == 64 ? ~uint64_t(0) : (uint64_t(1) << kField) - 1;
    uint64_t acc = 0;
    unsigned used = 0;
    auto put = [&](uint64_t value, unsigned bits) {
      acc |= value << used;
      if (used + bits >= 64) {
        storeLE<8>(out, acc);
        out += 8;
        unsigned spill = used + bits - 64;
        acc = spill ? value >> (bits - spill) : 0;
        used = spill;
      } else {
        used += bits;
      }
    };
    uint64_t words = n / kPerWord;
    for (uint64_t w = 0; w < words; ++w)
      put(loadLE<kWordBytes>(in + w * kWordBytes) & kFieldMask, kField);
    if (unsigned rest = unsigned(n % kPerWord))
      put(loadLE<kWordBytes>(in + words * kWordBytes) &
              ((uint64_t(1) << (rest * W)) - 1),
          rest * W);
    std::memcpy(out, &acc, (used + 7) / 8);
  }

  static void normalizeByte(const uint8_t *in, uint8_t *out, uint64_t n) {
    for (uint64_t k = 0; k < n; ++k)
      storeLE<kBytes>(out + k * kBytes, loadByteElement(in, k));
  }

  /// Elements [first, first + n) as unsigned values. For `packed`, `in`
  /// must hold the bytes up to the last of those elements and no more is
  /// read.
  static void readRange(Encoding encoding, const uint8_t *in, uint64_t first,
                        uint64_t n, uint64_t *out) {
    switch (encoding) {
    case Encoding::Packed: {
      uint64_t srcBytes = ((first + n) * W + 7) / 8;
      uint64_t unchecked = srcBytes >= 9 ? ((srcBytes - 9) * 8) / W : 0;
      uint64_t i = 0;
      if constexpr (W < 8) {
        // Up to a multiple of eight one by one, then eight per W bytes.
        for (; (first + i) % 8 != 0 && i < n; ++i)
          out[i] = loadPackedElement(in, srcBytes, first + i);
        for (; i + 8 <= n; i += 8) {
          uint64_t x = loadLE<W>(in + (first + i) / 8 * W);
          for (unsigned j = 0; j < 8; ++j)
            out[i + j] = (x >> (j * W)) & kMask;
        }
      }
      for (; first + i < unchecked && i < n; ++i)
        out[i] = loadFieldInside<W>(in, (first + i) * W);
      for (; i < n; ++i)
        out[i] = loadPackedElement(in, srcBytes, first + i);
      return;
    }
    case Encoding::Byte:
      for (uint64_t i = 0; i < n; ++i)
        out[i] = loadByteElement(in, first + i);
      return;
    case Encoding::Word:
      for (uint64_t i = 0; i < n; ++i)
        out[i] = loadWordElement(in, first + i);
      return;
    }
  }
};

/// The loops that do not depend on W.
struct Common {
  static constexpr void (*kHalfToFloat)(const uint8_t *, float *,
                                        uint64_t) = nullptr;
  static void signExtend8To16(const uint8_t *in, uint8_t *out, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i)
      storeLE<2>(out + 2 * i, uint16_t(int16_t(int8_t(in[i]))));
  }
  static void zeroExtend8To16(const uint8_t *in, uint8_t *out, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i)
      storeLE<2>(out + 2 * i, in[i]);
  }
  static void lookupFloat(const uint8_t *in, const float *table, unsigned,
                          float *out, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i)
      out[i] = table[in[i]];
  }
  static void bf16ToFloat(const uint8_t *in, float *out, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t bits = uint32_t(loadLE<2>(in + 2 * i)) << 16;
      std::memcpy(&out[i], &bits, 4);
    }
  }
};

/// The KernelSet of K = SomeKernels<W>.
template <uint32_t W, typename K> constexpr KernelSet kernelSetOf() {
  KernelSet set{&K::byteToPacked, &K::packedToByte,  &K::byteToWord,
                &K::wordToByte,   &K::normalizeByte, &K::readRange,
                nullptr,          nullptr,           nullptr,
                nullptr};
  if constexpr (W <= 8)
    set.packedToInt8 = &K::packedToInt8;
  if constexpr (K::kHasPackedToInt)
    set.packedToInt = &K::packedToInt;
  if constexpr (K::kHasDirectWord) {
    set.wordToPacked = &K::wordToPacked;
    set.packedToWord = &K::packedToWord;
  }
  return set;
}

/// A level's table from its per-width kernels K<W> and its common loops C.
template <template <uint32_t> class K, typename C, size_t... Ws>
constexpr LevelKernels makeLevelKernels(std::index_sequence<Ws...>) {
  return {{KernelSet{}, kernelSetOf<Ws + 1, K<Ws + 1>>()...},
          &C::signExtend8To16,
          &C::zeroExtend8To16,
          &C::lookupFloat,
          &C::bf16ToFloat,
          C::kHalfToFloat};
}
template <template <uint32_t> class K, typename C>
constexpr LevelKernels makeLevelKernels() {
  return makeLevelKernels<K, C>(std::make_index_sequence<64>());
}

} // namespace vmpack::detail::VMPACK_KERNEL_NS
