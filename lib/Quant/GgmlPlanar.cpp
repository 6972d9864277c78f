//===- GgmlPlanar.cpp - ggml blocks to and from the planar form -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Block layouts: ggml-org/ggml src/ggml-common.h (block_q4_0 ... block_q6_K,
// block_iq4_nl, block_mxfp4, block_nvfp4); which bits form which element:
// the type's dequantize_row_* in src/ggml-quants.c, commit d99724f. Each
// block is unpacked into its fields (codes, scales, minimums, sub-scales,
// sub-minimums) and packed back by the exact inverse.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/GgmlPlanar.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

#if defined(__SSE2__) && VMPACK_DISPATCH_MAX >= 1
#include <emmintrin.h>
#define VMPACK_PLANAR_SSE2 1
#endif
#if defined(__x86_64__) && VMPACK_DISPATCH_MAX >= 4
#include <immintrin.h>
#define VMPACK_PLANAR_AVX512 1
#endif

using namespace vmpack;
using namespace vmpack::quant;

namespace {

/// The fields of one block. Codes are the values the formula uses (signed
/// where the planar type is signed); d holds raw scale bits (float16 bits,
/// an E8M0 byte, or NVFP4's four UE4M3 bytes), m the raw float16 minimum.
struct Fields {
  int32_t q[256];
  int32_t sd[16];
  int32_t sm[16];
  uint32_t d[4];
  uint32_t m;
};

uint16_t load16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }
void store16(uint8_t *p, uint32_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
uint32_t load32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
void store32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

// --- Per-type block layouts --------------------------------------------------

void unpackQ4_0(const uint8_t *b, Fields &f, bool hasMin, int bias) {
  f.d[0] = load16(b);
  const uint8_t *qs = b + (hasMin ? 4 : 2);
  if (hasMin)
    f.m = load16(b + 2);
  for (int j = 0; j < 16; ++j) {
    f.q[j] = (qs[j] & 0xF) - bias;
    f.q[j + 16] = (qs[j] >> 4) - bias;
  }
}
void packQ4_0(const Fields &f, uint8_t *b, bool hasMin, int bias) {
  store16(b, f.d[0]);
  uint8_t *qs = b + (hasMin ? 4 : 2);
  if (hasMin)
    store16(b + 2, f.m);
  for (int j = 0; j < 16; ++j)
    qs[j] =
        uint8_t(((f.q[j] + bias) & 0xF) | ((f.q[j + 16] + bias) & 0xF) << 4);
}

void unpackQ5(const uint8_t *b, Fields &f, bool hasMin) {
  f.d[0] = load16(b);
  int at = 2;
  if (hasMin) {
    f.m = load16(b + 2);
    at = 4;
  }
  uint32_t qh = load32(b + at);
  const uint8_t *qs = b + at + 4;
  int bias = hasMin ? 0 : 16;
  for (int j = 0; j < 16; ++j) {
    f.q[j] = int((qs[j] & 0xF) | ((qh >> j) & 1) << 4) - bias;
    f.q[j + 16] = int((qs[j] >> 4) | ((qh >> (j + 16)) & 1) << 4) - bias;
  }
}
void packQ5(const Fields &f, uint8_t *b, bool hasMin) {
  store16(b, f.d[0]);
  int at = 2;
  if (hasMin) {
    store16(b + 2, f.m);
    at = 4;
  }
  int bias = hasMin ? 0 : 16;
  uint32_t qh = 0;
  uint8_t *qs = b + at + 4;
  for (int j = 0; j < 16; ++j) {
    uint32_t u0 = uint32_t(f.q[j] + bias) & 31;
    uint32_t u1 = uint32_t(f.q[j + 16] + bias) & 31;
    qs[j] = uint8_t((u0 & 0xF) | (u1 & 0xF) << 4);
    qh |= (u0 >> 4) << j | (u1 >> 4) << (j + 16);
  }
  store32(b + at, qh);
}

void unpackQ8_0(const uint8_t *b, Fields &f) {
  f.d[0] = load16(b);
  for (int j = 0; j < 32; ++j)
    f.q[j] = int8_t(b[2 + j]);
}
void packQ8_0(const Fields &f, uint8_t *b) {
  store16(b, f.d[0]);
  for (int j = 0; j < 32; ++j)
    b[2 + j] = uint8_t(f.q[j]);
}

void unpackMxfp4(const uint8_t *b, Fields &f) {
  f.d[0] = b[0];
  for (int j = 0; j < 16; ++j) {
    f.q[j] = b[1 + j] & 0xF;
    f.q[j + 16] = b[1 + j] >> 4;
  }
}
void packMxfp4(const Fields &f, uint8_t *b) {
  b[0] = uint8_t(f.d[0]);
  for (int j = 0; j < 16; ++j)
    b[1 + j] = uint8_t((f.q[j] & 0xF) | (f.q[j + 16] & 0xF) << 4);
}

void unpackNvfp4(const uint8_t *b, Fields &f) {
  for (int s = 0; s < 4; ++s) {
    f.d[s] = b[s];
    for (int j = 0; j < 8; ++j) {
      f.q[16 * s + j] = b[4 + 8 * s + j] & 0xF;
      f.q[16 * s + j + 8] = b[4 + 8 * s + j] >> 4;
    }
  }
}
void packNvfp4(const Fields &f, uint8_t *b) {
  for (int s = 0; s < 4; ++s) {
    b[s] = uint8_t(f.d[s]);
    for (int j = 0; j < 8; ++j)
      b[4 + 8 * s + j] =
          uint8_t((f.q[16 * s + j] & 0xF) | (f.q[16 * s + j + 8] & 0xF) << 4);
  }
}

// Q2_K: scales[16] (sub-scale low nibble, sub-minimum high nibble),
// qs[64], d, dmin. Element 128n + 32s + 16h + l is bits 2s of
// qs[32n + 16h + l].
void unpackQ2_K(const uint8_t *b, Fields &f) {
  for (int i = 0; i < 16; ++i) {
    f.sd[i] = b[i] & 0xF;
    f.sm[i] = b[i] >> 4;
  }
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, s = (e / 32) % 4, k = e % 32;
    f.q[e] = (b[16 + 32 * n + k] >> (2 * s)) & 3;
  }
  f.d[0] = load16(b + 80);
  f.m = load16(b + 82);
}
void packQ2_K(const Fields &f, uint8_t *b) {
  std::memset(b, 0, 84);
  for (int i = 0; i < 16; ++i)
    b[i] = uint8_t((f.sd[i] & 0xF) | (f.sm[i] & 0xF) << 4);
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, s = (e / 32) % 4, k = e % 32;
    b[16 + 32 * n + k] |= uint8_t((f.q[e] & 3) << (2 * s));
  }
  store16(b + 80, f.d[0]);
  store16(b + 82, f.m);
}

