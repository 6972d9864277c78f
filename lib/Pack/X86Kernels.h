//===- X86Kernels.h - Vector kernels for the x86 levels (internal) -*- C++ -*-//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Included after Kernels.h by the translation unit of one x86 dispatch
// level, with VMPACK_X86_LEVEL set to that level's number (1 = SSE2,
// 2 = SSE4.1, 3 = AVX2, 4 = AVX-512) and the matching target options in
// force. X86Kernels<W> replaces the loops that have a vector form for W < 8
// and inherits the portable ones for the rest; each vector loop is written
// once, for every W, with the geometry computed from W at compile time.
//
// Packed W-bit elements are eight to every W bytes, so every loop works on
// groups of eight elements:
//  - packed -> byte: each output byte j takes the two input bytes that hold
//    bits [jW, jW + W) (pshufb) and shifts them right by jW mod 8 (a 16-bit
//    multiply by 2^(8 - jW mod 8) keeps the wanted bits in the high byte).
//    AVX-512 VBMI does the same with vpermb (the eight input bytes of each
//    group into one 64-bit lane) and vpmultishiftqb (eight bit fields at
//    offsets 0, W, 2W, ... of that lane).
//  - byte -> packed: merge neighbours in ever wider lanes (8 -> 16 -> 32 ->
//    64 bits, each step a shift or multiply-add), so that each 64-bit lane
//    holds its eight elements in its low W bytes, then gather those bytes
//    (pshufb, or vpermb across the whole register).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_X86_LEVEL
#error "define VMPACK_X86_LEVEL before including X86Kernels.h"
#endif

namespace vmpack::detail::VMPACK_KERNEL_NS {

/// Where the elements of `packed` (IsWord false) or `word` (IsWord true)
/// lie: groups of kE elements in kP-bit units. `packed` is units of eight
/// elements in W bytes.
template <uint32_t W, bool IsWord> struct Layout {
  static constexpr uint32_t kP = IsWord ? wordBitsFor(W) : 8 * W;
  static constexpr uint32_t kE = IsWord ? (W == 1 ? 1 : kP / W) : 8;
  static constexpr uint64_t bitOf(uint64_t j) {
    return j / kE * kP + j % kE * W;
  }
  /// Bytes holding n elements from the start of a unit.
  static constexpr uint64_t bytesOf(uint64_t n) {
    uint64_t rest = n % kE ? (IsWord ? kP : n % kE * W) : 0;
    return (n / kE * kP + rest + 7) / 8;
  }
};

/// Byte-shuffle controls and shift multipliers for 16 elements in one
/// 16-byte lane; `fits` says whether they take at most 16 whole-unit bytes.
template <uint32_t W, bool IsWord> struct LaneTables {
  using L = Layout<W, IsWord>;
  static constexpr unsigned kInBytes = unsigned(L::bytesOf(16));
  static constexpr bool fits = 16 % L::kE == 0 && kInBytes <= 16;
  uint8_t evenSources[16]; ///< word i <- bytes of output byte 2i
  uint8_t oddSources[16];  ///< word i <- bytes of output byte 2i + 1
  uint16_t evenMul[8];
  uint16_t oddMul[8];
  uint8_t compact[16]; ///< low W bytes of each 64-bit half, side by side

  constexpr LaneTables()
      : evenSources(), oddSources(), evenMul(), oddMul(), compact() {
    for (unsigned i = 0; i < 8; ++i) {
      for (unsigned odd = 0; odd < 2; ++odd) {
        unsigned j = 2 * i + odd, bit = unsigned(L::bitOf(j)), byte = bit / 8;
        uint8_t *src = odd ? oddSources : evenSources;
        src[2 * i] = uint8_t(byte);
        // pshufb writes zero for an index with its top bit set.
        src[2 * i + 1] = byte + 1 < kInBytes ? uint8_t(byte + 1) : 0x80;
        (odd ? oddMul : evenMul)[i] = uint16_t(1u << (8 - bit % 8));
      }
    }
    for (unsigned i = 0; i < 16; ++i)
      compact[i] = i < W ? uint8_t(i) : i < 2 * W ? uint8_t(8 + i - W) : 0x80;
  }
};

#if VMPACK_X86_LEVEL >= 1
/// 128-bit SSE vectors: one lane.
struct V128 {
  using T = __m128i;
  static constexpr unsigned kLanes = 1;
  /// 16 bytes from each lane's address (`p`, `p + stride`, ...).
  static T loadLanes(const uint8_t *p, unsigned) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  }
  static T load(const uint8_t *p) { return loadLanes(p, 0); }
  static void storeLanes(uint8_t *p, T v, unsigned) {
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), v);
  }
  static void store(uint8_t *p, T v) { storeLanes(p, v, 0); }
  template <typename E> static T lane(const E *values) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(values));
  }
  static T set8(uint8_t x) { return _mm_set1_epi8(char(x)); }
  static T set16(uint16_t x) { return _mm_set1_epi16(short(x)); }
  static T set32(uint32_t x) { return _mm_set1_epi32(int(x)); }
  static T set64(uint64_t x) { return _mm_set1_epi64x((long long)x); }
  static T andv(T a, T b) { return _mm_and_si128(a, b); }
  static T orv(T a, T b) { return _mm_or_si128(a, b); }
  static T xorv(T a, T b) { return _mm_xor_si128(a, b); }
  static T sub8(T a, T b) { return _mm_sub_epi8(a, b); }
  static T mullo16(T a, T b) { return _mm_mullo_epi16(a, b); }
  static T madd16(T a, T b) { return _mm_madd_epi16(a, b); }
  template <int N> static T srli16(T a) { return _mm_srli_epi16(a, N); }
  template <int N> static T srli64(T a) { return _mm_srli_epi64(a, N); }
