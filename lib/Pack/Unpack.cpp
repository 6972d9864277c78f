//===- Unpack.cpp - Widening elements to plain integers and floats --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Elements of at most 8 bits go through one byte per element: the active
// level's kernels turn the source into bytes (sign-extended on the way for
// `packed`), then widen them or look them up in a per-format table of
// float32 values. Wider elements are read as 64-bit values in blocks that
// stay in L1 and narrowed from there.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Convert.h"

#include "Dispatch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace vmpack;
using namespace vmpack::detail;

/// Elements per block: the unsigned values of a block sit in L1 between the
/// read and the widening pass.
static constexpr uint64_t kBlock = 512;

/// Narrows to T-sized integers at `out`, which need not be aligned.
template <typename T>
static void widen(const uint64_t *values, uint64_t n, uint32_t bitWidth,
                  bool signExtend, uint8_t *out) {
  unsigned shift = signExtend && bitWidth < 64 ? 64 - bitWidth : 0;
  for (uint64_t i = 0; i < n; ++i) {
    auto v = T(uint64_t(int64_t(values[i] << shift) >> shift));
    std::memcpy(out + i * sizeof(T), &v, sizeof(T));
  }
}

/// Elements [first, first + count) as 64-bit values, block by block,
/// widened to T.
template <typename T>
static void unpackThroughValues(const KernelSet &k, Encoding encoding,
                                uint32_t bitWidth, bool signExtend,
                                const uint8_t *in, uint64_t first,
                                uint64_t count, uint8_t *out) {
  uint64_t values[kBlock];
  for (uint64_t done = 0; done < count; done += kBlock) {
    uint64_t n = std::min(kBlock, count - done);
    k.readRange(encoding, in, first + done, n, values);
    widen<T>(values, n, bitWidth, signExtend, out + done * sizeof(T));
  }
}

/// unpackThroughValues for a dstBytes-byte T.
static void unpackThroughValues(const KernelSet &k, Encoding encoding,
                                uint32_t bitWidth, bool signExtend,
                                const uint8_t *in, uint64_t first,
                                uint64_t count, uint8_t *out,
                                unsigned dstBytes) {
  switch (dstBytes) {
  case 1:
    return unpackThroughValues<uint8_t>(k, encoding, bitWidth, signExtend, in,
                                        first, count, out);
  case 2:
    return unpackThroughValues<uint16_t>(k, encoding, bitWidth, signExtend, in,
                                         first, count, out);
  case 4:
    return unpackThroughValues<uint32_t>(k, encoding, bitWidth, signExtend, in,
                                         first, count, out);
  default:
    return unpackThroughValues<uint64_t>(k, encoding, bitWidth, signExtend, in,
                                         first, count, out);
  }
}

/// Elements [first, first + count) of W < 8 bits to one byte each,
/// sign-extended or not.
static void unpackToBytes(const KernelSet &k, Encoding encoding,
                          uint32_t bitWidth, bool signExtend, const uint8_t *in,
                          uint64_t first, uint64_t count, uint8_t *out) {
  // Up to a granule boundary one by one, then whole kernels.
  uint64_t g = elementGranule(bitWidth);
  uint64_t head = std::min(count, (g - first % g) % g);
  unpackThroughValues<uint8_t>(k, encoding, bitWidth, signExtend, in, first,
                               head, out);
  first += head;
  count -= head;
  out += head;
  const uint8_t *src = in + granuleByteOffset(encoding, bitWidth, first);
  switch (encoding) {
  case Encoding::Packed:
    return (signExtend ? k.packedToInt8 : k.packedToByte)(src, out, count);
  case Encoding::Word:
    k.wordToByte(src, out, count);
    break;
  case Encoding::Byte:
    k.normalizeByte(src, out, count);
    break;
  }
  if (signExtend) {
    unsigned shift = 8 - bitWidth;
    for (uint64_t i = 0; i < count; ++i)
      out[i] = uint8_t(int8_t(uint8_t(out[i] << shift)) >> shift);
  }
}