// Q3_K: hmask[32], qs[64], scales[12], d. Element 128n + 32s + k: low bits
// 2s of qs[32n + k], high bit 4n + s of hmask[k] (set: no -4).
void unpackQ3_K(const uint8_t *b, Fields &f) {
  const uint8_t *sc = b + 96;
  for (int i = 0; i < 16; ++i) {
    int low = i < 8 ? sc[i] & 0xF : sc[i - 8] >> 4;
    int high = (sc[8 + i % 4] >> (2 * (i / 4))) & 3;
    f.sd[i] = (low | high << 4) - 32;
  }
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, s = (e / 32) % 4, k = e % 32;
    int low = (b[32 + 32 * n + k] >> (2 * s)) & 3;
    int high = (b[k] >> (4 * n + s)) & 1;
    f.q[e] = low - (high ? 0 : 4);
  }
  f.d[0] = load16(b + 108);
}
void packQ3_K(const Fields &f, uint8_t *b) {
  std::memset(b, 0, 110);
  uint8_t *sc = b + 96;
  for (int i = 0; i < 16; ++i) {
    int u = (f.sd[i] + 32) & 63;
    if (i < 8)
      sc[i] |= uint8_t(u & 0xF);
    else
      sc[i - 8] |= uint8_t((u & 0xF) << 4);
    sc[8 + i % 4] |= uint8_t((u >> 4) << (2 * (i / 4)));
  }
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, s = (e / 32) % 4, k = e % 32;
    int u = (f.q[e] + 4) & 7;
    b[32 + 32 * n + k] |= uint8_t((u & 3) << (2 * s));
    b[k] |= uint8_t((u >> 2) << (4 * n + s));
  }
  store16(b + 108, f.d[0]);
}

// Q4_K / Q5_K scales[12]: eight 6-bit sub-scales and sub-minimums
// (get_scale_min_k4).
void unpackScalesK4(const uint8_t *q, Fields &f) {
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      f.sd[j] = q[j] & 63;
      f.sm[j] = q[j + 4] & 63;
    } else {
      f.sd[j] = (q[j + 4] & 0xF) | (q[j - 4] >> 6) << 4;
      f.sm[j] = (q[j + 4] >> 4) | (q[j] >> 6) << 4;
    }
  }
}
void packScalesK4(const Fields &f, uint8_t *q) {
  for (int j = 0; j < 4; ++j) {
    q[j] = uint8_t((f.sd[j] & 63) | ((f.sd[j + 4] >> 4) & 3) << 6);
    q[j + 4] = uint8_t((f.sm[j] & 63) | ((f.sm[j + 4] >> 4) & 3) << 6);
    q[j + 8] = uint8_t((f.sd[j + 4] & 0xF) | (f.sm[j + 4] & 0xF) << 4);
  }
}

// Q4_K: d, dmin, scales[12], qs[128]. Element 64c + l is the low nibble of
// qs[32c + l], 64c + 32 + l its high nibble.
void unpackQ4_K(const uint8_t *b, Fields &f) {
  f.d[0] = load16(b);
  f.m = load16(b + 2);
  unpackScalesK4(b + 4, f);
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l) {
      f.q[64 * c + l] = b[16 + 32 * c + l] & 0xF;
      f.q[64 * c + 32 + l] = b[16 + 32 * c + l] >> 4;
    }
}
void packQ4_K(const Fields &f, uint8_t *b) {
  store16(b, f.d[0]);
  store16(b + 2, f.m);
  packScalesK4(f, b + 4);
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l)
      b[16 + 32 * c + l] =
          uint8_t((f.q[64 * c + l] & 0xF) | (f.q[64 * c + 32 + l] & 0xF) << 4);
}

// Q5_K: as Q4_K, plus qh[32]: bit 2c of qh[l] is the fifth bit of element
// 64c + l, bit 2c + 1 that of 64c + 32 + l.
void unpackQ5_K(const uint8_t *b, Fields &f) {
  f.d[0] = load16(b);
  f.m = load16(b + 2);
  unpackScalesK4(b + 4, f);
  const uint8_t *qh = b + 16, *ql = b + 48;
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l) {
      f.q[64 * c + l] = (ql[32 * c + l] & 0xF) | ((qh[l] >> (2 * c)) & 1) << 4;
      f.q[64 * c + 32 + l] =
          (ql[32 * c + l] >> 4) | ((qh[l] >> (2 * c + 1)) & 1) << 4;
    }
}
void packQ5_K(const Fields &f, uint8_t *b) {
  std::memset(b, 0, 176);
  store16(b, f.d[0]);
  store16(b + 2, f.m);
  packScalesK4(f, b + 4);
  uint8_t *qh = b + 16, *ql = b + 48;
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l) {
      int u0 = f.q[64 * c + l] & 31, u1 = f.q[64 * c + 32 + l] & 31;
      ql[32 * c + l] = uint8_t((u0 & 0xF) | (u1 & 0xF) << 4);
      qh[l] |= uint8_t((u0 >> 4) << (2 * c) | (u1 >> 4) << (2 * c + 1));
    }
}

// Q6_K: ql[128], qh[64], scales[16] (int8), d. Element 128n + 32r + l:
// low nibble r/2 ? high : low of ql[64n + 32(r%2) + l], two high bits 2r
// of qh[32n + l]; stored minus 32.
void unpackQ6_K(const uint8_t *b, Fields &f) {
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, r = (e / 32) % 4, l = e % 32;
    uint8_t lo = b[64 * n + 32 * (r % 2) + l];
    int low = r < 2 ? lo & 0xF : lo >> 4;
    int high = (b[128 + 32 * n + l] >> (2 * r)) & 3;
    f.q[e] = (low | high << 4) - 32;
  }
  for (int i = 0; i < 16; ++i)
    f.sd[i] = int8_t(b[192 + i]);
  f.d[0] = load16(b + 208);
}
void packQ6_K(const Fields &f, uint8_t *b) {
  std::memset(b, 0, 210);
  for (int e = 0; e < 256; ++e) {
    int n = e / 128, r = (e / 32) % 4, l = e % 32;
    int u = (f.q[e] + 32) & 63;
    b[64 * n + 32 * (r % 2) + l] |= uint8_t(r < 2 ? u & 0xF : (u & 0xF) << 4);
    b[128 + 32 * n + l] |= uint8_t((u >> 4) << (2 * r));
  }
  for (int i = 0; i < 16; ++i)
    b[192 + i] = uint8_t(f.sd[i]);
  store16(b + 208, f.d[0]);
}

bool unpackBlock(uint32_t type, const uint8_t *b, Fields &f) {
  switch (type) {
  case kGgmlQ4_0:
    unpackQ4_0(b, f, false, 8);
    return true;
  case kGgmlQ4_1:
    unpackQ4_0(b, f, true, 0);
    return true;
  case kGgmlIQ4_NL:
    unpackQ4_0(b, f, false, 0);
    return true;
  case kGgmlQ5_0:
    unpackQ5(b, f, false);
    return true;
  case kGgmlQ5_1:
    unpackQ5(b, f, true);
    return true;
  case kGgmlQ8_0:
    unpackQ8_0(b, f);
    return true;
  case kGgmlMXFP4:
    unpackMxfp4(b, f);
    return true;
  case kGgmlNVFP4:
    unpackNvfp4(b, f);
    return true;
  case kGgmlQ2_K:
    unpackQ2_K(b, f);
    return true;
  case kGgmlQ3_K:
    unpackQ3_K(b, f);
    return true;
  case kGgmlQ4_K:
    unpackQ4_K(b, f);
    return true;
  case kGgmlQ5_K:
    unpackQ5_K(b, f);
    return true;
  case kGgmlQ6_K:
    unpackQ6_K(b, f);
    return true;
  default:
    return false;
  }
}