#if VMPACK_X86_LEVEL >= 2
  static T shuffle8(T a, T idx) { return _mm_shuffle_epi8(a, idx); }
#endif
};
#endif

#if VMPACK_X86_LEVEL >= 3
/// 256-bit AVX2 vectors: two lanes, each shuffled on its own.
struct V256 {
  using T = __m256i;
  static constexpr unsigned kLanes = 2;
  static T loadLanes(const uint8_t *p, unsigned stride) {
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(p))),
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + stride)), 1);
  }
  static T load(const uint8_t *p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  }
  /// Lane 0 first, so that lane 1 overwrites lane 0's bytes past `stride`.
  static void storeLanes(uint8_t *p, T v, unsigned stride) {
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm256_castsi256_si128(v));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p + stride),
                     _mm256_extracti128_si256(v, 1));
  }
  static void store(uint8_t *p, T v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v);
  }
  template <typename E> static T lane(const E *values) {
    return _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(values)));
  }
  static T set8(uint8_t x) { return _mm256_set1_epi8(char(x)); }
  static T set16(uint16_t x) { return _mm256_set1_epi16(short(x)); }
  static T set32(uint32_t x) { return _mm256_set1_epi32(int(x)); }
  static T set64(uint64_t x) { return _mm256_set1_epi64x((long long)x); }
  static T andv(T a, T b) { return _mm256_and_si256(a, b); }
  static T orv(T a, T b) { return _mm256_or_si256(a, b); }
  static T xorv(T a, T b) { return _mm256_xor_si256(a, b); }
  static T sub8(T a, T b) { return _mm256_sub_epi8(a, b); }
  static T mullo16(T a, T b) { return _mm256_mullo_epi16(a, b); }
  static T madd16(T a, T b) { return _mm256_madd_epi16(a, b); }
  template <int N> static T srli16(T a) { return _mm256_srli_epi16(a, N); }
  template <int N> static T srli64(T a) { return _mm256_srli_epi64(a, N); }
  static T shuffle8(T a, T idx) { return _mm256_shuffle_epi8(a, idx); }
};
#endif

/// Merges the (masked) one-byte elements of each 64-bit lane of `v` into
/// the lane's low W bytes: 8 -> 16 -> 32 -> 64-bit neighbours.
template <typename V, uint32_t W> typename V::T mergeToQwords(typename V::T v) {
  using T = typename V::T;
  T t = V::orv(V::andv(v, V::set16(0x00FF)),
               V::template srli16<8 - W>(V::andv(v, V::set16(0xFF00))));
  t = V::madd16(t, V::set32(1u | (1u << (2 * W)) << 16));
  return V::orv(V::andv(t, V::set64(0xFFFFFFFFu)),
                V::template srli64<32 - 4 * W>(
                    V::andv(t, V::set64(0xFFFFFFFF00000000u))));
}

/// byte -> packed for the first elements of `n` that whole vectors cover,
/// never touching a byte past either buffer; returns how many (a multiple
/// of 8).
template <typename V, uint32_t W>
uint64_t packBulk(const uint8_t *in, uint8_t *out, uint64_t n) {
  constexpr unsigned kIn = 16 * V::kLanes, kOut = 2 * W * V::kLanes;
  uint64_t outBytes = (n * W + 7) / 8, done = 0;
  const typename V::T mask = V::set8(uint8_t((1u << W) - 1));
#if VMPACK_X86_LEVEL >= 2
  static constexpr LaneTables<W, false> kTables;
  const typename V::T compact = V::lane(kTables.compact);
  // The last lane stores 16 bytes, of which 2W are output.
  for (; done + kIn <= n && done / 8 * W + kOut - 2 * W + 16 <= outBytes;
       done += kIn) {
    typename V::T t = mergeToQwords<V, W>(V::andv(V::load(in + done), mask));
    V::storeLanes(out + done / 8 * W, V::shuffle8(t, compact), 2 * W);
  }
#else
  // SSE2 has no byte shuffle: write the two 64-bit lanes' low W bytes.
  for (; done + kIn <= n; done += kIn) {
    __m128i t = mergeToQwords<V, W>(V::andv(V::load(in + done), mask));
    uint8_t *o = out + done / 8 * W;
    storeLE<W>(o, uint64_t(_mm_cvtsi128_si64(t)));
    storeLE<W>(o + W, uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(t, t))));
  }
#endif
  return done;
}

