//===- DequantizeLevel.h - Dequantize kernels of one level (internal) -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The dequantize kernels, compiled once per dispatch level in its own
// namespace (VMPACK_KERNEL_NS) with its own target options, like the Pack
// layer's Kernels.h. Without VMPACK_X86_LEVEL the kernels are plain scalar
// loops written as ggml's reference dequantize_row_* (ggml/src/
// ggml-quants.c) writes them; with it (1 SSE2, 2 SSE4.1, 3 AVX2 + F16C, 4
// AVX-512) the same arithmetic runs on vectors: each kernel builds 16
// integer codes in a 128-bit register, and emit16 turns them into 16
// values (convert, multiply by the scale, then add or subtract the
// minimum: the operations and their order are ggml's, and the files are
// compiled with -ffp-contract=off so that no multiply-add is fused) and
// stores them as f32, f16 or bf16.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_KERNEL_NS
#error "define VMPACK_KERNEL_NS (one namespace per dispatch level) first"
#endif

#include "DequantizeKernels.h"
#include "FloatOrder.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(VMPACK_X86_LEVEL)
#include <immintrin.h>
#endif

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "vmpack's kernels assume a little-endian host");

namespace vmpack::quant::detail::VMPACK_KERNEL_NS {

using detail::addInOrder;

inline uint16_t load16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t bitsOf(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}
inline float floatOf(uint32_t v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

/// IEEE half to float, exactly (ggml's GGML_FP16_TO_FP32); a NaN keeps its
/// payload.
inline float halfToFloat(uint16_t h) {
#if defined(VMPACK_X86_LEVEL) && VMPACK_X86_LEVEL >= 3
  return _cvtsh_ss(h);
#else
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  if (e == 0x1f)
    return floatOf(sign | 0x7f800000u | m << 13);
  if (e != 0)
    return floatOf(sign | (e + 112) << 23 | m << 13);
  // Zero or subnormal: m * 2^-24, exact in f32.
  return floatOf(sign | bitsOf(float(m) * 0x1p-24f));
#endif
}

/// ggml's GGML_E8M0_TO_FP32_HALF: 2^(e - 128) (an MXFP4 block's scale,
/// halved because its code values are stored doubled).
inline float e8m0HalfToFloat(uint8_t e) {
  return floatOf(e < 2 ? uint32_t(0x00200000) << e : uint32_t(e - 1) << 23);
}

/// MXFP4's E2M1 code values, doubled (ggml's kvalues_mxfp4).
alignas(16) constexpr int8_t kMxfp4Values[16] = {
    0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/// f32 to f16 and bf16, to nearest, ties to even; NaN quiet, sign and top
/// payload bits kept (Dequantize.h).
inline uint16_t floatToHalfScalar(float f) {
  uint32_t x = bitsOf(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u)
    return uint16_t(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) // 65520 and above round to infinity
    return uint16_t(sign | 0x7c00u);
  if (a >= 0x38800000u) { // a normal half (2^-14 and above)
    uint32_t r = a - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1);
    return uint16_t(sign | r >> 13);
  }
  uint32_t e = a >> 23;
  if (e < 102) // below 2^-25: rounds to zero
    return uint16_t(sign);
  uint32_t m = (a & 0x7fffffu) | 0x800000u;
  unsigned shift = 126 - e; // value in units of 2^-24 is m >> shift
  uint32_t q = m >> shift, rest = m & ((1u << shift) - 1),
           half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1)))
    ++q;
  return uint16_t(sign | q);
}

inline uint16_t floatToBFloat16Scalar(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((x >> 16) | 0x40u);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

template <FloatType T> inline void put(void *out, uint64_t i, float v) {
  if constexpr (T == FloatType::F32) {
    std::memcpy(static_cast<uint8_t *>(out) + 4 * i, &v, 4);
  } else {
    uint16_t h =
        T == FloatType::F16 ? floatToHalfScalar(v) : floatToBFloat16Scalar(v);
    std::memcpy(static_cast<uint8_t *>(out) + 2 * i, &h, 2);
  }
}

template <FloatType T> inline void *advance(void *out, uint64_t n) {
  return static_cast<uint8_t *>(out) +
         n * (T == FloatType::F32 ? 4 : uint64_t(2));
}

/// What follows the multiply by the scale.
enum class Op { Mul, Add, Sub };

#if !defined(VMPACK_X86_LEVEL)
//===----------------------------------------------------------------------===//
// Scalar loops
//===----------------------------------------------------------------------===//

template <FloatType T> void q4_0(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 18 * i;
    float d = halfToFloat(load16(b));
    for (unsigned j = 0; j < 16; ++j) {
      int x0 = (b[2 + j] & 0x0f) - 8, x1 = (b[2 + j] >> 4) - 8;
      put<T>(out, 32 * i + j, float(x0) * d);
      put<T>(out, 32 * i + j + 16, float(x1) * d);
    }
  }
}