void packBlock(uint32_t type, const Fields &f, uint8_t *b) {
  switch (type) {
  case kGgmlQ4_0:
    return packQ4_0(f, b, false, 8);
  case kGgmlQ4_1:
    return packQ4_0(f, b, true, 0);
  case kGgmlIQ4_NL:
    return packQ4_0(f, b, false, 0);
  case kGgmlQ5_0:
    return packQ5(f, b, false);
  case kGgmlQ5_1:
    return packQ5(f, b, true);
  case kGgmlQ8_0:
    return packQ8_0(f, b);
  case kGgmlMXFP4:
    return packMxfp4(f, b);
  case kGgmlNVFP4:
    return packNvfp4(f, b);
  case kGgmlQ2_K:
    return packQ2_K(f, b);
  case kGgmlQ3_K:
    return packQ3_K(f, b);
  case kGgmlQ4_K:
    return packQ4_K(f, b);
  case kGgmlQ5_K:
    return packQ5_K(f, b);
  case kGgmlQ6_K:
    return packQ6_K(f, b);
  default:
    return;
  }
}

// --- The packed layout of one part of one block
// -------------------------------

int32_t *fieldOf(Fields &f, PlanarRole role) {
  switch (role) {
  case PlanarRole::Codes:
    return f.q;
  case PlanarRole::SubScales:
    return f.sd;
  case PlanarRole::SubOffsets:
    return f.sm;
  default:
    return nullptr;
  }
}

/// Element k of a packed stream of W-bit elements (docs/packing.md 2.1).
/// Element k of width w (at most 32 bits) of a packed, LSB-first part: the
/// bytes that hold it, at most five, as one little-endian window.
uint32_t readBits(const uint8_t *p, uint32_t w, uint32_t k) {
  uint64_t bit = uint64_t(k) * w;
  const uint8_t *at = p + bit / 8;
  uint32_t shift = uint32_t(bit % 8), n = (shift + w + 7) / 8;
  uint64_t x = 0;
  for (uint32_t j = 0; j < n; ++j)
    x |= uint64_t(at[j]) << (8 * j);
  return uint32_t((x >> shift) & ((uint64_t(1) << w) - 1));
}
void writeBits(uint8_t *p, uint32_t w, uint32_t k, uint32_t v) {
  uint64_t bit = uint64_t(k) * w;
  uint8_t *at = p + bit / 8;
  uint32_t shift = uint32_t(bit % 8), n = (shift + w + 7) / 8;
  uint64_t x = (uint64_t(v) & ((uint64_t(1) << w) - 1)) << shift;
  for (uint32_t j = 0; j < n; ++j)
    at[j] |= uint8_t(x >> (8 * j));
}

bool isSigned(const PlanarPart &p) { return p.type[0] == 's'; }

void writePart(const PlanarPart &part, Fields &f, uint8_t *dst) {
  std::memset(dst, 0, part.bytesPerBlock());
  if (part.role == PlanarRole::Scales || part.role == PlanarRole::Offsets) {
    const uint32_t *raw = part.role == PlanarRole::Scales ? f.d : &f.m;
    for (uint32_t k = 0; k < part.perBlock; ++k)
      writeBits(dst, part.bits, k, raw[k]);
    return;
  }
  const int32_t *v = fieldOf(f, part.role);
  if (part.bits == 8) {
    for (uint32_t k = 0; k < part.perBlock; ++k)
      dst[k] = uint8_t(v[k]);
    return;
  }
  if (part.bits == 4) {
    for (uint32_t k = 0; k + 1 < part.perBlock; k += 2)
      dst[k / 2] = uint8_t((v[k] & 15) | (v[k + 1] & 15) << 4);
    return;
  }
  if (part.bits == 2) {
    for (uint32_t k = 0; k + 3 < part.perBlock; k += 4)
      dst[k / 4] = uint8_t((v[k] & 3) | (v[k + 1] & 3) << 2 |
                           (v[k + 2] & 3) << 4 | (v[k + 3] & 3) << 6);
    return;
  }
  uint32_t mask = part.bits == 32 ? ~0u : (1u << part.bits) - 1;
  for (uint32_t k = 0; k < part.perBlock; ++k)
    writeBits(dst, part.bits, k, uint32_t(v[k]) & mask);
}

void readPart(const PlanarPart &part, const uint8_t *src, Fields &f) {
  if (part.role == PlanarRole::Scales || part.role == PlanarRole::Offsets) {
    uint32_t *raw = part.role == PlanarRole::Scales ? f.d : &f.m;
    for (uint32_t k = 0; k < part.perBlock; ++k)
      raw[k] = readBits(src, part.bits, k);
    return;
  }
  int32_t *v = fieldOf(f, part.role);
  const bool sign = isSigned(part);
  if (part.bits == 8 || part.bits == 4 || part.bits == 2) {
    // Whole bytes of 1, 2 or 4 elements, sign-extended by shifts.
    const uint32_t w = part.bits, shiftUp = 32 - w;
    for (uint32_t k = 0; k < part.perBlock; ++k) {
      uint32_t u = (uint32_t(src[k * w / 8]) >> (k * w % 8)) & ((1u << w) - 1);
      v[k] = sign ? int32_t(u << shiftUp) >> shiftUp : int32_t(u);
    }
    return;
  }
  for (uint32_t k = 0; k < part.perBlock; ++k) {
    uint32_t u = readBits(src, part.bits, k);
    if (isSigned(part) && (u >> (part.bits - 1)) & 1)
      v[k] = int32_t(u) - int32_t(1u << part.bits);
    else
      v[k] = int32_t(u);
  }
}

std::string typeLabel(uint32_t type) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  return t ? std::string("ggml ") + t->name
           : "ggml type " + std::to_string(type);
}

Status checkPlanarType(uint32_t type) {
  if (!hasGgmlPlanarForm(type))
    return Status::unsupported(typeLabel(type) +
                               " has no planar form (docs/quant.md lists the "
                               "types that have one)");
  return Status::ok();
}

} // namespace