#if VMPACK_X86_LEVEL >= 2
/// `packed` or `word` -> byte (zero- or sign-extended) for the first
/// elements of `n` that whole vectors cover without reading past the input;
/// returns how many (a multiple of 16).
template <typename V, uint32_t W, bool IsWord, bool Signed>
uint64_t unpackBulk(const uint8_t *in, uint8_t *out, uint64_t n) {
  using T = typename V::T;
  using Tables = LaneTables<W, IsWord>;
  static_assert(Tables::fits, "16 elements take at most 16 bytes");
  static constexpr Tables kTables;
  constexpr unsigned kLaneIn = Tables::kInBytes;
  constexpr unsigned kOut = 16 * V::kLanes, kIn = kLaneIn * V::kLanes;
  uint64_t inBytes = Layout<W, IsWord>::bytesOf(n), done = 0, at = 0;
  const T even = V::lane(kTables.evenSources),
          odd = V::lane(kTables.oddSources);
  const T evenMul = V::lane(kTables.evenMul), oddMul = V::lane(kTables.oddMul);
  const T mask = V::set8(uint8_t((1u << W) - 1));
  const T sign = V::set8(uint8_t(1u << (W - 1)));
  const T highBytes = V::set16(0xFF00);
  // The last lane loads 16 bytes, of which kLaneIn are input.
  for (; done + kOut <= n && at + kIn - kLaneIn + 16 <= inBytes;
       done += kOut, at += kIn) {
    T x = V::loadLanes(in + at, kLaneIn);
    T lo = V::template srli16<8>(V::mullo16(V::shuffle8(x, even), evenMul));
    T hi = V::andv(V::mullo16(V::shuffle8(x, odd), oddMul), highBytes);
    T v = V::andv(V::orv(lo, hi), mask);
    if constexpr (Signed)
      v = V::sub8(V::xorv(v, sign), sign);
    V::store(out + done, v);
  }
  return done;
}