void vmpack::unpackToInt(Encoding encoding, uint32_t bitWidth, bool signExtend,
                         const void *src, uint64_t first, uint64_t count,
                         void *dst, unsigned dstBytes) {
  const auto *in = static_cast<const uint8_t *>(src);
  if (count == 0)
    return;
  if (bitWidth == 8 * dstBytes) {
    std::memcpy(dst, in + first * dstBytes, count * dstBytes);
    return;
  }
  const LevelKernels &level = commonKernels();
  const KernelSet &k = level.widths[bitWidth];
  auto *out = static_cast<uint8_t *>(dst);
  if (bitWidth < 8 && dstBytes == 1)
    return unpackToBytes(k, encoding, bitWidth, signExtend, in, first, count,
                         out);
  if (bitWidth == 8 && dstBytes == 2)
    return (signExtend ? level.signExtend8To16
                       : level.zeroExtend8To16)(in + first, out, count);
  if (bitWidth < 8 && dstBytes == 2) {
    // Through bytes in L1, then widened.
    constexpr uint64_t kBytesBlock = 8192;
    alignas(64) uint8_t bytes[kBytesBlock];
    auto extend = signExtend ? level.signExtend8To16 : level.zeroExtend8To16;
    for (uint64_t done = 0; done < count; done += kBytesBlock) {
      uint64_t n = std::min(kBytesBlock, count - done);
      unpackToBytes(k, encoding, bitWidth, signExtend, in, first + done, n,
                    bytes);
      extend(bytes, out + 2 * done, n);
    }
    return;
  }
  if (encoding == Encoding::Packed && k.packedToInt) {
    // Up to a granule boundary through values, then the kernel.
    uint64_t g = elementGranule(bitWidth);
    uint64_t head = std::min(count, (g - first % g) % g);
    unpackThroughValues(k, encoding, bitWidth, signExtend, in, first, head, out,
                        dstBytes);
    return k.packedToInt(
        in + granuleByteOffset(encoding, bitWidth, first + head),
        out + head * dstBytes, count - head, dstBytes, signExtend);
  }
  unpackThroughValues(k, encoding, bitWidth, signExtend, in, first, count, out,
                      dstBytes);
}

float vmpack::decodeFloat(const FloatFormat &format, uint32_t bits) {
  unsigned e = format.exponentBits, m = format.mantissaBits;
  uint32_t expMax = (1u << e) - 1, manMax = (1u << m) - 1;
  bool negative = format.hasSign && ((bits >> (e + m)) & 1);
  uint32_t exponent = (bits >> m) & expMax;
  uint32_t mantissa = bits & manMax;
  float sign = negative ? -1.0f : 1.0f;
  const float nan = std::numeric_limits<float>::quiet_NaN();

  if (format.nanIsNegativeZero && negative && exponent == 0 && mantissa == 0)
    return nan;
  if (format.hasInfAndNaN && exponent == expMax)
    return mantissa == 0 ? sign * std::numeric_limits<float>::infinity() : nan;
  if (format.nanIsAllOnes && exponent == expMax && mantissa == manMax)
    return nan;
  // Exponent-only formats (f8E8M0FNU) have no zero and no subnormals.
  if (m == 0)
    return sign * std::ldexp(1.0f, int(exponent) - format.bias);
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), 1 - format.bias - int(m));
  return sign * std::ldexp(float(mantissa | (1u << m)),
                           int(exponent) - format.bias - int(m));
}