const std::vector<PlanarPart> &vmpack::quant::ggmlPlanarParts(uint32_t type) {
  using R = PlanarRole;
  static const std::vector<PlanarPart> none;
  static const std::vector<PlanarPart> q4_0 = {{"q", R::Codes, "si4", 4, 32},
                                               {"d", R::Scales, "f16", 16, 1}};
  static const std::vector<PlanarPart> q4_1 = {{"q", R::Codes, "ui4", 4, 32},
                                               {"d", R::Scales, "f16", 16, 1},
                                               {"m", R::Offsets, "f16", 16, 1}};
  static const std::vector<PlanarPart> q5_0 = {{"q", R::Codes, "si5", 5, 32},
                                               {"d", R::Scales, "f16", 16, 1}};
  static const std::vector<PlanarPart> q5_1 = {{"q", R::Codes, "ui5", 5, 32},
                                               {"d", R::Scales, "f16", 16, 1},
                                               {"m", R::Offsets, "f16", 16, 1}};
  static const std::vector<PlanarPart> q8_0 = {{"q", R::Codes, "si8", 8, 32},
                                               {"d", R::Scales, "f16", 16, 1}};
  static const std::vector<PlanarPart> iq4nl = {{"q", R::Codes, "ui4", 4, 32},
                                                {"d", R::Scales, "f16", 16, 1}};
  static const std::vector<PlanarPart> mxfp4 = {
      {"q", R::Codes, "f4E2M1FN", 4, 32}, {"d", R::Scales, "f8E8M0FNU", 8, 1}};
  static const std::vector<PlanarPart> nvfp4 = {
      {"q", R::Codes, "f4E2M1FN", 4, 64}, {"d", R::Scales, "ui8", 8, 4}};
  static const std::vector<PlanarPart> q2k = {
      {"q", R::Codes, "ui2", 2, 256},
      {"d", R::Scales, "f16", 16, 1},
      {"m", R::Offsets, "f16", 16, 1},
      {"sd", R::SubScales, "ui4", 4, 16},
      {"sm", R::SubOffsets, "ui4", 4, 16}};
  static const std::vector<PlanarPart> q3k = {
      {"q", R::Codes, "si3", 3, 256},
      {"d", R::Scales, "f16", 16, 1},
      {"sd", R::SubScales, "si6", 6, 16}};
  static const std::vector<PlanarPart> q4k = {
      {"q", R::Codes, "ui4", 4, 256},
      {"d", R::Scales, "f16", 16, 1},
      {"m", R::Offsets, "f16", 16, 1},
      {"sd", R::SubScales, "ui6", 6, 8},
      {"sm", R::SubOffsets, "ui6", 6, 8}};
  static const std::vector<PlanarPart> q5k = {
      {"q", R::Codes, "ui5", 5, 256},
      {"d", R::Scales, "f16", 16, 1},
      {"m", R::Offsets, "f16", 16, 1},
      {"sd", R::SubScales, "ui6", 6, 8},
      {"sm", R::SubOffsets, "ui6", 6, 8}};
  static const std::vector<PlanarPart> q6k = {
      {"q", R::Codes, "si6", 6, 256},
      {"d", R::Scales, "f16", 16, 1},
      {"sd", R::SubScales, "si8", 8, 16}};
  switch (type) {
  case kGgmlQ4_0:
    return q4_0;
  case kGgmlQ4_1:
    return q4_1;
  case kGgmlQ5_0:
    return q5_0;
  case kGgmlQ5_1:
    return q5_1;
  case kGgmlQ8_0:
    return q8_0;
  case kGgmlIQ4_NL:
    return iq4nl;
  case kGgmlMXFP4:
    return mxfp4;
  case kGgmlNVFP4:
    return nvfp4;
  case kGgmlQ2_K:
    return q2k;
  case kGgmlQ3_K:
    return q3k;
  case kGgmlQ4_K:
    return q4k;
  case kGgmlQ5_K:
    return q5k;
  case kGgmlQ6_K:
    return q6k;
  default:
    return none;
  }
}

bool vmpack::quant::hasGgmlPlanarForm(uint32_t type) {
  return !ggmlPlanarParts(type).empty();
}

std::vector<int64_t>
vmpack::quant::planarPartShape(uint32_t type, const PlanarPart &part,
                               const std::vector<int64_t> &shape) {
  std::vector<int64_t> out = shape;
  if (out.empty())
    out.push_back(1);
  uint32_t block = ggmlBlockElements(type);
  if (block)
    out.back() = out.back() / block * part.perBlock;
  return out;
}

namespace {

/// Q4_0 and Q8_0 split byte by byte (the same bytes as the field-by-field
/// path): Q8_0's codes are its qs bytes; a Q4_0 code is its nibble - 8 as
/// si4, the nibble with bit 3 flipped, and codes byte k holds elements 2k
/// and 2k + 1, the low (k < 8) or high (k >= 8) nibbles of qs[2k mod 16]
/// and qs[2k mod 16 + 1].
///
/// The Q4_0 kernels come in one form per dispatch level (the scalar loop is
/// the reference the others are tested against): SSE2, 16 bytes per block;
/// AVX-512 (BW, VBMI), 32 blocks per step.
void splitQ4_0Scalar(const uint8_t *blocks, uint64_t n, uint8_t *q,
                     uint8_t *d) {
  for (uint64_t i = 0; i < n; ++i, blocks += 18, q += 16, d += 2) {
    std::memcpy(d, blocks, 2);
    const uint8_t *qs = blocks + 2;
    for (unsigned k = 0; k < 8; ++k) {
      uint8_t a = qs[2 * k], b = qs[2 * k + 1];
      q[k] = uint8_t(((a & 0x0F) | (b & 0x0F) << 4) ^ 0x88);
      q[k + 8] = uint8_t(((a >> 4) | (b & 0xF0)) ^ 0x88);
    }
  }
}

void joinQ4_0Scalar(const uint8_t *q, const uint8_t *d, uint64_t n,
                    uint8_t *blocks) {
  for (uint64_t i = 0; i < n; ++i, blocks += 18, q += 16, d += 2) {
    std::memcpy(blocks, d, 2);
    uint8_t *qs = blocks + 2;
    for (unsigned k = 0; k < 8; ++k) {
      uint8_t lo = uint8_t(q[k] ^ 0x88), hi = uint8_t(q[k + 8] ^ 0x88);
      qs[2 * k] = uint8_t((lo & 0x0F) | (hi & 0x0F) << 4);
      qs[2 * k + 1] = uint8_t((lo >> 4) | (hi & 0xF0));
    }
  }
}

#if VMPACK_PLANAR_SSE2
void splitQ4_0SSE2(const uint8_t *blocks, uint64_t n, uint8_t *q, uint8_t *d) {
  const __m128i nib = _mm_set1_epi8(0x0F), low = _mm_set1_epi16(0x00FF);
  for (uint64_t i = 0; i < n; ++i, blocks += 18, q += 16, d += 2) {
    std::memcpy(d, blocks, 2);
    // 16-bit lane m of lo holds nibbles 2m, 2m + 1 in its two bytes: lo |
    // lo >> 4 puts the pair in the low byte; the packs keep those bytes.
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(blocks + 2));
    __m128i lo = _mm_and_si128(v, nib),
            hi = _mm_and_si128(_mm_srli_epi16(v, 4), nib);
    __m128i a = _mm_and_si128(_mm_or_si128(lo, _mm_srli_epi16(lo, 4)), low);
    __m128i b = _mm_and_si128(_mm_or_si128(hi, _mm_srli_epi16(hi, 4)), low);
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(q),
        _mm_xor_si128(_mm_packus_epi16(a, b), _mm_set1_epi8(int8_t(0x88))));
  }
}

void joinQ4_0SSE2(const uint8_t *q, const uint8_t *d, uint64_t n,
                  uint8_t *blocks) {
  const __m128i nib = _mm_set1_epi8(0x0F);
  for (uint64_t i = 0; i < n; ++i, blocks += 18, q += 16, d += 2) {
    std::memcpy(blocks, d, 2);
    // Byte k of even (odd) is qs[2k] (qs[2k + 1]): the low (high) nibble of
    // code bytes k and k + 8, in that order.
    __m128i c =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(q)),
                      _mm_set1_epi8(int8_t(0x88)));
    __m128i a = _mm_and_si128(c, nib),
            b = _mm_and_si128(_mm_srli_epi16(c, 4), nib);
    __m128i even = _mm_or_si128(a, _mm_slli_epi16(_mm_srli_si128(a, 8), 4));
    __m128i odd = _mm_or_si128(b, _mm_slli_epi16(_mm_srli_si128(b, 8), 4));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(blocks + 2),
                     _mm_unpacklo_epi8(even, odd));
  }
}
#endif // VMPACK_PLANAR_SSE2

#if VMPACK_PLANAR_AVX512
// 32 blocks (576 bytes, 9 vectors) per step. Within a 16-bit lane of qs
// bytes 2m, 2m + 1 the nibbles are elements 2m, 2m + 16, 2m + 1, 2m + 17;
// swapping the middle two makes the low byte codes byte m and the high
// byte codes byte m + 8 (and back: the swap is its own inverse). Block i
// starts at an even offset, so the swap runs on whole vectors; byte
// permutations of two neighbouring vectors then gather (or scatter) the 4
// blocks of each 64 bytes of codes, and word permutations the scales.

#define VMPACK_PLANAR_AVX512_TARGET                                            \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))