/// byte -> `word` for words of two elements (W = 3, 6, 7): neighbouring
/// bytes merge in 16-bit lanes, which are the words (P = 16) or are
/// narrowed to bytes (P = 8). Returns how many elements it did.
template <typename V, uint32_t W>
uint64_t packPairsBulk(const uint8_t *in, uint8_t *out, uint64_t n) {
  using T = typename V::T;
  constexpr uint32_t kP = wordBitsFor(W);
  static_assert(kP / W == 2, "two elements per word");
  constexpr unsigned kIn = 16 * V::kLanes;
  constexpr unsigned kLaneOut = kP == 8 ? 8 : 16;
  uint64_t outBytes = (n + 1) / 2 * (kP / 8), done = 0, at = 0;
  const T mask = V::set8(uint8_t((1u << W) - 1));
  alignas(16) static constexpr uint8_t kEvenBytes[16] = {
      0,    2,    4,    6,    8,    10,   12,   14,
      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
  const T narrow = V::lane(kEvenBytes);
  for (; done + kIn <= n && at + kLaneOut * (V::kLanes - 1) + 16 <= outBytes;
       done += kIn, at += kLaneOut * V::kLanes) {
    T v = V::andv(V::load(in + done), mask);
    T t = V::orv(V::andv(v, V::set16(0x00FF)),
                 V::template srli16<8 - W>(V::andv(v, V::set16(0xFF00))));
    if constexpr (kP == 8)
      V::storeLanes(out + at, V::shuffle8(t, narrow), kLaneOut);
    else
      V::store(out + at, t);
  }
  return done;
}
#endif

#if VMPACK_X86_LEVEL >= 4
/// AVX-512 VBMI: up to 64 elements per step and a masked last step, so the
/// whole range is done here.
template <uint32_t W> struct Zmm {
  static __m512i bytes(const uint8_t (&values)[64]) {
    return _mm512_loadu_si512(values);
  }
  static __mmask64 firstBytes(uint64_t n) {
    return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
  }

  /// Tables for reading a layout: each 64-bit lane q gathers the eight
  /// bytes from the one holding element 8q's first bit, and byte j of the
  /// lane is shifted out from element 8q + j's bit offset in them.
  template <bool IsWord> struct ReadTables {
    using L = Layout<W, IsWord>;
    /// Elements per step: whole units, at most 64.
    static constexpr unsigned kStep =
        L::kE == 3 ? 48 : 64; // E is 1, 2, 3 or 8 for W < 8
    static constexpr unsigned kStepBytes = unsigned(L::bytesOf(kStep));
    uint8_t gather[64];
    uint8_t shifts[64];
    bool fits = true; ///< every element lies in its lane's eight bytes
    constexpr ReadTables() : gather(), shifts() {
      for (unsigned k = 0; k < 64; ++k) {
        unsigned q = k / 8, j = k % 8;
        unsigned start = unsigned(L::bitOf(8 * q) / 8);
        unsigned offset = unsigned(L::bitOf(8 * q + j)) - 8 * start;
        gather[k] = uint8_t(start + j);
        shifts[k] = uint8_t(offset);
        if (8 * q + j < kStep && offset + W > 64)
          fits = false;
      }
    }
  };

  template <bool IsWord, bool Signed>
  static void unpack(const uint8_t *in, uint8_t *out, uint64_t n) {
    using Tables = ReadTables<IsWord>;
    static constexpr Tables kTables;
    static_assert(kTables.fits, "each element within its lane's bytes");
    const __m512i gather = bytes(kTables.gather);
    const __m512i shifts = bytes(kTables.shifts);
    const __m512i mask = _mm512_set1_epi8(char((1u << W) - 1));
    const __m512i sign = _mm512_set1_epi8(char(1u << (W - 1)));
    for (uint64_t done = 0; done < n; done += Tables::kStep) {
      uint64_t count = std::min<uint64_t>(n - done, Tables::kStep);
      __m512i x = _mm512_maskz_loadu_epi8(
          firstBytes(Layout<W, IsWord>::bytesOf(count)),
          in + done / Tables::kStep * Tables::kStepBytes);
      x = _mm512_multishift_epi64_epi8(shifts,
                                       _mm512_permutexvar_epi8(gather, x));
      x = _mm512_and_si512(x, mask);
      if constexpr (Signed)
        x = _mm512_sub_epi8(_mm512_xor_si512(x, sign), sign);
      _mm512_mask_storeu_epi8(out + done, firstBytes(count), x);
    }
  }

  struct PackTables {
    uint8_t compact[64]; ///< output byte i <- lane i / W, byte i mod W
    constexpr PackTables() : compact() {
      for (unsigned k = 0; k < 64; ++k)
        compact[k] = uint8_t(k / W * 8 + k % W);
    }
  };

  static void pack(const uint8_t *in, uint8_t *out, uint64_t n) {
    static constexpr PackTables kTables;
    const __m512i compact = bytes(kTables.compact);
    const __m512i mask = _mm512_set1_epi8(char((1u << W) - 1));
    const __m512i low8 = _mm512_set1_epi16(0x00FF);
    const __m512i high8 = _mm512_set1_epi16(short(0xFF00));
    const __m512i pairs = _mm512_set1_epi32(int(1u | (1u << (2 * W)) << 16));
    const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFFll);
    for (uint64_t done = 0; done < n; done += 64) {
      uint64_t count = std::min<uint64_t>(n - done, 64);
      __m512i v = _mm512_and_si512(
          _mm512_maskz_loadu_epi8(firstBytes(count), in + done), mask);
      v = _mm512_or_si512(_mm512_and_si512(v, low8),
                          _mm512_srli_epi16(_mm512_and_si512(v, high8), 8 - W));
      v = _mm512_madd_epi16(v, pairs);
      v = _mm512_or_si512(
          _mm512_and_si512(v, low32),
          _mm512_srli_epi64(_mm512_andnot_si512(low32, v), 32 - 4 * W));
      _mm512_mask_storeu_epi8(out + done / 8 * W,
                              firstBytes((count * W + 7) / 8),
                              _mm512_permutexvar_epi8(compact, v));
    }
  }

  /// Wider elements (8 < W < 64, not a multiple of 8) from `packed` or
  /// `word` to OutBytes-byte little-endian integers, computed in lanes of
  /// L >= OutBytes bytes (a power of two): vpermb gathers the L bytes that
  /// start at each element's first byte and the L after them, vpshrdv
  /// shifts the pair right by the element's bit offset.
  template <bool IsWord, unsigned L> struct WideTables {
    using Lay = Layout<W, IsWord>;
    static constexpr unsigned kLanes = 64 / L;
    /// Elements per step: whole words, at most one per lane.
    static constexpr unsigned kStep =
        IsWord ? kLanes / Lay::kE * Lay::kE : kLanes;
    static constexpr unsigned kStepBytes = unsigned(Lay::bytesOf(kStep));
    uint8_t lo[64], hi[64], shift[64];
    constexpr WideTables() : lo(), hi(), shift() {
      for (unsigned j = 0; j < kLanes; ++j) {
        unsigned bit = unsigned(Lay::bitOf(j < kStep ? j : 0));
        for (unsigned b = 0; b < L; ++b) {
          lo[j * L + b] = uint8_t((bit / 8 + b) % 64);
          hi[j * L + b] = uint8_t((bit / 8 + L + b) % 64);
          shift[j * L + b] = b == 0 ? uint8_t(bit % 8) : 0;
        }
      }
    }
  };

  template <bool IsWord, unsigned L, unsigned OutBytes, bool Signed>
  static void unpackWide(const uint8_t *in, uint8_t *out, uint64_t n) {
    static_assert(W > 8 && W < 64 && W <= 8 * OutBytes && OutBytes <= L);
    using Tables = WideTables<IsWord, L>;
    static constexpr Tables kTables;
    struct Compact {
      uint8_t index[64];
      constexpr Compact() : index() {
        for (unsigned i = 0; i < 64; ++i)
          index[i] = uint8_t(i / OutBytes * L + i % OutBytes);
      }
    };
    static constexpr Compact kCompact;
    const __m512i lo = bytes(kTables.lo), hi = bytes(kTables.hi);
    const __m512i shift = bytes(kTables.shift);
    const __m512i compact = bytes(kCompact.index);
    constexpr uint64_t kMask = (uint64_t(1) << W) - 1;
    constexpr unsigned kUnused = 8 * L - W;
    for (uint64_t done = 0; done < n; done += Tables::kStep) {
      uint64_t count = std::min<uint64_t>(n - done, Tables::kStep);
      __m512i x = _mm512_maskz_loadu_epi8(
          firstBytes(Layout<W, IsWord>::bytesOf(count)),
          in + done / Tables::kStep * Tables::kStepBytes);
      __m512i a = _mm512_permutexvar_epi8(lo, x);
      __m512i b = _mm512_permutexvar_epi8(hi, x);
      __m512i v;
      if constexpr (L == 2) {
        v = _mm512_and_si512(_mm512_shrdv_epi16(a, b, shift),
                             _mm512_set1_epi16(short(kMask)));
        if constexpr (Signed)
          v = _mm512_srai_epi16(_mm512_slli_epi16(v, kUnused), kUnused);
      } else if constexpr (L == 4) {
        v = _mm512_and_si512(_mm512_shrdv_epi32(a, b, shift),
                             _mm512_set1_epi32(int(kMask)));
        if constexpr (Signed)
          v = _mm512_srai_epi32(_mm512_slli_epi32(v, kUnused), kUnused);
      } else {
        v = _mm512_and_si512(_mm512_shrdv_epi64(a, b, shift),
                             _mm512_set1_epi64((long long)kMask));
        if constexpr (Signed)
          v = _mm512_srai_epi64(_mm512_slli_epi64(v, kUnused), kUnused);
      }
      if constexpr (OutBytes < L)
        v = _mm512_permutexvar_epi8(compact, v);
      _mm512_mask_storeu_epi8(out + done * OutBytes,
                              firstBytes(count * OutBytes), v);
    }
  }

  /// byte -> packed for wider elements (8 < W < 64, not a multiple of 8):
  /// each element, in a lane of L bytes, is shifted left by its bit offset
  /// in the output (the bits that spill out of the lane go to a second
  /// register); every output byte then takes the bytes of the at most two
  /// elements it overlaps, gathered from both registers with vpermi2b.
  template <unsigned L> struct WidePackTables {
    static constexpr unsigned kKeep = (W + 7) / 8; ///< `byte` stride
    static constexpr unsigned kStep = 64 / L;      ///< elements per step
    static constexpr unsigned kOutBytes = kStep * W / 8;
    uint8_t expand[64], loShift[64], hiShift[64], first[64], second[64];
    uint64_t secondMask = 0;
    constexpr WidePackTables()
        : expand(), loShift(), hiShift(), first(), second() {
      for (unsigned j = 0; j < kStep; ++j) {
        unsigned offset = j * W % 8;
        for (unsigned b = 0; b < L; ++b) {
          expand[j * L + b] = uint8_t(j * kKeep + (b < kKeep ? b : 0));
          loShift[j * L + b] = b == 0 ? uint8_t(offset) : 0;
          hiShift[j * L + b] = b == 0 ? uint8_t(8 * L - offset) : 0;
        }
      }
      for (unsigned i = 0; i < kOutBytes; ++i) {
        // Byte k of element j's shifted value is lo lane j byte k (k < L)
        // or hi lane j byte k - L.
        auto source = [](unsigned j, unsigned k) {
          return uint8_t(k < L ? j * L + k : 64 + j * L + (k - L));
        };
        unsigned a = 8 * i / W, b = (8 * i + 7) / W;
        first[i] = source(a, i - a * W / 8);
        if (b != a && b < kStep) {
          second[i] = source(b, i - b * W / 8);
          secondMask |= uint64_t(1) << i;
        }
      }
    }
  };

  static void packWide(const uint8_t *in, uint8_t *out, uint64_t n) {
    constexpr unsigned kKeep = (W + 7) / 8;
    constexpr unsigned L = kKeep <= 2 ? 2 : kKeep <= 4 ? 4 : 8;
    using Tables = WidePackTables<L>;
    static constexpr Tables kTables;
    const __m512i expand = bytes(kTables.expand);
    const __m512i loShift = bytes(kTables.loShift);
    const __m512i hiShift = bytes(kTables.hiShift);
    const __m512i first = bytes(kTables.first);
    const __m512i second = bytes(kTables.second);
    constexpr uint64_t kMask = (uint64_t(1) << W) - 1;
    for (uint64_t done = 0; done < n; done += Tables::kStep) {
      uint64_t count = std::min<uint64_t>(n - done, Tables::kStep);
      __m512i v =
          _mm512_maskz_loadu_epi8(firstBytes(count * kKeep), in + done * kKeep);
      if constexpr (kKeep < L)
        v = _mm512_permutexvar_epi8(expand, v);
      __m512i lo, hi;
      if constexpr (L == 2) {
        v = _mm512_and_si512(v, _mm512_set1_epi16(short(kMask)));
        lo = _mm512_sllv_epi16(v, loShift);
        hi = _mm512_srlv_epi16(v, hiShift);
      } else if constexpr (L == 4) {
        v = _mm512_and_si512(v, _mm512_set1_epi32(int(kMask)));
        lo = _mm512_sllv_epi32(v, loShift);
        hi = _mm512_srlv_epi32(v, hiShift);
      } else {
        v = _mm512_and_si512(v, _mm512_set1_epi64((long long)kMask));
        lo = _mm512_sllv_epi64(v, loShift);
        hi = _mm512_srlv_epi64(v, hiShift);
      }
      // Elements past `count` are zero, so they add no bits.
      __m512i bytesOut =
          _mm512_or_si512(_mm512_permutex2var_epi8(lo, first, hi),
                          _mm512_maskz_permutex2var_epi8(
                              __mmask64(kTables.secondMask), lo, second, hi));
      _mm512_mask_storeu_epi8(out + done / Tables::kStep * Tables::kOutBytes,
                              firstBytes((count * W + 7) / 8), bytesOut);
    }
  }

  /// byte -> `word` with two elements per word (W = 3, 6, 7).
  static void packPairs(const uint8_t *in, uint8_t *out, uint64_t n) {
    constexpr uint32_t kP = wordBitsFor(W);
    const __m512i mask = _mm512_set1_epi8(char((1u << W) - 1));
    const __m512i low8 = _mm512_set1_epi16(0x00FF);
    const __m512i high8 = _mm512_set1_epi16(short(0xFF00));
    for (uint64_t done = 0; done < n; done += 64) {
      uint64_t count = std::min<uint64_t>(n - done, 64);
      uint64_t words = (count + 1) / 2;
      __m512i v = _mm512_and_si512(
          _mm512_maskz_loadu_epi8(firstBytes(count), in + done), mask);
      v = _mm512_or_si512(_mm512_and_si512(v, low8),
                          _mm512_srli_epi16(_mm512_and_si512(v, high8), 8 - W));
      if constexpr (kP == 8)
        _mm256_mask_storeu_epi8(out + done / 2, __mmask32(firstBytes(words)),
                                _mm512_cvtepi16_epi8(v));
      else
        _mm512_mask_storeu_epi8(out + done, firstBytes(2 * words), v);
    }
  }
};
#endif