template <FloatType T> void q4_1(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 20 * i;
    float d = halfToFloat(load16(b)), m = halfToFloat(load16(b + 2));
    for (unsigned j = 0; j < 16; ++j) {
      int x0 = b[4 + j] & 0x0f, x1 = b[4 + j] >> 4;
      put<T>(out, 32 * i + j, addInOrder(float(x0) * d, m));
      put<T>(out, 32 * i + j + 16, addInOrder(float(x1) * d, m));
    }
  }
}

template <FloatType T, bool HasMin>
void q5(const uint8_t *blocks, uint64_t n, void *out) {
  constexpr unsigned kBytes = HasMin ? 24 : 22, kQh = HasMin ? 4 : 2;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + kBytes * i;
    float d = halfToFloat(load16(b));
    float m = HasMin ? halfToFloat(load16(b + 2)) : 0.0f;
    uint32_t qh;
    std::memcpy(&qh, b + kQh, 4);
    const uint8_t *qs = b + kQh + 4;
    for (unsigned j = 0; j < 16; ++j) {
      int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
      int x0 = (qs[j] & 0x0f) | h0, x1 = (qs[j] >> 4) | h1;
      if constexpr (HasMin) {
        put<T>(out, 32 * i + j, addInOrder(float(x0) * d, m));
        put<T>(out, 32 * i + j + 16, addInOrder(float(x1) * d, m));
      } else {
        put<T>(out, 32 * i + j, float(x0 - 16) * d);
        put<T>(out, 32 * i + j + 16, float(x1 - 16) * d);
      }
    }
  }
}

template <FloatType T> void q8_0(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 34 * i;
    float d = halfToFloat(load16(b));
    for (unsigned j = 0; j < 32; ++j)
      put<T>(out, 32 * i + j, float(int8_t(b[2 + j])) * d);
  }
}

