//===- Dispatch.h - The kernel tables of every level (internal) -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One table of function pointers per dispatch level, each filled in by the
// translation unit that compiles that level (Kernels*.cpp), and
// kernelsFor()/commonKernels(), which return the active level's entries.
// Dispatch.cpp is the one place that lists the levels.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_PACK_DISPATCH_H
#define VMPACK_LIB_PACK_DISPATCH_H

#include "vmpack/Pack/Dispatch.h"
#include "vmpack/Pack/Encoding.h"

#include <cstdint>

namespace vmpack::detail {

/// The kernels of one width W, as plain function pointers. Buffers hold
/// exactly the bytes of n elements in the named encodings.
struct KernelSet {
  void (*byteToPacked)(const uint8_t *, uint8_t *, uint64_t);
  void (*packedToByte)(const uint8_t *, uint8_t *, uint64_t);
  void (*byteToWord)(const uint8_t *, uint8_t *, uint64_t);
  void (*wordToByte)(const uint8_t *, uint8_t *, uint64_t);
  void (*normalizeByte)(const uint8_t *, uint8_t *, uint64_t);
  void (*readRange)(Encoding, const uint8_t *, uint64_t, uint64_t, uint64_t *);
  /// `packed` to one sign-extended byte per element; only for W <= 8.
  void (*packedToInt8)(const uint8_t *, uint8_t *, uint64_t);
  /// Direct `word` <-> `packed`, where a level has them; when null,
  /// convert() goes through `byte`.
  void (*wordToPacked)(const uint8_t *, uint8_t *, uint64_t);
  void (*packedToWord)(const uint8_t *, uint8_t *, uint64_t);
  /// `packed` to dstBytes-byte integers (W <= 8 * dstBytes), sign-extended
  /// or not, where a level has it for W; when null, unpackToInt reads
  /// 64-bit values first.
  void (*packedToInt)(const uint8_t *, uint8_t *, uint64_t, unsigned dstBytes,
                      bool signExtend);
};

/// One dispatch level: the kernels of W = 1 ... 64 (index 0 unused) and the
/// loops that do not depend on W.
struct LevelKernels {
  KernelSet widths[65];
  void (*signExtend8To16)(const uint8_t *, uint8_t *, uint64_t);
  void (*zeroExtend8To16)(const uint8_t *, uint8_t *, uint64_t);
  /// out[i] = table[in[i]] for a table of 2^tableBits floats (tableBits <=
  /// 8); every in[i] is below 2^tableBits.
  void (*lookupFloat)(const uint8_t *in, const float *table, unsigned tableBits,
                      float *out, uint64_t n);
  /// Little-endian 16-bit patterns to float32 bit patterns shifted left 16.
  void (*bf16ToFloat)(const uint8_t *in, float *out, uint64_t n);
  /// IEEE half to float32 (F16C); null where the level has no instruction
  /// for it.
  void (*halfToFloat)(const uint8_t *in, float *out, uint64_t n);
};

/// Each level's table; levels this build does not carry are not defined.
extern const LevelKernels kPortableKernels;
extern const LevelKernels kSSE2Kernels;
extern const LevelKernels kSSE41Kernels;
extern const LevelKernels kAVX2Kernels;
extern const LevelKernels kAVX512Kernels;

/// The table of `level`, which must be supported.
const LevelKernels &levelKernels(DispatchLevel level);
/// The active level's table (activeDispatchLevel()).
const LevelKernels &commonKernels();
/// The active level's kernels for W in 1 ... 64.
inline const KernelSet &kernelsFor(uint32_t bitWidth) {
  return commonKernels().widths[bitWidth];
}

} // namespace vmpack::detail

#endif // VMPACK_LIB_PACK_DISPATCH_H