#if VMPACK_X86_LEVEL >= 3
/// BMI2: `word` <-> `packed` for W < 8 whose words have unused bits
/// (W = 3, 5, 6, 7). pext drops the unused bits of the words in a 64-bit
/// load, leaving their elements as a packed stream; pdep puts them back.
/// A chunk is one or two 64-bit loads, so that its packed bits are whole
/// bytes.
template <uint32_t W> struct Bmi2Words {
  static constexpr uint32_t kP = wordBitsFor(W), kE = kP / W;
  static constexpr uint32_t kUsedPerLoad = 64 / kP * kE * W;
  static constexpr uint32_t kLoads = kUsedPerLoad % 8 == 0 ? 1 : 2;
  static_assert(kUsedPerLoad * kLoads % 8 == 0, "whole packed bytes");
  static constexpr uint32_t kChunkElements = kLoads * 64 / kP * kE;
  static constexpr uint32_t kChunkPacked = kLoads * kUsedPerLoad / 8;
  static constexpr uint64_t used() {
    uint64_t mask = 0;
    for (uint32_t word = 0; word < 64 / kP; ++word)
      mask |= ((uint64_t(1) << (kE * W)) - 1) << (word * kP);
    return mask;
  }
  static constexpr uint64_t kUsed = used();

  /// Chunks of whole elements in n; the rest goes through bytes.
  template <typename Tail>
  static void wordToPacked(const uint8_t *in, uint8_t *out, uint64_t n,
                           Tail tail) {
    uint64_t chunks = n / kChunkElements;
    for (uint64_t c = 0; c < chunks;
         ++c, in += 8 * kLoads, out += kChunkPacked) {
      uint64_t a = _pext_u64(loadLE<8>(in), kUsed);
      if constexpr (kLoads == 1) {
        storeLE<kChunkPacked>(out, a);
      } else {
        uint64_t b = _pext_u64(loadLE<8>(in + 8), kUsed);
        storeLE<8>(out, a | b << kUsedPerLoad);
        storeLE<kChunkPacked - 8>(out + 8, b >> (64 - kUsedPerLoad));
      }
    }
    tail(in, out, n - chunks * kChunkElements);
  }

  template <typename Tail>
  static void packedToWord(const uint8_t *in, uint8_t *out, uint64_t n,
                           Tail tail) {
    uint64_t chunks = n / kChunkElements;
    for (uint64_t c = 0; c < chunks;
         ++c, in += kChunkPacked, out += 8 * kLoads) {
      if constexpr (kLoads == 1) {
        storeLE<8>(out, _pdep_u64(loadLE<kChunkPacked>(in), kUsed));
      } else {
        uint64_t lo = loadLE<8>(in), hi = loadLE<kChunkPacked - 8>(in + 8);
        uint64_t a = lo & ((uint64_t(1) << kUsedPerLoad) - 1);
        uint64_t b = lo >> kUsedPerLoad | hi << (64 - kUsedPerLoad);
        storeLE<8>(out, _pdep_u64(a, kUsed));
        storeLE<8>(out + 8, _pdep_u64(b, kUsed));
      }
    }
    tail(in, out, n - chunks * kChunkElements);
  }
};
#endif