/// ggml's get_scale_min_k4: the 6-bit scale and minimum of sub-block j.
inline void scaleMinK4(unsigned j, const uint8_t *q, uint8_t &d, uint8_t &m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = uint8_t((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
    m = uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

template <FloatType T> void q4_K(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 144 * i;
    float d = halfToFloat(load16(b)), dmin = halfToFloat(load16(b + 2));
    const uint8_t *scales = b + 4, *q = b + 16;
    uint64_t at = 256 * i;
    for (unsigned j = 0; j < 4; ++j, q += 32) {
      uint8_t sc, m;
      scaleMinK4(2 * j, scales, sc, m);
      float d1 = d * float(sc), m1 = dmin * float(m);
      scaleMinK4(2 * j + 1, scales, sc, m);
      float d2 = d * float(sc), m2 = dmin * float(m);
      for (unsigned l = 0; l < 32; ++l)
        put<T>(out, at++, d1 * float(q[l] & 0xf) - m1);
      for (unsigned l = 0; l < 32; ++l)
        put<T>(out, at++, d2 * float(q[l] >> 4) - m2);
    }
  }
}

template <FloatType T> void q6_K(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 210 * i;
    const uint8_t *ql = b, *qh = b + 128;
    const auto *sc = reinterpret_cast<const int8_t *>(b + 192);
    float d = halfToFloat(load16(b + 208));
    uint64_t at = 256 * i;
    for (unsigned half = 0; half < 2; ++half) {
      for (unsigned l = 0; l < 32; ++l) {
        unsigned is = l / 16;
        int q1 = int((ql[l] & 0xf) | ((qh[l] & 3) << 4)) - 32;
        int q2 = int((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
        int q3 = int((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        int q4 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        put<T>(out, at + l, d * float(sc[is]) * float(q1));
        put<T>(out, at + l + 32, d * float(sc[is + 2]) * float(q2));
        put<T>(out, at + l + 64, d * float(sc[is + 4]) * float(q3));
        put<T>(out, at + l + 96, d * float(sc[is + 6]) * float(q4));
      }
      at += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

template <FloatType T>
void mxfp4(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 17 * i;
    float d = e8m0HalfToFloat(b[0]);
    for (unsigned j = 0; j < 16; ++j) {
      put<T>(out, 32 * i + j, float(kMxfp4Values[b[1 + j] & 0xf]) * d);
      put<T>(out, 32 * i + j + 16, float(kMxfp4Values[b[1 + j] >> 4]) * d);
    }
  }
}

template <FloatType T, unsigned Bits, bool Signed, bool HasMin>
void planar(const PlanarView &view, uint64_t first, uint64_t n, void *out) {
  uint64_t g = view.groupSize;
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t e = first + k, group = e / g;
    float d = halfToFloat(load16(view.scales + 2 * group));
    int code;
    if constexpr (Bits == 4) {
      unsigned nib = (view.codes[e / 2] >> (4 * (e & 1))) & 0xf;
      code = Signed ? int(nib ^ 8) - 8 : int(nib);
    } else {
      code = Signed ? int(int8_t(view.codes[e])) : int(view.codes[e]);
    }
    float v = float(code) * d;
    if constexpr (HasMin)
      v = v + halfToFloat(load16(view.minimums + 2 * group));
    put<T>(out, k, v);
  }
}

#else
//===----------------------------------------------------------------------===//
// Vector kernels
//===----------------------------------------------------------------------===//

#if VMPACK_X86_LEVEL >= 4
using VF = __m512;
constexpr unsigned kLanes = 16;
#elif VMPACK_X86_LEVEL >= 3
using VF = __m256;
constexpr unsigned kLanes = 8;
#else
using VF = __m128;
constexpr unsigned kLanes = 4;
#endif

#if VMPACK_X86_LEVEL >= 4
/// 16 values as f16 or bf16 words.
template <FloatType T> inline __m256i toWords(__m512 v) {
  if constexpr (T == FloatType::F16) {
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  } else {
    __m512i b = _mm512_castps_si512(v);
    __m512i hi = _mm512_srli_epi32(b, 16);
    __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), lsb),
        16);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan,
                              _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
    return _mm512_cvtepi32_epi16(r);
  }
}
#endif

/// Stores kLanes values at out.
template <FloatType T> inline void storeLanes(void *out, VF v) {
#if VMPACK_X86_LEVEL >= 4
  if constexpr (T == FloatType::F32)
    _mm512_storeu_ps(out, v);
  else
    _mm256_storeu_si256(static_cast<__m256i *>(out), toWords<T>(v));
#elif VMPACK_X86_LEVEL >= 3
  if constexpr (T == FloatType::F32) {
    _mm256_storeu_ps(static_cast<float *>(out), v);
  } else if constexpr (T == FloatType::F16) {
    _mm_storeu_si128(
        static_cast<__m128i *>(out),
        _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else {
    __m256i b = _mm256_castps_si256(v);
    __m256i hi = _mm256_srli_epi32(b, 16);
    __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)), lsb),
        16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)),
                           nan);
    _mm_storeu_si128(static_cast<__m128i *>(out),
                     _mm_packus_epi32(_mm256_castsi256_si128(r),
                                      _mm256_extracti128_si256(r, 1)));
  }
#else
  if constexpr (T == FloatType::F32) {
    _mm_storeu_ps(static_cast<float *>(out), v);
  } else if constexpr (T == FloatType::F16) {
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, v);
    uint16_t h[4];
    for (unsigned i = 0; i < 4; ++i)
      h[i] = floatToHalfScalar(lanes[i]);
    std::memcpy(out, h, 8);
  } else {
    __m128i b = _mm_castps_si128(v);
    __m128i hi = _mm_srli_epi32(b, 16);
    __m128i lsb = _mm_and_si128(hi, _mm_set1_epi32(1));
    __m128i r = _mm_srli_epi32(
        _mm_add_epi32(_mm_add_epi32(b, _mm_set1_epi32(0x7fff)), lsb), 16);
    __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(v, v));
    __m128i nanValue = _mm_or_si128(hi, _mm_set1_epi32(0x40));
    r = _mm_or_si128(_mm_andnot_si128(nan, r), _mm_and_si128(nan, nanValue));
    // Every lane is below 2^16: sign-extend the low halves and pack.
    r = _mm_srai_epi32(_mm_slli_epi32(r, 16), 16);
    _mm_storel_epi64(static_cast<__m128i *>(out), _mm_packs_epi32(r, r));
  }
