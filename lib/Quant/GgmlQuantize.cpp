//===- GgmlQuantize.cpp - float32 to ggml blocks, as ggml rounds ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Written from the reference quantizers `quantize_row_q4_0_ref`, `_q4_1_`,
// `_q5_0_`, `_q5_1_` and `_q8_0_ref` of ggml-org/ggml src/ggml-quants.c
// and the software float16 conversion `ggml_compute_fp32_to_fp16` of
// src/ggml-impl.h (which libggml-base uses). The same float32 operations
// on the same operands in the same order (the library is compiled with
// -ffp-contract=off). ggml converts a float to an 8-bit integer with C's
// truncating conversion; x86 performs it as a 32-bit truncation (CVTTSS2SI,
// 0x80000000 for NaN and out-of-range values) whose low byte is kept, and
// `toInt8` does the same, defined for every input.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/GgmlQuantize.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

using namespace vmpack::quant;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// C's (int32_t) conversion as x86 performs it: truncation, and INT32_MIN
/// for NaN and values outside int32.
int32_t toInt32(float f) {
  if (!(f > -2147483904.0f && f < 2147483648.0f))
    return INT32_MIN;
  return int32_t(f);
}
/// (int8_t)(float): the low byte of the 32-bit truncation.
int32_t toInt8(float f) { return int8_t(uint8_t(uint32_t(toInt32(f)))); }
/// (uint8_t)(float), likewise.
int32_t toUint8(float f) { return uint8_t(uint32_t(toInt32(f))); }

void store16(uint8_t *p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

/// The largest magnitude and its signed value, the first one on ties
/// (Q4_0, Q5_0).
void signedMax(const float *x, float &amax, float &max) {
  amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
}

void minMax(const float *x, float &min, float &max) {
  min = FLT_MAX, max = -FLT_MAX;
  for (int j = 0; j < 32; ++j) {
    if (x[j] < min)
      min = x[j];
    if (x[j] > max)
      max = x[j];
  }
}

void q4_0(const float *x, uint8_t *y) {
  float amax, max;
  signedMax(x, amax, max);
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store16(y, ggmlFloatToHalf(d));
  for (int j = 0; j < 16; ++j) {
    int32_t a = toInt8(x[j] * id + 8.5f), b = toInt8(x[16 + j] * id + 8.5f);
    uint8_t xi0 = uint8_t(a < 15 ? a : 15), xi1 = uint8_t(b < 15 ? b : 15);
    y[2 + j] = uint8_t(xi0 | xi1 << 4);
  }
}

void q4_1(const float *x, uint8_t *y) {
  float min, max;
  minMax(x, min, max);
  const float d = (max - min) / 15.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store16(y, ggmlFloatToHalf(d));
  store16(y + 2, ggmlFloatToHalf(min));
  for (int j = 0; j < 16; ++j) {
    int32_t a = toInt8((x[j] - min) * id + 0.5f);
    int32_t b = toInt8((x[16 + j] - min) * id + 0.5f);
    uint8_t xi0 = uint8_t(a < 15 ? a : 15), xi1 = uint8_t(b < 15 ? b : 15);
    y[4 + j] = uint8_t(xi0 | xi1 << 4);
  }
}

/// Q5_0 and Q5_1 share the packing of the 5-bit codes: low nibbles in qs,
/// the fifth bits in the 32-bit qh.
void pack5(const uint8_t *xi, uint8_t *qh, uint8_t *qs) {
  uint32_t h = 0;
  for (int j = 0; j < 16; ++j) {
    uint8_t a = xi[j], b = xi[16 + j];
    qs[j] = uint8_t((a & 0x0F) | (b & 0x0F) << 4);
    h |= uint32_t((a & 0x10u) >> 4) << j;
    h |= uint32_t((b & 0x10u) >> 4) << (j + 16);
  }
  for (int k = 0; k < 4; ++k)
    qh[k] = uint8_t(h >> 8 * k);
}

void q5_0(const float *x, uint8_t *y) {
  float amax, max;
  signedMax(x, amax, max);
  const float d = max / -16.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store16(y, ggmlFloatToHalf(d));
  uint8_t xi[32];
  for (int j = 0; j < 32; ++j) {
    int32_t v = toInt8(x[j] * id + 16.5f);
    xi[j] = uint8_t(v < 31 ? v : 31);
  }
  pack5(xi, y + 2, y + 6);
}

void q5_1(const float *x, uint8_t *y) {
  float min, max;
  minMax(x, min, max);
  const float d = (max - min) / 31.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store16(y, ggmlFloatToHalf(d));
  store16(y + 2, ggmlFloatToHalf(min));
  uint8_t xi[32];
  for (int j = 0; j < 32; ++j)
    xi[j] = uint8_t(toUint8((x[j] - min) * id + 0.5f));
  pack5(xi, y + 4, y + 8);
}

void q8_0(const float *x, uint8_t *y) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) {
    float a = std::fabs(x[j]);
    amax = amax > a ? amax : a; // ggml's MAX(amax, fabsf(v))
  }
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store16(y, ggmlFloatToHalf(d));
  for (int j = 0; j < 32; ++j)
    y[2 + j] = uint8_t(toInt8(std::round(x[j] * id)));
}

} // namespace

uint16_t vmpack::quant::ggmlFloatToHalf(float f) {
  // Rounding by adding a power of two that moves the float16's last place
  // to float32's, as ggml's software conversion does.
  const float scaleToInf = fromBits(0x77800000),
              scaleToZero = fromBits(0x08800000);
  float base = (std::fabs(f) * scaleToInf) * scaleToZero;
  const uint32_t w = bitsOf(f), shl1 = w + w, sign = w & 0x80000000u;
  uint32_t bias = shl1 & 0xFF000000u;
  if (bias < 0x71000000u)
    bias = 0x71000000u;
  base = fromBits((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = bitsOf(base);
  const uint32_t expBits = (bits >> 13) & 0x00007C00u,
                 mantissa = bits & 0x00000FFFu;
  return uint16_t((sign >> 16) |
                  (shl1 > 0xFF000000u ? 0x7E00u : expBits + mantissa));
}

bool vmpack::quant::hasGgmlQuantizer(uint32_t type) {
  return type == kGgmlQ4_0 || type == kGgmlQ4_1 || type == kGgmlQ5_0 ||
         type == kGgmlQ5_1 || type == kGgmlQ8_0;
}

Status vmpack::quant::quantizeGgmlBlocks(uint32_t type, const float *x,
                                         uint64_t blockCount, uint8_t *out) {
  void (*one)(const float *, uint8_t *) = nullptr;
  switch (type) {
  case kGgmlQ4_0:
    one = q4_0;
    break;
  case kGgmlQ4_1:
    one = q4_1;
    break;
  case kGgmlQ5_0:
    one = q5_0;
    break;
  case kGgmlQ5_1:
    one = q5_1;
    break;
  case kGgmlQ8_0:
    one = q8_0;
    break;
  default: {
    const GgmlTypeTraits *t = ggmlTypeTraits(type);
    return Status::unsupported(
        std::string("vmpack has no quantizer for ggml ") +
        (t ? t->name : std::to_string(type).c_str()) +
        " (it quantizes to Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0)");
  }
  }
  const uint32_t bytes = ggmlBlockBytes(type);
  for (uint64_t b = 0; b < blockCount; ++b)
    one(x + b * 32, out + b * bytes);
  return Status::ok();
}