#if VMPACK_X86_LEVEL >= 4
#define VMPACK_X86_VECTOR V256
#elif VMPACK_X86_LEVEL >= 3
#define VMPACK_X86_VECTOR V256
#else
#define VMPACK_X86_VECTOR V128
#endif

template <uint32_t W> struct X86Kernels : Kernels<W> {
  using Base = Kernels<W>;
  static constexpr bool kVector = W < 8;
  /// `word` is the `packed` layout when the words have no unused bits.
  static constexpr bool kWordIsPacked =
      Base::kPerWord * W == Base::kWordBits && W != 1;
  /// Two elements to a word, with unused bits (W = 3, 6, 7).
  static constexpr bool kWordIsPairs =
      kVector && !kWordIsPacked && Base::kPerWord == 2;

#if VMPACK_X86_LEVEL >= 4
  /// 8 < W < 64 and not whole bytes: the wide AVX-512 kernels.
  static constexpr bool kWide = W > 8 && W < 64 && W % 8 != 0;
  static constexpr unsigned kLane = Base::kBytes <= 2   ? 2
                                    : Base::kBytes <= 4 ? 4
                                                        : 8;
  static constexpr bool kHasPackedToInt = kWide;

  static void packedToInt(const uint8_t *in, uint8_t *out, uint64_t n,
                          unsigned dstBytes, bool signExtend) {
    if constexpr (kWide) {
      auto run = [&](auto signedTag) {
        constexpr bool S = decltype(signedTag)::value;
        if constexpr (kLane <= 2)
          if (dstBytes == 2)
            return Zmm<W>::template unpackWide<false, 2, 2, S>(in, out, n);
        if constexpr (kLane <= 4)
          if (dstBytes == 4)
            return Zmm<W>::template unpackWide<false, 4, 4, S>(in, out, n);
        Zmm<W>::template unpackWide<false, 8, 8, S>(in, out, n);
      };
      if (signExtend)
        run(std::true_type());
      else
        run(std::false_type());
    }
  }
#else
  static constexpr bool kWide = false;
  static constexpr unsigned kLane = 8;
#endif

  static void byteToPacked(const uint8_t *in, uint8_t *out, uint64_t n) {
#if VMPACK_X86_LEVEL >= 4
    if constexpr (kWide)
      return Zmm<W>::packWide(in, out, n);
#endif
    if constexpr (kVector) {
#if VMPACK_X86_LEVEL >= 4
      return Zmm<W>::pack(in, out, n);
#else
      uint64_t done = packBulk<VMPACK_X86_VECTOR, W>(in, out, n);
      return Base::byteToPacked(in + done, out + done / 8 * W, n - done);
#endif
    }
    Base::byteToPacked(in, out, n);
  }

  /// `packed` (IsWord false) or `word` to bytes.
  template <bool IsWord, bool Signed>
  static void unpack(const uint8_t *in, uint8_t *out, uint64_t n) {
    using L = Layout<W, IsWord>;
    uint64_t done = 0;
#if VMPACK_X86_LEVEL >= 4
    if constexpr (typename Zmm<W>::template ReadTables<IsWord>().fits)
      return Zmm<W>::template unpack<IsWord, Signed>(in, out, n);
#elif VMPACK_X86_LEVEL >= 2
    if constexpr (LaneTables<W, IsWord>::fits)
      done = unpackBulk<VMPACK_X86_VECTOR, W, IsWord, Signed>(in, out, n);
#endif
    // The rest starts on a unit boundary (done is a multiple of 16).
    in += L::bytesOf(done);
    out += done;
    n -= done;
    if constexpr (IsWord)
      Base::wordToByte(in, out, n);
    else
      Base::packedToByte(in, out, n);
    if constexpr (Signed)
      for (uint64_t k = 0; k < n; ++k)
        out[k] = uint8_t(int8_t(uint8_t(out[k] << (8 - W))) >> (8 - W));
  }

  static void packedToByte(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kVector)
      return unpack<false, false>(in, out, n);
#if VMPACK_X86_LEVEL >= 4
    if constexpr (kWide)
      return Zmm<W>::template unpackWide<false, kLane, Base::kBytes, false>(
          in, out, n);
#endif
    Base::packedToByte(in, out, n);
  }

  static void packedToInt8(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kVector)
      return unpack<false, true>(in, out, n);
    Base::packedToInt8(in, out, n);
  }

  static void byteToWord(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kWordIsPacked && kVector)
      return byteToPacked(in, out, n);
    if constexpr (kWordIsPairs) {
#if VMPACK_X86_LEVEL >= 4
      return Zmm<W>::packPairs(in, out, n);
#elif VMPACK_X86_LEVEL >= 2
      uint64_t done = packPairsBulk<VMPACK_X86_VECTOR, W>(in, out, n);
      return Base::byteToWord(in + done, out + done / 2 * Base::kWordBytes,
                              n - done);
#endif
    }
    Base::byteToWord(in, out, n);
  }

  static void wordToByte(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kWordIsPacked && kVector)
      return packedToByte(in, out, n);
    if constexpr (kVector && W != 1)
      return unpack<true, false>(in, out, n);