struct Index64 {
  alignas(64) uint8_t b[64];
};
struct Index32x16 {
  alignas(64) uint16_t w[32];
};

/// Codes vector h (blocks 4h..4h+3) from vectors h and h + 1, which hold
/// the blocks' bytes from 8h on: byte 16i + k is swapped byte 2k (k < 8) or
/// 2(k - 8) + 1 of block 4h + i's qs.
constexpr Index64 splitCodesIndex(unsigned h) {
  Index64 x{};
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned k = 0; k < 16; ++k)
      x.b[16 * i + k] =
          uint8_t(8 * h + 18 * i + 2 + (k < 8 ? 2 * k : 2 * (k - 8) + 1));
  return x;
}
/// The 4 scales of blocks 4h..4h+3, words (8h + 18i) / 2 of vectors h, h+1.
constexpr Index32x16 splitScalesIndex(unsigned h) {
  Index32x16 x{};
  for (unsigned i = 0; i < 4; ++i)
    x.w[i] = uint16_t(4 * h + 9 * i);
  return x;
}
/// Output vector r (bytes 64r..64r+63 of the 32 blocks): codes from
/// swapped codes vectors h0 = 64r / 72 and h0 + 1; scale bytes (mask) from
/// the scales vector.
constexpr Index64 joinCodesIndex(unsigned r) {
  Index64 x{};
  const unsigned h0 = 64 * r / 72;
  for (unsigned b = 0; b < 64; ++b) {
    const unsigned g = 64 * r + b, i = g / 18, off = g % 18;
    x.b[b] = off < 2 ? uint8_t(0)
                     : uint8_t((i / 4 == h0 ? 0 : 64) + 16 * (i % 4) + off - 2);
  }
  return x;
}
constexpr Index64 joinScalesIndex(unsigned r) {
  Index64 x{};
  for (unsigned b = 0; b < 64; ++b) {
    const unsigned g = 64 * r + b, i = g / 18, off = g % 18;
    x.b[b] = off < 2 ? uint8_t(2 * i + off) : uint8_t(0);
  }
  return x;
}
constexpr uint64_t joinScalesMask(unsigned r) {
  uint64_t m = 0;
  for (unsigned b = 0; b < 64; ++b)
    if ((64 * r + b) % 18 < 2)
      m |= uint64_t(1) << b;
  return m;
}
/// Within each block's 16 codes bytes: byte 2m from byte m, 2m + 1 from
/// byte m + 8.
constexpr Index64 joinInterleaveIndex() {
  Index64 x{};
  for (unsigned l = 0; l < 4; ++l)
    for (unsigned m = 0; m < 8; ++m) {
      x.b[16 * l + 2 * m] = uint8_t(m);
      x.b[16 * l + 2 * m + 1] = uint8_t(m + 8);
    }
  return x;
}

template <typename T, typename F, size_t... I>
constexpr std::array<T, sizeof...(I)> tableOf(F f, std::index_sequence<I...>) {
  return {f(unsigned(I))...};
}

constexpr auto kSplitCodes =
    tableOf<Index64>(splitCodesIndex, std::make_index_sequence<8>());
constexpr auto kSplitScales =
    tableOf<Index32x16>(splitScalesIndex, std::make_index_sequence<8>());
constexpr auto kJoinCodes =
    tableOf<Index64>(joinCodesIndex, std::make_index_sequence<9>());
constexpr auto kJoinScales =
    tableOf<Index64>(joinScalesIndex, std::make_index_sequence<9>());
constexpr auto kJoinScalesMask =
    tableOf<uint64_t>(joinScalesMask, std::make_index_sequence<9>());
constexpr Index64 kJoinInterleave = joinInterleaveIndex();

/// Swaps nibbles 1 and 2 of every 16-bit lane.
VMPACK_PLANAR_AVX512_TARGET inline __m512i swapMiddleNibbles(__m512i x) {
  const __m512i t = _mm512_ternarylogic_epi32(x, _mm512_srli_epi16(x, 4),
                                              _mm512_set1_epi16(0x00F0), 0x28);
  return _mm512_ternarylogic_epi32(x, t, _mm512_slli_epi16(t, 4), 0x96);
}

VMPACK_PLANAR_AVX512_TARGET void
splitQ4_0AVX512(const uint8_t *blocks, uint64_t n, uint8_t *q, uint8_t *d) {
  const __m512i flip = _mm512_set1_epi8(int8_t(0x88));
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32, blocks += 576, q += 512, d += 64) {
    __m512i raw[9], sw[9];
    for (unsigned k = 0; k < 9; ++k) {
      raw[k] = _mm512_loadu_si512(blocks + 64 * k);
      sw[k] = swapMiddleNibbles(raw[k]);
    }
    for (unsigned h = 0; h < 8; ++h) {
      const __m512i c = _mm512_permutex2var_epi8(
          sw[h], _mm512_load_si512(kSplitCodes[h].b), sw[h + 1]);
      _mm512_storeu_si512(q + 64 * h, _mm512_xor_si512(c, flip));
      const __m512i s = _mm512_permutex2var_epi16(
          raw[h], _mm512_load_si512(kSplitScales[h].w), raw[h + 1]);
      _mm_storel_epi64(reinterpret_cast<__m128i *>(d + 8 * h),
                       _mm512_castsi512_si128(s));
    }
  }
  splitQ4_0SSE2(blocks, n - i, q, d);
}

VMPACK_PLANAR_AVX512_TARGET void joinQ4_0AVX512(const uint8_t *q,
                                                const uint8_t *d, uint64_t n,
                                                uint8_t *blocks) {
  const __m512i flip = _mm512_set1_epi8(int8_t(0x88));
  const __m512i interleave = _mm512_load_si512(kJoinInterleave.b);
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32, blocks += 576, q += 512, d += 64) {
    __m512i sw[8];
    for (unsigned h = 0; h < 8; ++h)
      sw[h] = swapMiddleNibbles(_mm512_shuffle_epi8(
          _mm512_xor_si512(_mm512_loadu_si512(q + 64 * h), flip), interleave));
    const __m512i scales = _mm512_loadu_si512(d);
    for (unsigned r = 0; r < 9; ++r) {
      const unsigned h0 = 64 * r / 72, h1 = h0 < 7 ? h0 + 1 : 7;
      __m512i o = _mm512_permutex2var_epi8(
          sw[h0], _mm512_load_si512(kJoinCodes[r].b), sw[h1]);
      o = _mm512_mask_permutexvar_epi8(
          o, kJoinScalesMask[r], _mm512_load_si512(kJoinScales[r].b), scales);
      _mm512_storeu_si512(blocks + 64 * r, o);
    }
  }
  joinQ4_0SSE2(q, d, n - i, blocks);
}
#undef VMPACK_PLANAR_AVX512_TARGET
#endif // VMPACK_PLANAR_AVX512

struct Q4_0Kernels {
  void (*split)(const uint8_t *blocks, uint64_t n, uint8_t *q, uint8_t *d);
  void (*join)(const uint8_t *q, const uint8_t *d, uint64_t n, uint8_t *blocks);
};
constexpr Q4_0Kernels kQ4_0Scalar = {splitQ4_0Scalar, joinQ4_0Scalar};
#if VMPACK_PLANAR_SSE2
constexpr Q4_0Kernels kQ4_0SSE2 = {splitQ4_0SSE2, joinQ4_0SSE2};
#else
constexpr Q4_0Kernels kQ4_0SSE2 = kQ4_0Scalar;
#endif
#if VMPACK_PLANAR_AVX512
constexpr Q4_0Kernels kQ4_0AVX512 = {splitQ4_0AVX512, joinQ4_0AVX512};
#else
constexpr Q4_0Kernels kQ4_0AVX512 = kQ4_0SSE2;
#endif
/// Indexed by DispatchLevel (SSE4.1 and AVX2 run the SSE2 kernels).
constexpr Q4_0Kernels kQ4_0Kernels[kNumDispatchLevels] = {
    kQ4_0Scalar, kQ4_0SSE2, kQ4_0SSE2, kQ4_0SSE2, kQ4_0AVX512};