std::optional<uint32_t> vmpack::encodeFloat(const FloatFormat &format,
                                            float value) {
  const unsigned e = format.exponentBits, m = format.mantissaBits;
  const uint32_t expMax = (1u << e) - 1, manMax = (1u << m) - 1;
  const uint32_t signBit = format.hasSign ? 1u << (e + m) : 0;
  if (std::isnan(value)) {
    if (format.hasInfAndNaN && m > 0)
      return (expMax << m) | (1u << (m - 1));
    if (format.nanIsAllOnes)
      return (expMax << m) | manMax;
    if (format.nanIsNegativeZero)
      return signBit;
    return std::nullopt;
  }
  const bool negative = std::signbit(value);
  const float magnitude = std::fabs(value);
  if (negative && !format.hasSign)
    return std::nullopt;
  const uint32_t sign = negative ? signBit : 0;
  if (std::isinf(magnitude))
    return format.hasInfAndNaN ? std::optional<uint32_t>(sign | (expMax << m))
                               : std::nullopt;
  if (magnitude == 0) {
    if (m == 0)
      return std::nullopt; // exponent-only formats have no zero
    return format.nanIsNegativeZero ? 0u : sign;
  }
  int exp2 = 0;
  std::frexp(magnitude, &exp2); // magnitude in [2^(exp2-1), 2^exp2)
  const int biased = exp2 - 1 + format.bias;
  uint32_t bits;
  if (m == 0) {
    if (biased < 0 || biased > int(expMax))
      return std::nullopt;
    bits = uint32_t(biased);
  } else {
    // The significand in units of the last mantissa bit: normal numbers
    // in [2^m, 2^(m+1)), subnormals (biased exponent 0) below 2^m.
    const bool normal = biased >= 1;
    if (biased > int(expMax))
      return std::nullopt;
    const double scaled =
        std::ldexp(double(magnitude),
                   normal ? int(m) - (exp2 - 1) : int(m) - 1 + format.bias);
    if (scaled != std::floor(scaled) || scaled >= std::ldexp(1.0, int(m) + 1))
      return std::nullopt;
    const uint32_t significand = uint32_t(scaled);
    bits = sign | (normal ? (uint32_t(biased) << m) | (significand & manMax)
                          : significand);
  }
  // Reserved patterns (an FN format's NaN, an IEEE format's infinities) and
  // anything the arithmetic above got wrong fail here.
  const float back = decodeFloat(format, bits);
  if (std::isnan(back) || back != value ||
      (std::signbit(back) != negative && !format.nanIsNegativeZero))
    return std::nullopt;
  return bits;
}

void vmpack::unpackToFloat32(Encoding encoding, ScalarKind kind,
                             const void *src, uint64_t first, uint64_t count,
                             float *dst) {
  uint32_t bitWidth = impliedWidth(kind);
  std::optional<FloatFormat> format = floatFormat(kind);
  if (!format || count == 0)
    return;
  const auto *in = static_cast<const uint8_t *>(src);
  if (kind == ScalarKind::F32) {
    std::memcpy(dst, in + first * 4, count * 4);
    return;
  }
  const LevelKernels &level = commonKernels();
  if (kind == ScalarKind::BF16) {
    // float32 with the low 16 mantissa bits cut off; 16 bits are the same
    // bytes in every encoding.
    level.bf16ToFloat(in + first * 2, dst, count);
    return;
  }
  if (kind == ScalarKind::F16 && level.halfToFloat) {
    level.halfToFloat(in + first * 2, dst, count);
    return;
  }
  const KernelSet &k = level.widths[bitWidth];
  if (bitWidth <= 8) {
    // A table of every value of the format (unused entries zero, so the
    // vector lookups may load the whole table), applied to one byte per
    // element, block by block in L1.
    float table[256] = {};
    for (uint32_t bits = 0; bits < (1u << bitWidth); ++bits)
      table[bits] = decodeFloat(*format, bits);
    constexpr uint64_t kBytesBlock = 4096;
    alignas(64) uint8_t bytes[kBytesBlock];
    for (uint64_t done = 0; done < count; done += kBytesBlock) {
      uint64_t n = std::min(kBytesBlock, count - done);
      if (bitWidth == 8)
        std::memcpy(bytes, in + first + done, n);
      else
        unpackToBytes(k, encoding, bitWidth, false, in, first + done, n, bytes);
      level.lookupFloat(bytes, table, bitWidth, dst + done, n);
    }
    return;
  }

  uint64_t values[kBlock];
  for (uint64_t done = 0; done < count; done += kBlock) {
    uint64_t n = std::min(kBlock, count - done);
    k.readRange(encoding, in, first + done, n, values);
    float *out = dst + done;
    if (kind == ScalarKind::TF32) {
      // float32 with the low 13 mantissa bits cut off.
      for (uint64_t i = 0; i < n; ++i) {
        uint32_t bits = uint32_t(values[i]) << 13;
        std::memcpy(&out[i], &bits, 4);
      }
    } else {
      for (uint64_t i = 0; i < n; ++i)
        out[i] = decodeFloat(*format, uint32_t(values[i]));
    }
  }
}
