//===- Encoding.h - The three storage encodings -----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// docs/packing.md defines three ways to lay n W-bit elements out in bytes:
// `packed` (a dense little-endian bit stream), `word` (IREE's VM rodata
// layout: elements packed into power-of-two words), and `byte` (each element
// zero-extended to whole little-endian bytes). This header gives their
// sizes and the element granule at which a long tensor can be cut into
// independently converted chunks.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PACK_ENCODING_H
#define VMPACK_PACK_ENCODING_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace vmpack {

/// The numeric values are stored in module indexes: append only.
enum class Encoding : uint8_t {
  Packed = 0,
  Word = 1,
  Byte = 2,
};

/// "packed", "word" or "byte".
const char *encodingName(Encoding encoding);
std::optional<Encoding> parseEncoding(std::string_view name);

/// Whether `encoding` is defined for W-bit elements. `packed` and `byte` are
/// defined for every W >= 1; `word` for W <= 64 or W a multiple of 8.
bool isEncodable(Encoding encoding, uint32_t bitWidth);

/// Geometry of the `word` encoding for W-bit elements.
struct WordLayout {
  uint32_t wordBits;        ///< P: 8, 16, 32 or 64 (or W when W % 8 == 0).
  uint32_t elementsPerWord; ///< E = floor(P / W).
};
/// Word layout for W; only meaningful when isEncodable(Word, W).
WordLayout wordLayout(uint32_t bitWidth);

/// The exact size in bytes of n W-bit elements, or nullopt when the encoding
/// is not defined for W or the size does not fit in 64 bits.
std::optional<uint64_t> encodedSize(Encoding encoding, uint32_t bitWidth,
                                    uint64_t numElements);

/// The smallest element count g such that every multiple of g starts on a
/// byte boundary in all three encodings (and on a word boundary in `word`).
/// Converting [k*g, (k+1)*g) chunks independently gives the same bytes as
/// converting the whole range.
uint64_t elementGranule(uint32_t bitWidth);

/// Byte offset of element `index` in `encoding`; `index` must be a multiple
/// of elementGranule(bitWidth).
uint64_t granuleByteOffset(Encoding encoding, uint32_t bitWidth,
                           uint64_t index);

/// How MLIR 22 stores W-bit scalars in memory (DenseElementsAttr raw data
/// and dense elements in bytecode): a packed bitmask for i1, otherwise one
/// scalar per ceil(W/8) little-endian bytes. Complex elements always take
/// whole bytes per scalar (complex<i1> is two bytes). MLIR 23 changes i1 to
/// one byte per element; this is the one place that knows.
Encoding mlirStorageEncoding(uint32_t bitWidth, bool isComplex = false);

/// Bytes of a splat's one element in MLIR 22 storage: an i1 splat is one
/// byte, 0x00 or 0xFF; any other splat is one element in
/// mlirStorageEncoding (two scalars for complex).
uint64_t mlirSplatStorageSize(uint32_t bitWidth, bool isComplex = false);

/// Expands a splat held as its one element of MLIR storage (`splat`,
/// mlirSplatStorageSize bytes) into scalars [firstScalar, firstScalar +
/// count) of the whole tensor in `byte` layout. For complex elements the
/// scalars alternate real, imaginary.
void expandMlirSplat(const uint8_t *splat, uint32_t bitWidth, bool isComplex,
                     uint64_t firstScalar, uint64_t count, uint8_t *out);

} // namespace vmpack

#endif // VMPACK_PACK_ENCODING_H
