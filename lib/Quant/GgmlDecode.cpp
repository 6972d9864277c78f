//===- GgmlDecode.cpp - ggml block types to float32 -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One function per block type, each written from the block layout of
// ggml-org/ggml src/ggml-common.h and the value formula of the type's
// `dequantize_row_*` in src/ggml-quants.c (commit d99724f). Every float
// operation is the one ggml performs, on the same operands in the same
// order (a product of three factors is evaluated left to right, integers
// are converted to float before they meet a float), so results are
// bit-identical, NaNs included. The library is compiled with
// -ffp-contract=off so that no multiply-add is fused.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/GgmlDecode.h"

#include "vmpack/Quant/GgmlTables.h"

#include "FloatOrder.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using vmpack::quant::detail::addInOrder;
using namespace vmpack::quant;

namespace {

uint16_t load16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t load32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
float half(const uint8_t *p) { return ggmlHalfToFloat(load16(p)); }

/// ksigns_iq2xs: 7 stored sign bits, the eighth making the count even.
uint8_t evenSigns(uint32_t seven) {
  uint32_t v = seven & 127;
  uint32_t parity = v;
  parity ^= parity >> 4;
  parity ^= parity >> 2;
  parity ^= parity >> 1;
  return uint8_t(v | (parity & 1) << 7);
}
/// ggml's source multiplies by a selected -1.f or 1.f. Compilers turn that
/// into a conditional negation, which is what libggml-base does: a NaN's
/// sign bit is flipped too (an actual multiplication by -1 would leave it,
/// as an unoptimized build of the same source does). vmpack negates
/// explicitly, so every build gives ggml's bits.
float withSign(float value, uint8_t signs, unsigned j) {
  return (signs >> j) & 1 ? -value : value;
}
uint8_t gridByte(uint64_t row, unsigned j) { return uint8_t(row >> (8 * j)); }

/// ggml_e8m0_to_fp32_half: 2^(e - 128), subnormal for e < 2.
float e8m0Half(uint8_t e) {
  return bitsToFloat(e < 2 ? uint32_t(0x00200000) << e : uint32_t(e - 1) << 23);
}
/// ggml_ue4m3_to_fp32: half the value of an unsigned E4M3 (bias 7) number;
/// bit 7 is ignored and 0x7F reads as 0.
float ue4m3Half(uint8_t x) {
  if (x == 0 || x == 0x7F)
    return 0.0f;
  int exp = (x >> 3) & 0xF;
  int man = x & 0x7;
  float raw = exp == 0 ? std::ldexp(float(man), -9)
                       : std::ldexp(1.0f + float(man) / 8.0f, exp - 7);
  return raw * 0.5f;
}

void decodeQ4_0(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = float((qs[j] & 0xF) - 8) * d;
    y[j + 16] = float((qs[j] >> 4) - 8) * d;
  }
}

void decodeQ4_1(const uint8_t *b, float *y) {
  const float d = half(b);
  const float m = half(b + 2);
  const uint8_t *qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = addInOrder(float(qs[j] & 0xF) * d, m);
    y[j + 16] = addInOrder(float(qs[j] >> 4) * d, m);
  }
}

void decodeQ5_0(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint32_t qh = load32(b + 2);
  const uint8_t *qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    int hi0 = (qh >> j) & 1, hi1 = (qh >> (j + 16)) & 1;
    y[j] = float(((qs[j] & 0xF) | hi0 << 4) - 16) * d;
    y[j + 16] = float(((qs[j] >> 4) | hi1 << 4) - 16) * d;
  }
}

void decodeQ5_1(const uint8_t *b, float *y) {
  const float d = half(b);
  const float m = half(b + 2);
  const uint32_t qh = load32(b + 4);
  const uint8_t *qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    int hi0 = (qh >> j) & 1, hi1 = (qh >> (j + 16)) & 1;
    y[j] = addInOrder(float((qs[j] & 0xF) | hi0 << 4) * d, m);
    y[j + 16] = addInOrder(float((qs[j] >> 4) | hi1 << 4) * d, m);
  }
}

