//===- Unpack.cpp - Widening elements to plain integers and floats --------===//

#include "vmpack/Pack/Convert.h"

#include "Kernels.h"

#include <cmath>
#include <limits>

using namespace vmpack;
using namespace vmpack::detail;

/// Elements per block: the unsigned values of a block sit in L1 between the
/// read and the widening pass.
static constexpr uint64_t kBlock = 512;

template <typename T>
static void widen(const uint64_t *values, uint64_t n, uint32_t bitWidth,
                  bool signExtend, T *out) {
  if (signExtend && bitWidth < 64) {
    unsigned shift = 64 - bitWidth;
    for (uint64_t i = 0; i < n; ++i)
      out[i] = T(int64_t(values[i] << shift) >> shift);
  } else {
    for (uint64_t i = 0; i < n; ++i)
      out[i] = T(values[i]);
  }
}

/// The hot case: packed 4-bit elements to bytes, two per input byte.
static void unpackNibblesToInt8(const uint8_t *in, uint64_t first,
                                uint64_t count, bool signExtend, uint8_t *out) {
  auto low = [signExtend](uint8_t b) -> uint8_t {
    return signExtend ? uint8_t(int8_t(uint8_t(b << 4)) >> 4) : b & 0xF;
  };
  auto high = [signExtend](uint8_t b) -> uint8_t {
    return signExtend ? uint8_t(int8_t(b) >> 4) : b >> 4;
  };
  const uint8_t *p = in + first / 2;
  if (first % 2 == 1 && count > 0) {
    *out++ = high(*p++);
    --count;
  }
  uint64_t pairs = count / 2;
  for (uint64_t i = 0; i < pairs; ++i) {
    out[2 * i] = low(p[i]);
    out[2 * i + 1] = high(p[i]);
  }
  if (count % 2)
    out[2 * pairs] = low(p[pairs]);
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
  if (bitWidth == 4 && dstBytes == 1 && encoding == Encoding::Packed)
    return unpackNibblesToInt8(in, first, count, signExtend,
                               static_cast<uint8_t *>(dst));

  const KernelSet &k = kernelsFor(bitWidth);
  uint64_t values[kBlock];
  for (uint64_t done = 0; done < count; done += kBlock) {
    uint64_t n = std::min(kBlock, count - done);
    k.readRange(encoding, in, first + done, n, values);
    switch (dstBytes) {
    case 1:
      widen(values, n, bitWidth, signExtend,
            static_cast<uint8_t *>(dst) + done);
      break;
    case 2:
      widen(values, n, bitWidth, signExtend,
            static_cast<uint16_t *>(dst) + done);
      break;
    case 4:
      widen(values, n, bitWidth, signExtend,
            static_cast<uint32_t *>(dst) + done);
      break;
    default:
      widen(values, n, bitWidth, signExtend,
            static_cast<uint64_t *>(dst) + done);
      break;
    }
  }
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
  // Formats of at most 8 bits decode through a 256-entry table.
  float table[256];
  bool useTable = bitWidth <= 8;
  if (useTable)
    for (uint32_t bits = 0; bits < (1u << bitWidth); ++bits)
      table[bits] = decodeFloat(*format, bits);

  const KernelSet &k = kernelsFor(bitWidth);
  uint64_t values[kBlock];
  for (uint64_t done = 0; done < count; done += kBlock) {
    uint64_t n = std::min(kBlock, count - done);
    k.readRange(encoding, in, first + done, n, values);
    float *out = dst + done;
    if (useTable) {
      for (uint64_t i = 0; i < n; ++i)
        out[i] = table[values[i]];
    } else if (kind == ScalarKind::BF16 || kind == ScalarKind::TF32) {
      // Both are float32 with the low mantissa bits cut off.
      unsigned shift = 32 - bitWidth;
      for (uint64_t i = 0; i < n; ++i) {
        uint32_t bits = uint32_t(values[i]) << shift;
        std::memcpy(&out[i], &bits, 4);
      }
    } else {
      for (uint64_t i = 0; i < n; ++i)
        out[i] = decodeFloat(*format, uint32_t(values[i]));
    }
  }
}