#endif
}

/// Codes kLanes * part ... of `c` (signed or unsigned bytes) as floats.
template <bool Unsigned, unsigned Part> inline VF lanesOf(__m128i c) {
#if VMPACK_X86_LEVEL >= 4
  static_assert(Part == 0);
  return _mm512_cvtepi32_ps(Unsigned ? _mm512_cvtepu8_epi32(c)
                                     : _mm512_cvtepi8_epi32(c));
#elif VMPACK_X86_LEVEL >= 3
  __m128i s = _mm_srli_si128(c, 8 * Part);
  return _mm256_cvtepi32_ps(Unsigned ? _mm256_cvtepu8_epi32(s)
                                     : _mm256_cvtepi8_epi32(s));
#elif VMPACK_X86_LEVEL >= 2
  __m128i s = _mm_srli_si128(c, 4 * Part);
  return _mm_cvtepi32_ps(Unsigned ? _mm_cvtepu8_epi32(s)
                                  : _mm_cvtepi8_epi32(s));
#else
  __m128i s = _mm_srli_si128(c, 4 * Part);
  __m128i w;
  if constexpr (Unsigned) {
    __m128i z = _mm_setzero_si128();
    w = _mm_unpacklo_epi16(_mm_unpacklo_epi8(s, z), z);
  } else {
    __m128i b16 = _mm_srai_epi16(_mm_unpacklo_epi8(s, s), 8);
    w = _mm_srai_epi32(_mm_unpacklo_epi16(b16, b16), 16);
  }
  return _mm_cvtepi32_ps(w);
#endif
}

inline VF splat(float x) {
#if VMPACK_X86_LEVEL >= 4
  return _mm512_set1_ps(x);
#elif VMPACK_X86_LEVEL >= 3
  return _mm256_set1_ps(x);
#else
  return _mm_set1_ps(x);
#endif
}

/// v + m with v's NaN when both are NaN (FloatOrder.h): clang may swap an
/// intrinsic addition's operands, so the instruction is pinned.
inline VF addInOrder(VF v, VF m) {
#if defined(__clang__)
#if VMPACK_X86_LEVEL >= 4
  __asm__("vaddps %2, %1, %0" : "=v"(v) : "v"(v), "v"(m));
#elif VMPACK_X86_LEVEL >= 3
  __asm__("vaddps %2, %1, %0" : "=x"(v) : "x"(v), "x"(m));
#else
  __asm__("addps %1, %0" : "+x"(v) : "x"(m));
#endif
  return v;
#elif VMPACK_X86_LEVEL >= 4
  return _mm512_add_ps(v, m);
#elif VMPACK_X86_LEVEL >= 3
  return _mm256_add_ps(v, m);
#else
  return _mm_add_ps(v, m);
#endif
}

template <Op O> inline VF apply(VF q, VF d, VF m) {
#if VMPACK_X86_LEVEL >= 4
  VF v = _mm512_mul_ps(q, d);
  if constexpr (O == Op::Add)
    v = addInOrder(v, m);
  else if constexpr (O == Op::Sub)
    v = _mm512_sub_ps(v, m);
#elif VMPACK_X86_LEVEL >= 3
  VF v = _mm256_mul_ps(q, d);
  if constexpr (O == Op::Add)
    v = addInOrder(v, m);
  else if constexpr (O == Op::Sub)
    v = _mm256_sub_ps(v, m);
#else
  VF v = _mm_mul_ps(q, d);
  if constexpr (O == Op::Add)
    v = addInOrder(v, m);
  else if constexpr (O == Op::Sub)
    v = _mm_sub_ps(v, m);
#endif
  return v;
}

template <FloatType T, Op O, bool Unsigned, unsigned Part>
inline void emitPart(__m128i c, VF d, VF m, void *out) {
  storeLanes<T>(advance<T>(out, Part * kLanes),
                apply<O>(lanesOf<Unsigned, Part>(c), d, m));
}