void decodeQ8_0(const uint8_t *b, float *y) {
  const float d = half(b);
  for (int j = 0; j < 32; ++j)
    y[j] = float(int8_t(b[2 + j])) * d;
}

void decodeQ8_1(const uint8_t *b, float *y) {
  const float d = half(b); // b + 2 holds s = d * sum(q), not needed
  for (int j = 0; j < 32; ++j)
    y[j] = float(int8_t(b[4 + j])) * d;
}

void decodeMxfp4(const uint8_t *b, float *y) {
  const float d = e8m0Half(b[0]);
  const uint8_t *qs = b + 1;
  for (int j = 0; j < 16; ++j) {
    y[j] = float(kFp4Values[qs[j] & 0xF]) * d;
    y[j + 16] = float(kFp4Values[qs[j] >> 4]) * d;
  }
}

void decodeNvfp4(const uint8_t *b, float *y) {
  const uint8_t *qs = b + 4;
  for (int s = 0; s < 4; ++s) {
    const float d = ue4m3Half(b[s]);
    for (int j = 0; j < 8; ++j) {
      uint8_t q = qs[8 * s + j];
      y[16 * s + j] = float(kFp4Values[q & 0xF]) * d;
      y[16 * s + j + 8] = float(kFp4Values[q >> 4]) * d;
    }
  }
}

void decodeQ1_0(const uint8_t *b, float *y) {
  const float d = half(b);
  const float negD = -d;
  for (int j = 0; j < 128; ++j)
    y[j] = (b[2 + j / 8] >> (j % 8)) & 1 ? d : negD;
}

void decodeQ2_0(const uint8_t *b, float *y) {
  const float d = half(b);
  for (int j = 0; j < 64; ++j) {
    int q = (b[2 + j / 4] >> (2 * (j % 4))) & 3;
    y[j] = float(q - 1) * d;
  }
}

// K-quants: 256 elements in sub-blocks, each with a small integer scale
// (and minimum) that multiplies a float16 super-block scale.

void decodeQ2_K(const uint8_t *b, float *y) {
  const uint8_t *scales = b;
  const uint8_t *q = b + 16;
  const float d = half(b + 80);
  const float min = half(b + 82);
  int is = 0;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half16 = 0; half16 < 2; ++half16) {
        uint8_t sc = scales[is++];
        const float dl = d * float(sc & 0xF);
        const float ml = min * float(sc >> 4);
        for (int l = 0; l < 16; ++l)
          *y++ = dl * float((q[l + 16 * half16] >> shift) & 3) - ml;
      }
    }
    q += 32;
  }
}

/// The sixteen 6-bit scales of Q3_K: low 4 bits from bytes 0-7 (low then
/// high nibbles), high 2 bits from bytes 8-11.
int q3kScale(const uint8_t *s, int i) {
  int low = i < 8 ? s[i] & 0xF : s[i - 8] >> 4;
  int high = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
  return low | high << 4;
}

void decodeQ3_K(const uint8_t *b, float *y) {
  const uint8_t *hm = b;
  const uint8_t *q = b + 32;
  const uint8_t *scales = b + 96;
  const float dAll = half(b + 108);
  int is = 0;
  unsigned m = 0;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2, ++m) {
      for (int half16 = 0; half16 < 2; ++half16) {
        const float dl = dAll * float(q3kScale(scales, is++) - 32);
        for (int l = 0; l < 16; ++l) {
          int k = l + 16 * half16;
          int v = ((q[k] >> shift) & 3) - ((hm[k] >> m) & 1 ? 0 : 4);
          *y++ = dl * float(v);
        }
      }
    }
    q += 32;
  }
}

/// get_scale_min_k4: the j-th 6-bit scale and minimum of Q4_K / Q5_K.
void scaleMinK4(int j, const uint8_t *q, int &sc, int &mn) {
  if (j < 4) {
    sc = q[j] & 63;
    mn = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0xF) | (q[j - 4] >> 6) << 4;
    mn = (q[j + 4] >> 4) | (q[j] >> 6) << 4;
  }
}