const Q4_0Kernels &q4_0KernelsAt(DispatchLevel level) {
  return kQ4_0Kernels[unsigned(level) < kNumDispatchLevels ? unsigned(level)
                                                           : 0];
}

DispatchLevel activePlanarLevel() {
  static const DispatchLevel level = activeDispatchLevel();
  return level;
}

void splitSimple(DispatchLevel level, uint32_t type, const uint8_t *blocks,
                 uint64_t n, uint8_t *const *parts) {
  uint8_t *q = parts[0], *d = parts[1];
  if (type == kGgmlQ8_0) {
    for (uint64_t i = 0; i < n; ++i, blocks += 34, q += 32, d += 2) {
      std::memcpy(d, blocks, 2);
      std::memcpy(q, blocks + 2, 32);
    }
    return;
  }
  q4_0KernelsAt(level).split(blocks, n, q, d);
}

void joinSimple(DispatchLevel level, uint32_t type, const uint8_t *const *parts,
                uint64_t n, uint8_t *blocks) {
  const uint8_t *q = parts[0], *d = parts[1];
  if (type == kGgmlQ8_0) {
    for (uint64_t i = 0; i < n; ++i, blocks += 34, q += 32, d += 2) {
      std::memcpy(blocks, d, 2);
      std::memcpy(blocks + 2, q, 32);
    }
    return;
  }
  q4_0KernelsAt(level).join(q, d, n, blocks);
}

} // namespace

Status vmpack::quant::ggmlToPlanar(uint32_t type, const uint8_t *blocks,
                                   uint64_t blockCount, uint8_t *const *parts) {
  return ggmlToPlanarAt(activePlanarLevel(), type, blocks, blockCount, parts);
}

Status vmpack::quant::ggmlToPlanarAt(DispatchLevel level, uint32_t type,
                                     const uint8_t *blocks, uint64_t blockCount,
                                     uint8_t *const *parts) {
  if (Status s = checkPlanarType(type); !s)
    return s;
  if (type == kGgmlQ4_0 || type == kGgmlQ8_0) {
    splitSimple(level, type, blocks, blockCount, parts);
    return Status::ok();
  }
  const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
  uint32_t bytes = ggmlBlockBytes(type);
  Fields f{};
  for (uint64_t i = 0; i < blockCount; ++i) {
    unpackBlock(type, blocks + i * bytes, f);
    for (size_t p = 0; p < layout.size(); ++p)
      writePart(layout[p], f, parts[p] + i * layout[p].bytesPerBlock());
  }
  return Status::ok();
}

Status vmpack::quant::planarToGgml(uint32_t type, const uint8_t *const *parts,
                                   uint64_t blockCount, uint8_t *blocks) {
  return planarToGgmlAt(activePlanarLevel(), type, parts, blockCount, blocks);
}

Status vmpack::quant::planarToGgmlAt(DispatchLevel level, uint32_t type,
                                     const uint8_t *const *parts,
                                     uint64_t blockCount, uint8_t *blocks) {
  if (Status s = checkPlanarType(type); !s)
    return s;
  if (type == kGgmlQ4_0 || type == kGgmlQ8_0) {
    joinSimple(level, type, parts, blockCount, blocks);
    return Status::ok();
  }
  const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
  uint32_t bytes = ggmlBlockBytes(type);
  Fields f{};
  for (uint64_t i = 0; i < blockCount; ++i) {
    for (size_t p = 0; p < layout.size(); ++p)
      readPart(layout[p], parts[p] + i * layout[p].bytesPerBlock(), f);
    packBlock(type, f, blocks + i * bytes);
  }
  return Status::ok();
}

Status vmpack::quant::decodeGgmlPlanar(uint32_t type,
                                       const uint8_t *const *parts,
                                       uint64_t blockCount, float *out) {
  if (Status s = checkPlanarType(type); !s)
    return s;
  // Joined a block at a time and decoded by the block decoder: the same
  // float32 operations by construction.
  const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
  uint32_t elems = ggmlBlockElements(type);
  uint8_t block[256];
  std::vector<const uint8_t *> at(parts, parts + layout.size());
  for (uint64_t i = 0; i < blockCount; ++i) {
    if (Status s = planarToGgml(type, at.data(), 1, block); !s)
      return s;
    if (Status s = decodeGgmlBlocks(type, block, 1, out + i * elems); !s)
      return s;
    for (size_t p = 0; p < layout.size(); ++p)
      at[p] += layout[p].bytesPerBlock();
  }
  return Status::ok();
}

// --- Exact repacking of group-quantized weights into ggml types -------------

