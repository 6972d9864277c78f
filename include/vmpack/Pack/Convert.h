//===- Convert.h - Converting between encodings -----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bulk kernels: convert a run of W-bit elements from one encoding to
// another, and widen elements into plain integer or float arrays.
//
// Sources may carry garbage in bits that are not part of an element (MLIR
// does not mask the unused high bits of sub-byte elements); every kernel
// ignores them, and every output has all such bits zero.
//
// Each entry point exists twice: in namespace vmpack (fast kernels, of the
// dispatch level Dispatch.h chooses) and in namespace vmpack::reference (one
// element, one bit at a time; obviously right and slow). Tests cross-check
// the two at every dispatch level.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PACK_CONVERT_H
#define VMPACK_PACK_CONVERT_H

#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace vmpack {

/// Converts `numElements` W-bit elements from `src` in encoding `from` to
/// `dst` in encoding `to`. `dst` must hold encodedSize(to, W, numElements)
/// bytes and must not overlap `src`; both encodings must be encodable for W.
/// To convert a slice of a larger tensor, start it at a multiple of
/// elementGranule(W) and offset both pointers by granuleByteOffset().
void convert(Encoding from, Encoding to, uint32_t bitWidth, const void *src,
             void *dst, uint64_t numElements);

/// Reads element `index` as an unsigned W-bit value (W <= 64).
uint64_t readElement(Encoding encoding, uint32_t bitWidth, const void *src,
                     uint64_t index);

/// Widens elements [first, first + count) into `dst`, an array of
/// `dstBytes`-byte little-endian integers (1, 2, 4 or 8), sign-extending
/// when `signExtend` is set and zero-extending otherwise. Requires
/// W <= 8 * dstBytes.
void unpackToInt(Encoding encoding, uint32_t bitWidth, bool signExtend,
                 const void *src, uint64_t first, uint64_t count, void *dst,
                 unsigned dstBytes);

/// Decodes float elements [first, first + count) of `kind` (at most 32 bits)
/// into float32 values. Every value of the formats listed in
/// ElementType.h converts exactly; every NaN encoding gives a NaN.
void unpackToFloat32(Encoding encoding, ScalarKind kind, const void *src,
                     uint64_t first, uint64_t count, float *dst);

/// Decodes one float bit pattern of `format` to float32.
float decodeFloat(const FloatFormat &format, uint32_t bits);

/// The inverse of decodeFloat where one exists: the bit pattern of `format`
/// that decodes to exactly `value`, or nullopt when `format` has no such
/// value (it would have to round, or it is out of range, or it is an
/// infinity of a format without one, or 0 in f8E8M0FNU). Any NaN gives
/// the format's NaN: exponent all ones and the top mantissa bit for
/// IEEE-like formats, all ones but the sign for "FN" formats, the sign bit
/// alone for "FNUZ" formats; nullopt where the format has none. -0.0 gives
/// +0 in a format without a negative zero ("FNUZ"), whose 0 equals it.
std::optional<uint32_t> encodeFloat(const FloatFormat &format, float value);

namespace reference {
void convert(Encoding from, Encoding to, uint32_t bitWidth, const void *src,
             void *dst, uint64_t numElements);
uint64_t readElement(Encoding encoding, uint32_t bitWidth, const void *src,
                     uint64_t index);
void unpackToInt(Encoding encoding, uint32_t bitWidth, bool signExtend,
                 const void *src, uint64_t first, uint64_t count, void *dst,
                 unsigned dstBytes);
/// Reads each element alone and decodes it with decodeFloat.
void unpackToFloat32(Encoding encoding, ScalarKind kind, const void *src,
                     uint64_t first, uint64_t count, float *dst);
} // namespace reference

} // namespace vmpack

#endif // VMPACK_PACK_CONVERT_H