/// The 16 codes of `c` (bytes, signed unless Unsigned) times d, then plus
/// or minus m, stored as 16 values of T at out.
template <FloatType T, Op O, bool Unsigned = false>
inline void emit16(__m128i c, float d, float m, void *out) {
  VF vd = splat(d), vm = splat(m);
  emitPart<T, O, Unsigned, 0>(c, vd, vm, out);
  if constexpr (kLanes <= 8)
    emitPart<T, O, Unsigned, 1>(c, vd, vm, out);
  if constexpr (kLanes <= 4) {
    emitPart<T, O, Unsigned, 2>(c, vd, vm, out);
    emitPart<T, O, Unsigned, 3>(c, vd, vm, out);
  }
}

inline __m128i load128(const uint8_t *p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
}
inline __m128i lowNibbles(__m128i b) {
  return _mm_and_si128(b, _mm_set1_epi8(0x0f));
}
inline __m128i highNibbles(__m128i b) {
  return _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0f));
}

/// The values of the 16 4-bit codes, as floats, for the table lookups.
alignas(64) constexpr float kNibbleValues[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                 8, 9, 10, 11, 12, 13, 14, 15};
alignas(64) constexpr float kBiasedNibbleValues[16] = {
    -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7};
alignas(64) constexpr float kSignedNibbleValues[16] = {
    0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1};
alignas(64) constexpr float kMxfp4FloatValues[16] = {
    0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/// 16-bit outputs of 4-bit codes at the AVX-512 level: the 16 values a
/// group's codes can take are computed once, with the same operations on
/// the same operands as element by element (so the same bits), rounded,
/// and the 32 outputs of 32 codes looked up in that table (VPERMW): one
/// conversion per 16 values of the table instead of one per element.
#if VMPACK_X86_LEVEL >= 4
template <FloatType T> constexpr bool kTableLookup = T != FloatType::F32;
#else
template <FloatType T> constexpr bool kTableLookup = false;
#endif

/// out[i] = value(low nibble of byte i), out[16 + i] = value(high nibble
/// of byte i) for the 16 bytes of `b` (ggml's 32-code block layout): the
/// bytes widened to words once, each half looked up with a 256-bit VPERMW.
template <FloatType T, Op O>
inline void lookupNibbles32(const float *codes, float d, float m, __m128i b,
                            void *out) {
#if VMPACK_X86_LEVEL >= 4
  __m256i table =
      toWords<T>(apply<O>(_mm512_load_ps(codes), splat(d), splat(m)));
  __m256i w = _mm256_cvtepu8_epi16(b);
  auto *o = static_cast<__m256i *>(out);
  _mm256_storeu_si256(
      o, _mm256_permutexvar_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x0f)),
                                  table));
  _mm256_storeu_si256(o + 1,
                      _mm256_permutexvar_epi16(_mm256_srli_epi16(w, 4), table));
#else
  (void)codes, (void)d, (void)m, (void)b, (void)out;
  __builtin_unreachable();
#endif
}

template <FloatType T> void q4_0(const uint8_t *blocks, uint64_t n, void *out) {
  const __m128i eight = _mm_set1_epi8(8);
  for (uint64_t i = 0; i < n; ++i, out = advance<T>(out, 32)) {
    const uint8_t *b = blocks + 18 * i;
    float d = halfToFloat(load16(b));
    __m128i qs = load128(b + 2);
    if constexpr (kTableLookup<T>) {
      lookupNibbles32<T, Op::Mul>(kBiasedNibbleValues, d, 0, qs, out);
      continue;
    }
    emit16<T, Op::Mul>(_mm_sub_epi8(lowNibbles(qs), eight), d, 0, out);
    emit16<T, Op::Mul>(_mm_sub_epi8(highNibbles(qs), eight), d, 0,
                       advance<T>(out, 16));
  }
}

template <FloatType T> void q4_1(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i, out = advance<T>(out, 32)) {
    const uint8_t *b = blocks + 20 * i;
    float d = halfToFloat(load16(b)), m = halfToFloat(load16(b + 2));
    __m128i qs = load128(b + 4);
    if constexpr (kTableLookup<T>) {
      lookupNibbles32<T, Op::Add>(kNibbleValues, d, m, qs, out);
      continue;
    }
    emit16<T, Op::Add>(lowNibbles(qs), d, m, out);
    emit16<T, Op::Add>(highNibbles(qs), d, m, advance<T>(out, 16));
  }
}