namespace {

struct IntType {
  bool isSigned;
  uint32_t bits;
};

bool parseIntType(const std::string &t, IntType &out) {
  std::optional<ElementType> e = parseElementType(t);
  if (!e || e->isComplex || !e->scalar.isInteger() ||
      e->scalar.kind == ScalarKind::Index || e->scalar.width == 0 ||
      e->scalar.width > 8)
    return false;
  out.isSigned = e->scalar.kind != ScalarKind::UnsignedInt;
  out.bits = e->scalar.width;
  return true;
}

uint32_t scaleBytes(const std::string &t) {
  return t == "f16" || t == "bf16" ? 2 : t == "f32" ? 4 : 0;
}

float readScale(const std::string &t, const uint8_t *p, uint64_t i) {
  if (t == "f16")
    return ggmlHalfToFloat(load16(p + 2 * i));
  uint32_t bits =
      t == "bf16" ? uint32_t(load16(p + 2 * i)) << 16 : load32(p + 4 * i);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

int32_t readCode(const IntType &t, const uint8_t *p, uint64_t k) {
  uint64_t bit = k * t.bits;
  uint32_t v = 0;
  for (uint32_t i = 0; i < t.bits; ++i, ++bit)
    v |= uint32_t((p[bit / 8] >> (bit % 8)) & 1) << i;
  if (t.isSigned && (v >> (t.bits - 1)) & 1)
    return int32_t(v) - int32_t(1u << t.bits);
  return int32_t(v);
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// The float16 bits of `f` when float16 holds it exactly (as ggml's
/// conversion back gives the same float32 bits).
bool exactHalf(float f, uint16_t &out) {
  uint32_t b = bitsOf(f);
  uint32_t sign = (b >> 16) & 0x8000;
  uint32_t exp = (b >> 23) & 0xFF;
  uint32_t man = b & 0x7FFFFF;
  uint16_t h;
  if (exp == 0xFF)
    h = uint16_t(sign | 0x7C00 | man >> 13);
  else if (exp > 112 && exp < 143)
    h = uint16_t(sign | (exp - 112) << 10 | man >> 13);
  else {
    float m = std::fabs(f) * 0x1p24f;
    if (!(m < 1024.0f))
      return false;
    h = uint16_t(sign | uint32_t(m));
  }
  if (bitsOf(ggmlHalfToFloat(h)) != b)
    return false;
  out = h;
  return true;
}

std::string elementName(const std::vector<int64_t> &shape, uint64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t n = shape[d] > 0 ? shape[d] : 1;
    idx[d] = int64_t(flat % uint64_t(n));
    flat /= uint64_t(n);
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string floatText(float f) {
  std::ostringstream os;
  os.precision(9);
  os << f << " (0x" << std::hex << bitsOf(f) << ")";
  return os.str();
}

Status checkSource(const GroupQuantSource &src, IntType &codeType,
                   uint64_t &rows, uint64_t &k) {
  std::string where = "tensor '" + src.name + "': ";
  if (src.shape.empty())
    return Status::invalidArgument(where + "a quantized weight needs a shape");
  k = uint64_t(src.shape.back());
  rows = 1;
  for (size_t d = 0; d + 1 < src.shape.size(); ++d) {
    if (src.shape[d] < 0)
      return Status::invalidArgument(where + "negative dimension");
    rows *= uint64_t(src.shape[d]);
  }
  if (!parseIntType(src.codeType, codeType))
    return Status::unsupported(where + "codes of type '" + src.codeType +
                               "': expected siN or uiN with N <= 8");
  if (!scaleBytes(src.scaleType))
    return Status::unsupported(where + "scales of type '" + src.scaleType +
                               "': expected f16, bf16 or f32");
  if (src.groupSize == 0 || k % src.groupSize != 0)
    return Status::formatError(where + "the last dimension " +
                               std::to_string(k) +
                               " is not a multiple of "
                               "the group size " +
                               std::to_string(src.groupSize));
  if (!src.codes || !src.scales ||
      (src.offsetKind != OffsetKind::None && !src.offsets))
    return Status::invalidArgument(where + "codes, scales or offsets missing");
  if (src.offsetKind == OffsetKind::SubMinimum)
    return Status::unsupported(where + "subtracted minimums have no "
                                       "group-quantized form here");
  return Status::ok();
}

} // namespace

Status vmpack::quant::decodeGroupQuant(const GroupQuantSource &src,
                                       float *out) {
  IntType ct;
  uint64_t rows, k;
  if (Status s = checkSource(src, ct, rows, k); !s)
    return s;
  uint64_t groups = k / src.groupSize;
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t g = 0; g < groups; ++g) {
      uint64_t gi = r * groups + g;
      float s = readScale(src.scaleType, src.scales, gi);
      int32_t z = src.offsetKind == OffsetKind::ZeroPoint
                      ? readCode(ct, src.offsets, gi)
                      : 0;
      float m = src.offsetKind == OffsetKind::AddMinimum
                    ? readScale(src.scaleType, src.offsets, gi)
                    : 0.0f;
      for (uint64_t e = 0; e < src.groupSize; ++e) {
        uint64_t i = r * k + g * src.groupSize + e;
        int32_t q = readCode(ct, src.codes, i);
        if (src.offsetKind == OffsetKind::AddMinimum)
          out[i] = float(q) * s + m;
        else
          out[i] = float(q - z) * s;
      }
    }
  return Status::ok();
}

Status vmpack::quant::repackToGgml(uint32_t type, const GroupQuantSource &src,
                                   uint8_t *out) {
  std::string where = "tensor '" + src.name + "': ";
  bool withMin;
  uint32_t bits;
  switch (type) {
  case kGgmlQ4_0:
    withMin = false, bits = 4;
    break;
  case kGgmlQ5_0:
    withMin = false, bits = 5;
    break;
  case kGgmlQ8_0:
    withMin = false, bits = 8;
    break;
  case kGgmlQ4_1:
    withMin = true, bits = 4;
    break;
  case kGgmlQ5_1:
    withMin = true, bits = 5;
    break;
  default:
    return Status::unsupported(where + "exact repacking into " +
                               typeLabel(type) +
                               " is not supported (Q4_0, Q4_1, Q5_0, Q5_1 "
                               "and Q8_0 are)");
  }
  IntType ct;
  uint64_t rows, k;
  if (Status s = checkSource(src, ct, rows, k); !s)
    return s;
  if (k % 32 != 0 || src.groupSize % 32 != 0)
    return Status::formatError(
        where + "groups of " + std::to_string(src.groupSize) +
        " along a last dimension of " + std::to_string(k) +
        " do not fill whole 32-element " + typeLabel(type) + " blocks");
  std::string target = typeLabel(type);
  int32_t lo = withMin ? 0 : -(1 << (bits - 1));
  int32_t hi = withMin ? (1 << bits) - 1 : (1 << (bits - 1)) - 1;
  uint32_t blockBytes = ggmlBlockBytes(type);
  uint64_t groups = k / src.groupSize;
  std::vector<float> want(32), got(32);
  Fields f{};
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t b = 0; b < k / 32; ++b) {
      uint64_t gi = r * groups + b * 32 / src.groupSize;
      uint64_t first = r * k + b * 32;
      float s = readScale(src.scaleType, src.scales, gi);
      int32_t z = src.offsetKind == OffsetKind::ZeroPoint
                      ? readCode(ct, src.offsets, gi)
                      : 0;
      float m = src.offsetKind == OffsetKind::AddMinimum
                    ? readScale(src.scaleType, src.offsets, gi)
                    : 0.0f;
      uint16_t dBits, mBits = 0;
      if (!exactHalf(s, dBits))
        return Status::formatError(
            where + "the scale " + floatText(s) + " of element " +
            elementName(src.shape, first) + " is not exact in float16, " +
            "which " + target + " stores; not repacked");
      if ((dBits & 0x7C00) == 0x7C00)
        return Status::formatError(
            where + "the scale " + floatText(s) + " of element " +
            elementName(src.shape, first) + " is " +
            (dBits & 0x3FF ? "NaN" : "infinite") + ", which " + target +
            " forbids (ggml's validation refuses it); not repacked");
      // The minimum a one-level zero point becomes: q*s - z*s.
      float mTarget = src.offsetKind == OffsetKind::AddMinimum ? m
                      : withMin                                ? -(float(z) * s)
                                                               : 0.0f;
      if (withMin && !exactHalf(mTarget, mBits))
        return Status::formatError(
            where + "the minimum " + floatText(mTarget) + " of element " +
            elementName(src.shape, first) +
            " is not exact in float16; not repacked into " + target);
      if (withMin && (mBits & 0x7C00) == 0x7C00)
        return Status::formatError(
            where + "the minimum " + floatText(mTarget) + " of element " +
            elementName(src.shape, first) + " is NaN or infinite, which " +
            target + " forbids; not repacked");
      if (!withMin && src.offsetKind == OffsetKind::AddMinimum &&
          bitsOf(m) != 0)
        return Status::formatError(where + "element " +
                                   elementName(src.shape, first) +
                                   " has the minimum " + floatText(m) +
                                   ", which " + target + " cannot hold");
      for (uint32_t e = 0; e < 32; ++e) {
        int32_t q = readCode(ct, src.codes, first + e);
        int32_t x = withMin ? q : q - z;
        if (x < lo || x > hi)
          return Status::formatError(
              where + "element " + elementName(src.shape, first + e) +
              " has the code " + std::to_string(x) + ", outside " + target +
              "'s " + std::to_string(lo) + ".." + std::to_string(hi) +
              "; not repacked");
        f.q[e] = x;
        want[e] = src.offsetKind == OffsetKind::AddMinimum ? float(q) * s + m
                                                           : float(q - z) * s;
      }
      f.d[0] = dBits;
      f.m = mBits;
      uint8_t *blk = out + (r * (k / 32) + b) * blockBytes;
      packBlock(type, f, blk);
      if (Status st = decodeGgmlBlocks(type, blk, 1, got.data()); !st)
        return st;
      for (uint32_t e = 0; e < 32; ++e)
        if (bitsOf(want[e]) != bitsOf(got[e]))
          return Status::formatError(
              where + "element " + elementName(src.shape, first + e) +
              " would change from " + floatText(want[e]) + " to " +
              floatText(got[e]) + " in " + target + "; not repacked");
    }
  return Status::ok();
}

// --- Validation
// ---------------------------------------------------------------

std::vector<PlanarTensorInfo>
vmpack::quant::planarTensors(uint32_t type, const std::string &name,
                             const std::vector<int64_t> &shape) {
  std::vector<PlanarTensorInfo> out;
  uint32_t block = ggmlBlockElements(type);
  if (!hasGgmlPlanarForm(type) || shape.empty() || shape.back() <= 0 ||
      shape.back() % block != 0)
    return out;
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return out;
    elements *= uint64_t(d);
  }
  for (const PlanarPart &p : ggmlPlanarParts(type))
    out.push_back({name + "." + p.suffix, p.type,
                   planarPartShape(type, p, shape),
                   elements / block * p.bytesPerBlock()});
  return out;
}