#if VMPACK_X86_LEVEL >= 4
    if constexpr (kWide)
      return Zmm<W>::template unpackWide<true, kLane, Base::kBytes, false>(
          in, out, n);
#endif
    Base::wordToByte(in, out, n);
  }

#if VMPACK_X86_LEVEL >= 3
  /// BMI2 for the narrow widths whose words have unused bits. The wide
  /// widths use the bit-field loops of Kernels<W> when a word is 64 bits;
  /// with 32-bit words (W = 9 to 15) AVX-512's wide kernels through bytes
  /// are faster.
  static constexpr bool kBmi2Word = kVector && !kWordIsPacked && W != 1;
  static constexpr bool kFieldWord =
      Base::kHasDirectWord && (!kWide || Base::kWordBytes == 8);
  static constexpr bool kHasDirectWord = kBmi2Word || kFieldWord;

  static void wordToPacked(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kFieldWord)
      return Base::wordToPacked(in, out, n);
    if constexpr (kBmi2Word)
      Bmi2Words<W>::wordToPacked(
          in, out, n, [](const uint8_t *in, uint8_t *out, uint64_t n) {
            uint8_t bytes[64];
            wordToByte(in, bytes, n);
            byteToPacked(bytes, out, n);
          });
  }

  static void packedToWord(const uint8_t *in, uint8_t *out, uint64_t n) {
    if constexpr (kFieldWord)
      return Base::packedToWord(in, out, n);
    if constexpr (kBmi2Word)
      Bmi2Words<W>::packedToWord(
          in, out, n, [](const uint8_t *in, uint8_t *out, uint64_t n) {
            uint8_t bytes[64];
            packedToByte(in, bytes, n);
            byteToWord(bytes, out, n);
          });
  }