/// 0x10 in byte j of the result where bit j of `bits` is set (j < 16).
inline __m128i bitsToBytes16(uint32_t bits) {
  const uint64_t kSpread = 0x0101010101010101ull;
  __m128i v = _mm_set_epi64x(int64_t(((bits >> 8) & 0xff) * kSpread),
                             int64_t((bits & 0xff) * kSpread));
  const __m128i sel =
      _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  return _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(v, sel), sel),
                       _mm_set1_epi8(0x10));
}

template <FloatType T, bool HasMin>
void q5(const uint8_t *blocks, uint64_t n, void *out) {
  constexpr unsigned kBytes = HasMin ? 24 : 22, kQh = HasMin ? 4 : 2;
  const __m128i sixteen = _mm_set1_epi8(16);
  for (uint64_t i = 0; i < n; ++i, out = advance<T>(out, 32)) {
    const uint8_t *b = blocks + kBytes * i;
    float d = halfToFloat(load16(b));
    float m = HasMin ? halfToFloat(load16(b + 2)) : 0.0f;
    uint32_t qh;
    std::memcpy(&qh, b + kQh, 4);
    __m128i qs = load128(b + kQh + 4);
    __m128i x0 = _mm_or_si128(lowNibbles(qs), bitsToBytes16(qh));
    __m128i x1 = _mm_or_si128(highNibbles(qs), bitsToBytes16(qh >> 16));
    if constexpr (HasMin) {
      emit16<T, Op::Add>(x0, d, m, out);
      emit16<T, Op::Add>(x1, d, m, advance<T>(out, 16));
    } else {
      emit16<T, Op::Mul>(_mm_sub_epi8(x0, sixteen), d, 0, out);
      emit16<T, Op::Mul>(_mm_sub_epi8(x1, sixteen), d, 0, advance<T>(out, 16));
    }
  }
}

template <FloatType T> void q8_0(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i, out = advance<T>(out, 32)) {
    const uint8_t *b = blocks + 34 * i;
    float d = halfToFloat(load16(b));
    emit16<T, Op::Mul>(load128(b + 2), d, 0, out);
    emit16<T, Op::Mul>(load128(b + 18), d, 0, advance<T>(out, 16));
  }
}

template <FloatType T> void q4_K(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 144 * i;
    float d = halfToFloat(load16(b)), dmin = halfToFloat(load16(b + 2));
    const uint8_t *s = b + 4, *q = b + 16;
    // The eight 6-bit scales and minimums (ggml's get_scale_min_k4).
    uint8_t sc[8], mn[8];
    for (unsigned j = 0; j < 4; ++j) {
      sc[j] = s[j] & 63;
      mn[j] = s[j + 4] & 63;
      sc[j + 4] = uint8_t((s[j + 8] & 0xf) | ((s[j] >> 6) << 4));
      mn[j + 4] = uint8_t((s[j + 8] >> 4) | ((s[j + 4] >> 6) << 4));
    }
    for (unsigned j = 0; j < 4; ++j, q += 32) {
      float d1 = d * float(sc[2 * j]), m1 = dmin * float(mn[2 * j]);
      float d2 = d * float(sc[2 * j + 1]), m2 = dmin * float(mn[2 * j + 1]);
#if VMPACK_X86_LEVEL >= 4
      if constexpr (kTableLookup<T>) {
        // The 32 code bytes widened to words once: their low nibbles index
        // the first sub-block's table (outputs 0-31), their high nibbles
        // the second's (32-63). One widening per 64 outputs instead of an
        // insert and a widening per 32: the shuffles are what this kernel
        // waits for.
        __m512i w = _mm512_cvtepu8_epi16(
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q)));
        __m512 codes = _mm512_load_ps(kNibbleValues);
        __m256i t1 = toWords<T>(apply<Op::Sub>(codes, splat(d1), splat(m1)));
        __m256i t2 = toWords<T>(apply<Op::Sub>(codes, splat(d2), splat(m2)));
        _mm512_storeu_si512(out,
                            _mm512_permutexvar_epi16(
                                _mm512_and_si512(w, _mm512_set1_epi16(0x0f)),
                                _mm512_castsi256_si512(t1)));
        _mm512_storeu_si512(
            advance<T>(out, 32),
            _mm512_permutexvar_epi16(_mm512_srli_epi16(w, 4),
                                     _mm512_castsi256_si512(t2)));
        out = advance<T>(out, 64);
        continue;
      }
