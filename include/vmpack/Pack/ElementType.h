//===- ElementType.h - Element types vmpack can pack ------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The element model of docs/packing.md: every element is a W-bit pattern.
// This header knows the scalar types of MLIR 22 by name and width, without
// depending on MLIR, so that the archive and the runtime can describe and
// decode elements on a machine that carries no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PACK_ELEMENTTYPE_H
#define VMPACK_PACK_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vmpack {

/// The scalar kinds. The numeric values are stored in module indexes
/// (docs/format.md): append only, never renumber.
enum class ScalarKind : uint8_t {
  SignlessInt = 0, ///< iN: two's complement, read as signed when widened.
  SignedInt = 1,   ///< siN
  UnsignedInt = 2, ///< uiN
  Index = 3,       ///< index, stored as 64 bits
  F4E2M1FN = 10,
  F6E2M3FN = 11,
  F6E3M2FN = 12,
  F8E5M2 = 13,
  F8E4M3 = 14,
  F8E4M3FN = 15,
  F8E5M2FNUZ = 16,
  F8E4M3FNUZ = 17,
  F8E4M3B11FNUZ = 18,
  F8E3M4 = 19,
  F8E8M0FNU = 20,
  BF16 = 21,
  F16 = 22,
  TF32 = 23,
  F32 = 24,
  F64 = 25,
  F80 = 26,
  F128 = 27,
};

/// A scalar type: kind plus width in bits. For floats and index the width is
/// implied by the kind; for integers it is 1 ... 2^24-1 as in MLIR.
struct ScalarType {
  ScalarKind kind = ScalarKind::SignlessInt;
  uint32_t width = 0;

  bool isInteger() const { return kind <= ScalarKind::Index; }
  bool isFloat() const { return !isInteger(); }
  /// Whether widening to a larger integer sign-extends. Signless integers are
  /// two's complement values, as MLIR prints them.
  bool isSignExtended() const {
    return kind == ScalarKind::SignlessInt || kind == ScalarKind::SignedInt ||
           kind == ScalarKind::Index;
  }
  bool operator==(const ScalarType &o) const {
    return kind == o.kind && width == o.width;
  }
  bool operator!=(const ScalarType &o) const { return !(*this == o); }

  static ScalarType integer(uint32_t width) {
    return {ScalarKind::SignlessInt, width};
  }
  static ScalarType floatKind(ScalarKind kind);
};

/// An element type: a scalar, or complex<scalar>. A complex element is two
/// consecutive scalars (real, imaginary) in every encoding.
struct ElementType {
  ScalarType scalar;
  bool isComplex = false;

  /// Scalars per element: 1, or 2 for complex.
  unsigned scalarsPerElement() const { return isComplex ? 2 : 1; }
  /// W, the bit width of one packed scalar.
  uint32_t scalarBits() const { return scalar.width; }
  bool operator==(const ElementType &o) const {
    return scalar == o.scalar && isComplex == o.isComplex;
  }
};

/// The width implied by a float or index kind; 0 for integer kinds.
uint32_t impliedWidth(ScalarKind kind);

/// MLIR's spelling: "i4", "si3", "ui7", "index", "f8E4M3FN", "bf16", ...
std::string toString(ScalarType type);
std::string toString(ElementType type);

/// Parses MLIR's spelling of a scalar or complex element type.
std::optional<ElementType> parseElementType(std::string_view text);

/// Layout of a binary floating-point format, for decoding to float32.
struct FloatFormat {
  uint8_t exponentBits;
  uint8_t mantissaBits;
  int16_t bias;
  bool hasSign;
  /// IEEE-like: all-ones exponent means Inf (mantissa 0) or NaN.
  bool hasInfAndNaN;
  /// "FN": no Inf; NaN is all ones (exponent and mantissa); none if false.
  bool nanIsAllOnes;
  /// "FNUZ": no Inf, no negative zero; NaN is the sign bit alone.
  bool nanIsNegativeZero;
};

/// The layout of a float kind of at most 32 bits, or nullopt.
std::optional<FloatFormat> floatFormat(ScalarKind kind);

} // namespace vmpack

#endif // VMPACK_PACK_ELEMENTTYPE_H