void decodeQ4_K(const uint8_t *b, float *y) {
  const float d = half(b);
  const float min = half(b + 2);
  const uint8_t *scales = b + 4;
  const uint8_t *q = b + 16;
  for (int is = 0; is < 8; is += 2) {
    int sc, mn;
    scaleMinK4(is, scales, sc, mn);
    const float d1 = d * float(sc), m1 = min * float(mn);
    scaleMinK4(is + 1, scales, sc, mn);
    const float d2 = d * float(sc), m2 = min * float(mn);
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * float(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * float(q[l] >> 4) - m2;
    q += 32;
  }
}

void decodeQ5_K(const uint8_t *b, float *y) {
  const float d = half(b);
  const float min = half(b + 2);
  const uint8_t *scales = b + 4;
  const uint8_t *qh = b + 16;
  const uint8_t *ql = b + 48;
  for (int is = 0; is < 8; is += 2) {
    int sc, mn;
    scaleMinK4(is, scales, sc, mn);
    const float d1 = d * float(sc), m1 = min * float(mn);
    scaleMinK4(is + 1, scales, sc, mn);
    const float d2 = d * float(sc), m2 = min * float(mn);
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * float((ql[l] & 0xF) + ((qh[l] >> is) & 1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * float((ql[l] >> 4) + ((qh[l] >> (is + 1)) & 1 ? 16 : 0)) - m2;
    ql += 32;
  }
}

void decodeQ6_K(const uint8_t *b, float *y) {
  const uint8_t *ql = b;
  const uint8_t *qh = b + 128;
  const int8_t *sc = reinterpret_cast<const int8_t *>(b + 192);
  const float d = half(b + 208);
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      int is = l / 16;
      int q1 = ((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
      int q2 = ((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
      int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
      int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
      y[l] = d * float(sc[is]) * float(q1);
      y[l + 32] = d * float(sc[is + 2]) * float(q2);
      y[l + 64] = d * float(sc[is + 4]) * float(q3);
      y[l + 96] = d * float(sc[is + 6]) * float(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

void decodeQ8_K(const uint8_t *b, float *y) {
  const float d = bitsToFloat(load32(b));
  for (int j = 0; j < 256; ++j)
    y[j] = d * float(int8_t(b[4 + j]));
}

// Ternary types.

void decodeTq1_0(const uint8_t *b, float *y) {
  static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
  const uint8_t *qs = b;
  const uint8_t *qh = b + 48;
  const float d = half(b + 52);
  // A byte holds five base-3 digits as the fraction byte / 256 of 3^5; the
  // n-th digit is the integer part of (byte * 3^n mod 256) * 3 / 256.
  auto digit = [](uint8_t byte, uint8_t p) {
    uint8_t q = uint8_t(byte * p);
    return int((uint16_t(q) * 3) >> 8);
  };
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 32; ++m)
      *y++ = float(digit(qs[m], pow3[n]) - 1) * d;
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 16; ++m)
      *y++ = float(digit(qs[32 + m], pow3[n]) - 1) * d;
  for (int n = 0; n < 4; ++n)
    for (int j = 0; j < 4; ++j)
      *y++ = float(digit(qh[j], pow3[n]) - 1) * d;
}

void decodeTq2_0(const uint8_t *b, float *y) {
  const float d = half(b + 64);
  for (int j = 0; j < 64; j += 32)
    for (int l = 0; l < 4; ++l)
      for (int m = 0; m < 32; ++m)
        *y++ = float(((b[j + m] >> (2 * l)) & 3) - 1) * d;
}

// i-quants: groups of 8 (or 4) elements looked up in a grid.

void decodeIq2_xxs(const uint8_t *b, float *y) {
  const float d = half(b);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t *g = b + 2 + 8 * ib;
    const uint32_t aux1 = load32(g + 4);
    const float db = d * (0.5f + float(aux1 >> 28)) * 0.25f;
    for (int l = 0; l < 4; ++l) {
      uint64_t row = kIq2xxsGrid[g[l]];
      uint8_t signs = evenSigns(aux1 >> (7 * l));
      for (int j = 0; j < 8; ++j)
        y[j] = withSign(db * float(gridByte(row, j)), signs, j);
      y += 8;
    }
  }
}

void decodeIq2_xs(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *scales = b + 66;
  for (int ib = 0; ib < 8; ++ib) {
    const float db[2] = {d * (0.5f + float(scales[ib] & 0xF)) * 0.25f,
                         d * (0.5f + float(scales[ib] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      uint16_t v = load16(b + 2 + 2 * (4 * ib + l));
      uint64_t row = kIq2xsGrid[v & 511];
      uint8_t signs = evenSigns(v >> 9);
      for (int j = 0; j < 8; ++j)
        y[j] = withSign(db[l / 2] * float(gridByte(row, j)), signs, j);
      y += 8;
    }
  }
}

void decodeIq2_s(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  const uint8_t *signs = b + 34;
  const uint8_t *qh = b + 66;
  const uint8_t *scales = b + 74;
  for (int ib = 0; ib < 8; ++ib) {
    const float db[2] = {d * (0.5f + float(scales[ib] & 0xF)) * 0.25f,
                         d * (0.5f + float(scales[ib] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const float dl = db[l / 2];
      uint64_t row = kIq2sGrid[qs[l] | ((qh[ib] << (8 - 2 * l)) & 0x300)];
      for (int j = 0; j < 8; ++j)
        y[j] = withSign(dl * float(gridByte(row, j)), signs[l], j);
      y += 8;
    }
    qs += 4;
    signs += 4;
  }
}

void decodeIq3_xxs(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  const uint8_t *scalesAndSigns = b + 66;
  for (int ib = 0; ib < 8; ++ib) {
    const uint32_t aux = load32(scalesAndSigns + 4 * ib);
    const float db = d * (0.5f + float(aux >> 28)) * 0.5f;
    for (int l = 0; l < 4; ++l) {
      uint8_t signs = evenSigns(aux >> (7 * l));
      uint32_t row1 = kIq3xxsGrid[qs[2 * l]];
      uint32_t row2 = kIq3xxsGrid[qs[2 * l + 1]];
      for (int j = 0; j < 4; ++j) {
        y[j] = withSign(db * float(gridByte(row1, j)), signs, j);
        y[j + 4] = withSign(db * float(gridByte(row2, j)), signs, j + 4);
      }
      y += 8;
    }
    qs += 8;
  }
}

void decodeIq3_s(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  const uint8_t *qh = b + 66;
  const uint8_t *signs = b + 74;
  const uint8_t *scales = b + 106;
  for (int ib = 0; ib < 8; ib += 2) {
    const float db[2] = {d * float(1 + 2 * (scales[ib / 2] & 0xF)),
                         d * float(1 + 2 * (scales[ib / 2] >> 4))};
    for (int part = 0; part < 2; ++part) {
      for (int l = 0; l < 4; ++l) {
        uint32_t row1 =
            kIq3sGrid[qs[2 * l] | ((qh[part] << (8 - 2 * l)) & 256)];
        uint32_t row2 =
            kIq3sGrid[qs[2 * l + 1] | ((qh[part] << (7 - 2 * l)) & 256)];
        for (int j = 0; j < 4; ++j) {
          y[j] = withSign(db[part] * float(gridByte(row1, j)), signs[l], j);
          y[j + 4] =
              withSign(db[part] * float(gridByte(row2, j)), signs[l], j + 4);
        }
        y += 8;
      }
      qs += 8;
      signs += 4;
    }
    qh += 2;
  }
}

constexpr float kIq1Delta = 0.125f; // IQ1S_DELTA, IQ1M_DELTA

void decodeIq1_s(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  for (int ib = 0; ib < 8; ++ib) {
    const uint16_t qh = load16(b + 34 + 2 * ib);
    const float dl = d * float(2 * ((qh >> 12) & 7) + 1);
    const float delta = qh & 0x8000 ? -kIq1Delta : kIq1Delta;
    for (int l = 0; l < 4; ++l) {
      uint64_t row = kIq1sGrid[qs[l] | ((qh >> (3 * l)) & 7) << 8];
      for (int j = 0; j < 8; ++j)
        y[j] = dl * (float(int8_t(gridByte(row, j))) + delta);
      y += 8;
    }
    qs += 4;
  }
}

void decodeIq1_m(const uint8_t *b, float *y) {
  const uint8_t *qs = b;
  const uint8_t *qh = b + 32;
  uint16_t sc[4];
  for (int k = 0; k < 4; ++k)
    sc[k] = load16(b + 48 + 2 * k);
  // The super-block scale: a float16 whose four nibbles are the top
  // nibbles of the four 16-bit scale words.
  uint16_t scaleBits = uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                                ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
  const float d = ggmlHalfToFloat(scaleBits);
  for (int ib = 0; ib < 8; ++ib) {
    const float dl1 = d * float(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1);
    const float dl2 =
        d * float(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1);
    const unsigned idx[4] = {
        qs[0] | ((qh[0] << 8) & 0x700u), qs[1] | ((qh[0] << 4) & 0x700u),
        qs[2] | ((qh[1] << 8) & 0x700u), qs[3] | ((qh[1] << 4) & 0x700u)};
    const float delta[4] = {qh[0] & 0x08 ? -kIq1Delta : kIq1Delta,
                            qh[0] & 0x80 ? -kIq1Delta : kIq1Delta,
                            qh[1] & 0x08 ? -kIq1Delta : kIq1Delta,
                            qh[1] & 0x80 ? -kIq1Delta : kIq1Delta};
    for (int l = 0; l < 4; ++l) {
      const float dl = l < 2 ? dl1 : dl2;
      uint64_t row = kIq1sGrid[idx[l]];
      for (int j = 0; j < 8; ++j)
        y[j] = dl * (float(int8_t(gridByte(row, j))) + delta[l]);
      y += 8;
    }
    qs += 4;
    qh += 2;
  }
}

void decodeIq4_nl(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = d * float(kIq4nlValues[qs[j] & 0xF]);
    y[j + 16] = d * float(kIq4nlValues[qs[j] >> 4]);
  }
}

void decodeIq4_xs(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint16_t scalesH = load16(b + 2);
  const uint8_t *scalesL = b + 4;
  const uint8_t *qs = b + 8;
  for (int ib = 0; ib < 8; ++ib) {
    int ls = ((scalesL[ib / 2] >> (4 * (ib % 2))) & 0xF) |
             ((scalesH >> (2 * ib)) & 3) << 4;
    const float dl = d * float(ls - 32);
    for (int j = 0; j < 16; ++j) {
      y[j] = dl * float(kIq4nlValues[qs[j] & 0xF]);
      y[j + 16] = dl * float(kIq4nlValues[qs[j] >> 4]);
    }
    y += 32;
    qs += 16;
  }
}

// Plain types, one element per block.

void decodeF32(const uint8_t *b, float *y) { *y = bitsToFloat(load32(b)); }
void decodeF16(const uint8_t *b, float *y) { *y = half(b); }
void decodeBF16(const uint8_t *b, float *y) {
  *y = bitsToFloat(uint32_t(load16(b)) << 16);
}

using BlockDecoder = void (*)(const uint8_t *, float *);

BlockDecoder decoderFor(uint32_t type) {
  switch (type) {
  case kGgmlF32:
    return decodeF32;
  case kGgmlF16:
    return decodeF16;
  case kGgmlBF16:
    return decodeBF16;
  case kGgmlQ4_0:
    return decodeQ4_0;
  case kGgmlQ4_1:
    return decodeQ4_1;
  case kGgmlQ5_0:
    return decodeQ5_0;
  case kGgmlQ5_1:
    return decodeQ5_1;
  case kGgmlQ8_0:
    return decodeQ8_0;
  case kGgmlQ8_1:
    return decodeQ8_1;
  case kGgmlQ2_K:
    return decodeQ2_K;
  case kGgmlQ3_K:
    return decodeQ3_K;
  case kGgmlQ4_K:
    return decodeQ4_K;
  case kGgmlQ5_K:
    return decodeQ5_K;
  case kGgmlQ6_K:
    return decodeQ6_K;
  case kGgmlQ8_K:
    return decodeQ8_K;
  case kGgmlIQ2_XXS:
    return decodeIq2_xxs;
  case kGgmlIQ2_XS:
    return decodeIq2_xs;
  case kGgmlIQ3_XXS:
    return decodeIq3_xxs;
  case kGgmlIQ1_S:
    return decodeIq1_s;
  case kGgmlIQ4_NL:
    return decodeIq4_nl;
  case kGgmlIQ3_S:
    return decodeIq3_s;
  case kGgmlIQ2_S:
    return decodeIq2_s;
  case kGgmlIQ4_XS:
    return decodeIq4_xs;
  case kGgmlIQ1_M:
    return decodeIq1_m;
  case kGgmlTQ1_0:
    return decodeTq1_0;
  case kGgmlTQ2_0:
    return decodeTq2_0;
  case kGgmlMXFP4:
    return decodeMxfp4;
  case kGgmlNVFP4:
    return decodeNvfp4;
  case kGgmlQ1_0:
    return decodeQ1_0;
  case kGgmlQ2_0:
    return decodeQ2_0;
  default:
    return nullptr;
  }
}

std::string typeName(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  return t ? std::string("ggml ") + t->name + " (" + std::to_string(type) + ")"
           : "ggml type " + std::to_string(type);
}

} // namespace

float vmpack::quant::ggmlHalfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t man = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    // Zero or subnormal: man * 2^-24, exact in float32.
    bits = floatToBits(float(man) * 0x1p-24f);
  } else if (exp == 31) {
    bits = 0x7F800000u | man << 13;
    if (man)
      bits |= 0x00400000u; // quiet, as a float32 multiplication leaves it
  } else {
    bits = (exp + 112) << 23 | man << 13;
  }
  return bitsToFloat(sign | bits);
}

bool vmpack::quant::canDecodeGgml(uint32_t ggmlType) {
  return decoderFor(ggmlType) != nullptr;
}

uint32_t vmpack::quant::ggmlBlockElements(uint32_t ggmlType) {
  const GgmlTypeTraits *t = ggmlTypeTraits(ggmlType);
  return t ? t->blockSize : 0;
}

uint32_t vmpack::quant::ggmlBlockBytes(uint32_t ggmlType) {
  const GgmlTypeTraits *t = ggmlTypeTraits(ggmlType);
  return t ? t->typeSize : 0;
}

Status vmpack::quant::decodeGgmlBlocks(uint32_t ggmlType, const uint8_t *blocks,
                                       uint64_t blockCount, float *out) {
  BlockDecoder decode = decoderFor(ggmlType);
  if (!decode)
    return Status::unsupported(typeName(ggmlType) +
                               " has no float32 decoding in vmpack");
  const GgmlTypeTraits *t = ggmlTypeTraits(ggmlType);
  if (blockCount > std::numeric_limits<uint64_t>::max() / t->typeSize)
    return Status::invalidArgument(std::to_string(blockCount) + " blocks of " +
                                   typeName(ggmlType) +
                                   " overflow a 64-bit byte count");
  for (uint64_t i = 0; i < blockCount; ++i)
    decode(blocks + i * t->typeSize, out + i * t->blockSize);
  return Status::ok();
}

Status vmpack::quant::decodeGgmlBytes(uint32_t ggmlType, const uint8_t *data,
                                      uint64_t byteCount, float *out,
                                      uint64_t outCapacity) {
  if (!canDecodeGgml(ggmlType))
    return decodeGgmlBlocks(ggmlType, data, 0, out);
  const GgmlTypeTraits *t = ggmlTypeTraits(ggmlType);
  if (byteCount % t->typeSize != 0)
    return Status::formatError(
        std::to_string(byteCount) + " bytes of " + typeName(ggmlType) +
        " are not a whole number of " + std::to_string(t->typeSize) +
        "-byte blocks (" + std::to_string(byteCount % t->typeSize) +
        " bytes left over)");
  uint64_t blocks = byteCount / t->typeSize;
  if (outCapacity / t->blockSize < blocks)
    return Status::error(
        archive::StatusCode::BufferTooSmall,
        std::to_string(blocks) + " blocks of " + typeName(ggmlType) +
            " decode to " + std::to_string(blocks * t->blockSize) +
            " floats; the output holds " + std::to_string(outCapacity));
  return decodeGgmlBlocks(ggmlType, data, blocks, out);
}