#endif
      __m128i a = load128(q), c = load128(q + 16);
      emit16<T, Op::Sub>(lowNibbles(a), d1, m1, out);
      emit16<T, Op::Sub>(lowNibbles(c), d1, m1, advance<T>(out, 16));
      emit16<T, Op::Sub>(highNibbles(a), d2, m2, advance<T>(out, 32));
      emit16<T, Op::Sub>(highNibbles(c), d2, m2, advance<T>(out, 48));
      out = advance<T>(out, 64);
    }
  }
}

template <FloatType T> void q6_K(const uint8_t *blocks, uint64_t n, void *out) {
  const __m128i three = _mm_set1_epi8(3), bias = _mm_set1_epi8(32);
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *b = blocks + 210 * i;
    const uint8_t *ql = b, *qh = b + 128;
    const auto *sc = reinterpret_cast<const int8_t *>(b + 192);
    float d = halfToFloat(load16(b + 208));
    for (unsigned half = 0; half < 2; ++half) {
      for (unsigned c = 0; c < 32; c += 16) {
        unsigned is = c / 16;
        __m128i la = load128(ql + c), lb = load128(ql + 32 + c),
                h = load128(qh + c);
        auto high = [&](int shift) {
          __m128i v = shift ? _mm_srli_epi16(h, shift) : h;
          return _mm_slli_epi16(_mm_and_si128(v, three), 4);
        };
        __m128i q1 = _mm_sub_epi8(_mm_or_si128(lowNibbles(la), high(0)), bias);
        __m128i q2 = _mm_sub_epi8(_mm_or_si128(lowNibbles(lb), high(2)), bias);
        __m128i q3 = _mm_sub_epi8(_mm_or_si128(highNibbles(la), high(4)), bias);
        __m128i q4 = _mm_sub_epi8(_mm_or_si128(highNibbles(lb), high(6)), bias);
        emit16<T, Op::Mul>(q1, d * float(sc[is]), 0, advance<T>(out, c));
        emit16<T, Op::Mul>(q2, d * float(sc[is + 2]), 0,
                           advance<T>(out, c + 32));
        emit16<T, Op::Mul>(q3, d * float(sc[is + 4]), 0,
                           advance<T>(out, c + 64));
        emit16<T, Op::Mul>(q4, d * float(sc[is + 6]), 0,
                           advance<T>(out, c + 96));
      }
      out = advance<T>(out, 128);
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

/// The doubled E2M1 values of 16 nibbles.
inline __m128i mxfp4Values(__m128i nibbles) {
#if VMPACK_X86_LEVEL >= 2
  return _mm_shuffle_epi8(
      _mm_load_si128(reinterpret_cast<const __m128i *>(kMxfp4Values)), nibbles);
#else
  alignas(16) uint8_t idx[16];
  alignas(16) int8_t v[16];
  _mm_store_si128(reinterpret_cast<__m128i *>(idx), nibbles);
  for (unsigned j = 0; j < 16; ++j)
    v[j] = kMxfp4Values[idx[j]];
  return _mm_load_si128(reinterpret_cast<const __m128i *>(v));
#endif
}

template <FloatType T>
void mxfp4(const uint8_t *blocks, uint64_t n, void *out) {
  for (uint64_t i = 0; i < n; ++i, out = advance<T>(out, 32)) {
    const uint8_t *b = blocks + 17 * i;
    float d = e8m0HalfToFloat(b[0]);
    __m128i qs = load128(b + 1);
    if constexpr (kTableLookup<T>) {
      lookupNibbles32<T, Op::Mul>(kMxfp4FloatValues, d, 0, qs, out);
      continue;
    }
    emit16<T, Op::Mul>(mxfp4Values(lowNibbles(qs)), d, 0, out);
    emit16<T, Op::Mul>(mxfp4Values(highNibbles(qs)), d, 0, advance<T>(out, 16));
  }
}

template <FloatType T, unsigned Bits, bool Signed, bool HasMin>
void planar(const PlanarView &view, uint64_t first, uint64_t n, void *out) {
  constexpr Op O = HasMin ? Op::Add : Op::Mul;
  uint64_t g = view.groupSize;
#if VMPACK_X86_LEVEL >= 4
  if constexpr (Bits == 4 && kTableLookup<T>) {
    // One table per group (not per 32 outputs), and no division per step.
    // Byte j widened to dword j holds the indices of outputs 2j (its low
    // nibble, in the low word) and 2j + 1 (its high nibble, high word):
    // 32 word indices in output order from one widening.
    const __m512 codes =
        _mm512_load_ps(Signed ? kSignedNibbleValues : kNibbleValues);
    const __m512i nibbles = _mm512_set1_epi32(0x000f000f);
    for (uint64_t e = first, end = first + n; e < end;) {
      uint64_t group = e / g, stop = std::min(end, (group + 1) * g);
      float d = halfToFloat(load16(view.scales + 2 * group));
      float m = HasMin ? halfToFloat(load16(view.minimums + 2 * group)) : 0.0f;
      __m512i table = _mm512_castsi256_si512(
          toWords<T>(apply<O>(codes, splat(d), splat(m))));
      for (; e < stop; e += 32, out = advance<T>(out, 32)) {
        __m512i x = _mm512_cvtepu8_epi32(load128(view.codes + e / 2));
        __m512i idx = _mm512_ternarylogic_epi32(x, _mm512_slli_epi32(x, 12),
                                                nibbles, 0xa8); // (a|b)&c
        _mm512_storeu_si512(out, _mm512_permutexvar_epi16(idx, table));
      }
    }
    return;
  }
#endif
  const __m128i eight = _mm_set1_epi8(8);
  for (uint64_t e = first; e < first + n; e += 32, out = advance<T>(out, 32)) {
    uint64_t group = e / g;
    float d = halfToFloat(load16(view.scales + 2 * group));
    float m = HasMin ? halfToFloat(load16(view.minimums + 2 * group)) : 0.0f;
    if constexpr (Bits == 4) {
      __m128i b = load128(view.codes + e / 2), lo = lowNibbles(b),
              hi = highNibbles(b);
      if constexpr (Signed) {
        lo = _mm_sub_epi8(_mm_xor_si128(lo, eight), eight);
        hi = _mm_sub_epi8(_mm_xor_si128(hi, eight), eight);
      }
      emit16<T, O>(_mm_unpacklo_epi8(lo, hi), d, m, out);
      emit16<T, O>(_mm_unpackhi_epi8(lo, hi), d, m, advance<T>(out, 16));
    } else {
      emit16<T, O, !Signed>(load128(view.codes + e), d, m, out);
      emit16<T, O, !Signed>(load128(view.codes + e + 16), d, m,
                            advance<T>(out, 16));
    }
  }
}

#endif // VMPACK_X86_LEVEL

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

template <FloatType T> constexpr void fillGgml(DequantizeLevel &level) {
  unsigned t = unsigned(T);
  level.ggml[kQ4_0][t] = &q4_0<T>;
  level.ggml[kQ4_1][t] = &q4_1<T>;
  level.ggml[kQ5_0][t] = &q5<T, false>;
  level.ggml[kQ5_1][t] = &q5<T, true>;
  level.ggml[kQ8_0][t] = &q8_0<T>;
  level.ggml[kQ4_K][t] = &q4_K<T>;
  level.ggml[kQ6_K][t] = &q6_K<T>;
  level.ggml[kMXFP4][t] = &mxfp4<T>;
  level.planar[0][0][0][t] = &planar<T, 4, false, false>;
  level.planar[0][0][1][t] = &planar<T, 4, false, true>;
  level.planar[0][1][0][t] = &planar<T, 4, true, false>;
  level.planar[0][1][1][t] = &planar<T, 4, true, true>;
  level.planar[1][0][0][t] = &planar<T, 8, false, false>;
  level.planar[1][0][1][t] = &planar<T, 8, false, true>;
  level.planar[1][1][0][t] = &planar<T, 8, true, false>;
  level.planar[1][1][1][t] = &planar<T, 8, true, true>;
}

constexpr DequantizeLevel makeDequantizeLevel() {
  DequantizeLevel level{};
  fillGgml<FloatType::F32>(level);
  fillGgml<FloatType::F16>(level);
  fillGgml<FloatType::BF16>(level);
  return level;
}

} // namespace vmpack::quant::detail::VMPACK_KERNEL_NS