Status
vmpack::quant::checkPlanarSet(uint32_t type, const std::string &name,
                              const std::vector<PlanarTensorInfo> &tensors) {
  if (Status s = checkPlanarType(type); !s)
    return s.withContext("tensor '" + name + "': ");
  const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
  std::string label = typeLabel(type);
  auto find = [&](const std::string &full) -> const PlanarTensorInfo * {
    const PlanarTensorInfo *hit = nullptr;
    for (const PlanarTensorInfo &t : tensors)
      if (t.name == full) {
        if (hit)
          return &t; // a second one: reported below
        hit = &t;
      }
    return hit;
  };
  for (const PlanarTensorInfo &t : tensors) {
    if (t.name.compare(0, name.size() + 1, name + ".") != 0)
      continue;
    std::string suffix = t.name.substr(name.size() + 1);
    bool known = false;
    for (const PlanarPart &p : layout)
      known = known || suffix == p.suffix;
    if (!known)
      return Status::formatError("tensor '" + t.name +
                                 "': the planar form "
                                 "of " +
                                 label + " has no part '" + suffix + "'");
    int copies = 0;
    for (const PlanarTensorInfo &u : tensors)
      copies += u.name == t.name;
    if (copies > 1)
      return Status::formatError("tensor '" + t.name + "' appears " +
                                 std::to_string(copies) + " times");
  }
  const PlanarTensorInfo *codes = find(name + ".q");
  if (!codes)
    return Status::formatError("planar " + label + " weight '" + name +
                               "' has no codes tensor '" + name + ".q'");
  const std::vector<int64_t> &shape = codes->shape;
  uint32_t block = ggmlBlockElements(type);
  if (shape.empty() || shape.back() <= 0 || shape.back() % block != 0)
    return Status::formatError(
        "tensor '" + codes->name + "': the last dimension " +
        (shape.empty() ? std::string("(none)") : std::to_string(shape.back())) +
        " is not a positive multiple of " + label + "'s " +
        std::to_string(block) + "-element blocks");
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return Status::formatError("tensor '" + codes->name +
                                 "' has a negative dimension");
    elements *= uint64_t(d);
  }
  uint64_t blocks = elements / block;
  for (const PlanarPart &p : layout) {
    std::string full = name + "." + p.suffix;
    const PlanarTensorInfo *t = find(full);
    if (!t)
      return Status::formatError("tensor '" + codes->name + "' has no '" +
                                 full + "' beside it (the planar form of " +
                                 label + " needs it)");
    if (t->type != p.type)
      return Status::formatError("tensor '" + full + "' is " + t->type +
                                 "; the planar form of " + label +
                                 " stores it as " + p.type);
    std::vector<int64_t> want = planarPartShape(type, p, shape);
    if (t->shape != want) {
      auto text = [](const std::vector<int64_t> &v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
          s += (i ? ", " : "") + std::to_string(v[i]);
        return s + "]";
      };
      return Status::formatError("tensor '" + full + "' has shape " +
                                 text(t->shape) + "; codes of shape " +
                                 text(shape) + " need " + text(want));
    }
    uint64_t bytes = blocks * p.bytesPerBlock();
    if (t->byteLength != bytes)
      return Status::formatError(
          "tensor '" + full + "' holds " + std::to_string(t->byteLength) +
          " bytes; its shape needs " + std::to_string(bytes));
  }
  return Status::ok();
}

Status vmpack::quant::validateGgmlBlocks(uint32_t type, const uint8_t *blocks,
                                         uint64_t blockCount) {
  const GgmlTypeTraits *t = ggmlTypeTraits(type);
  if (!t || t->blockSize == 1)
    return Status::unsupported(typeLabel(type) + " is not a block type");
  // Offsets of the float16 scale fields (ggml_validate_row_data).
  std::vector<uint32_t> halves;
  switch (type) {
  case kGgmlQ4_1:
  case kGgmlQ5_1:
  case kGgmlQ4_K:
  case kGgmlQ5_K:
  case kGgmlQ8_1:
    halves = {0, 2};
    break;
  case kGgmlQ2_K:
    halves = {80, 82};
    break;
  case kGgmlQ3_K:
    halves = {108};
    break;
  case kGgmlQ6_K:
    halves = {208};
    break;
  case kGgmlTQ1_0:
    halves = {52};
    break;
  case kGgmlTQ2_0:
    halves = {64};
    break;
  case kGgmlQ8_K:
  case kGgmlMXFP4:
  case kGgmlNVFP4:
  case kGgmlIQ1_M:
    break;
  default:
    halves = {0};
    break;
  }
  for (uint64_t i = 0; i < blockCount; ++i) {
    const uint8_t *b = blocks + i * t->typeSize;
    std::string where = typeLabel(type) + " block " + std::to_string(i) + ": ";
    auto checkHalf = [&](uint16_t h, const std::string &what) -> Status {
      if ((h & 0x7C00) != 0x7C00)
        return Status::ok();
      return Status::formatError(where + "the float16 " + what + " is " +
                                 ((h & 0x3FF) ? "NaN" : "infinite") + " (0x" +
                                 [&] {
                                   char buf[8];
                                   std::snprintf(buf, sizeof buf, "%04x", h);
                                   return std::string(buf);
                                 }() +
                                 "), which ggml's validation refuses");
    };
    for (uint32_t off : halves)
      if (Status s = checkHalf(load16(b + off),
                               "field at byte " + std::to_string(off));
          !s)
        return s;
    if (type == kGgmlIQ1_M) {
      uint16_t sc[4];
      for (int k = 0; k < 4; ++k)
        sc[k] = load16(b + 48 + 2 * k);
      uint16_t h = uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                            ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
      if (Status s = checkHalf(h, "super-block scale"); !s)
        return s;
    } else if (type == kGgmlQ8_K) {
      if ((load32(b) & 0x7F800000u) == 0x7F800000u)
        return Status::formatError(where +
                                   "the float32 scale is NaN or infinite, "
                                   "which ggml's validation refuses");
    } else if (type == kGgmlMXFP4 && b[0] == 0xFF) {
      return Status::formatError(where + "the E8M0 exponent is 0xff, which "
                                         "ggml's validation refuses");
    }
  }
  return Status::ok();
}