#endif
};

/// The loops that do not depend on W.
struct X86Common : Common {
#if VMPACK_X86_LEVEL >= 3
  static void halfToFloat(const uint8_t *in, float *out, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(out + i,
                       _mm256_cvtph_ps(_mm_loadu_si128(
                           reinterpret_cast<const __m128i *>(in + 2 * i))));
    for (; i < n; ++i)
      out[i] = _cvtsh_ss(uint16_t(loadLE<2>(in + 2 * i)));
  }
  static constexpr void (*kHalfToFloat)(const uint8_t *, float *,
                                        uint64_t) = &halfToFloat;
#endif
#if VMPACK_X86_LEVEL >= 4
  /// 16 floats per step: vpermi2ps looks up 32 table entries at once; bits
  /// 5 ... 7 of the index pick among the 32-entry quarters.
  template <unsigned Bits>
  static void lookupWithTable(const uint8_t *in, const float *table, float *out,
                              uint64_t n) {
    constexpr unsigned kRegs = Bits <= 4 ? 1 : 1u << (Bits - 4);
    __m512 t[kRegs];
    for (unsigned r = 0; r < kRegs; ++r)
      t[r] = _mm512_loadu_ps(table + 16 * r);
    for (uint64_t done = 0; done < n; done += 16) {
      uint64_t count = n - done < 16 ? n - done : 16;
      __mmask16 m =
          count == 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
      __m512i idx = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, in + done));
      __m512 v;
      if constexpr (Bits <= 4) {
        v = _mm512_permutexvar_ps(idx, t[0]);
      } else {
        __m512 quarter[kRegs / 2];
        for (unsigned r = 0; r < kRegs / 2; ++r)
          quarter[r] = _mm512_permutex2var_ps(t[2 * r], idx, t[2 * r + 1]);
        for (unsigned bit = 5, width = kRegs / 2; width > 1;
             ++bit, width /= 2) {
          __mmask16 upper =
              _mm512_test_epi32_mask(idx, _mm512_set1_epi32(1 << bit));
          for (unsigned r = 0; r < width / 2; ++r)
            quarter[r] =
                _mm512_mask_blend_ps(upper, quarter[2 * r], quarter[2 * r + 1]);
        }
        v = quarter[0];
      }
      _mm512_mask_storeu_ps(out + done, m, v);
    }
  }

  static void lookupFloat(const uint8_t *in, const float *table,
                          unsigned tableBits, float *out, uint64_t n) {
    switch (tableBits) {
    case 1:
    case 2:
    case 3:
    case 4:
      return lookupWithTable<4>(in, table, out, n);
    case 5:
      return lookupWithTable<5>(in, table, out, n);
    case 6:
      return lookupWithTable<6>(in, table, out, n);
    case 7:
      return lookupWithTable<7>(in, table, out, n);
    default:
      return lookupWithTable<8>(in, table, out, n);
    }
  }
#endif
};

#undef VMPACK_X86_VECTOR

} // namespace vmpack::detail::VMPACK_KERNEL_NS
