//===- PackedLayout.cpp - MLIR types in the `packed` encoding -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/PackedLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

/// The scalar kind of an MLIR float type, or nullopt for a float type
/// vmpack does not model (one from outside the builtin dialect).
static std::optional<vmpack::ScalarKind> getFloatKind(FloatType type) {
  using vmpack::ScalarKind;
  return llvm::TypeSwitch<Type, std::optional<ScalarKind>>(type)
      .Case([](Float4E2M1FNType) { return ScalarKind::F4E2M1FN; })
      .Case([](Float6E2M3FNType) { return ScalarKind::F6E2M3FN; })
      .Case([](Float6E3M2FNType) { return ScalarKind::F6E3M2FN; })
      .Case([](Float8E5M2Type) { return ScalarKind::F8E5M2; })
      .Case([](Float8E4M3Type) { return ScalarKind::F8E4M3; })
      .Case([](Float8E4M3FNType) { return ScalarKind::F8E4M3FN; })
      .Case([](Float8E5M2FNUZType) { return ScalarKind::F8E5M2FNUZ; })
      .Case([](Float8E4M3FNUZType) { return ScalarKind::F8E4M3FNUZ; })
      .Case([](Float8E4M3B11FNUZType) { return ScalarKind::F8E4M3B11FNUZ; })
      .Case([](Float8E3M4Type) { return ScalarKind::F8E3M4; })
      .Case([](Float8E8M0FNUType) { return ScalarKind::F8E8M0FNU; })
      .Case([](BFloat16Type) { return ScalarKind::BF16; })
      .Case([](Float16Type) { return ScalarKind::F16; })
      .Case([](FloatTF32Type) { return ScalarKind::TF32; })
      .Case([](Float32Type) { return ScalarKind::F32; })
      .Case([](Float64Type) { return ScalarKind::F64; })
      .Case([](Float80Type) { return ScalarKind::F80; })
      .Case([](Float128Type) { return ScalarKind::F128; })
      .Default([](Type) { return std::nullopt; });
}

/// The scalar model of an integer, index or float type.
static std::optional<vmpack::ScalarType> getScalar(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    vmpack::ScalarKind kind = integer.isSigned() ? vmpack::ScalarKind::SignedInt
                              : integer.isUnsigned()
                                  ? vmpack::ScalarKind::UnsignedInt
                                  : vmpack::ScalarKind::SignlessInt;
    return vmpack::ScalarType{kind, integer.getWidth()};
  }
  if (isa<IndexType>(type))
    return vmpack::ScalarType{vmpack::ScalarKind::Index,
                              vmpack::impliedWidth(vmpack::ScalarKind::Index)};
  if (auto floatType = dyn_cast<FloatType>(type))
    if (std::optional<vmpack::ScalarKind> kind = getFloatKind(floatType))
      return vmpack::ScalarType::floatKind(*kind);
  return std::nullopt;
}

std::optional<vmpack::ElementType>
mlir::vmpack_compiler::getPackedElement(Type elementType) {
  bool isComplex = false;
  if (auto complex = dyn_cast<ComplexType>(elementType)) {
    elementType = complex.getElementType();
    isComplex = true;
  }
  std::optional<vmpack::ScalarType> scalar = getScalar(elementType);
  if (!scalar)
    return std::nullopt;
  return vmpack::ElementType{*scalar, isComplex};
}

vmpack::Encoding mlir::vmpack_compiler::getMlirStorageEncoding(
    const vmpack::ElementType &element) {
  return vmpack::mlirStorageEncoding(element.scalarBits(), element.isComplex);
}

bool mlir::vmpack_compiler::isSubByteElementType(Type elementType) {
  std::optional<vmpack::ElementType> element = getPackedElement(elementType);
  return element && element->scalarBits() % 8 != 0;
}

std::optional<uint64_t> mlir::vmpack_compiler::getNumScalars(ShapedType type) {
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<vmpack::ElementType> element =
      getPackedElement(type.getElementType());
  if (!element)
    return std::nullopt;
  uint64_t count = element->scalarsPerElement();
  for (int64_t dim : type.getShape()) {
    // Static dimensions are non-negative; guard the product against overflow.
    auto extent = static_cast<uint64_t>(dim);
    if (extent != 0 && count > UINT64_MAX / extent)
      return std::nullopt;
    count *= extent;
  }
  return count;
}

std::optional<int64_t>
mlir::vmpack_compiler::getPackedByteSize(ShapedType type) {
  std::optional<uint64_t> scalars = getNumScalars(type);
  if (!scalars)
    return std::nullopt;
  std::optional<uint64_t> bytes = vmpack::encodedSize(
      vmpack::Encoding::Packed,
      getPackedElement(type.getElementType())->scalarBits(), *scalars);
  if (!bytes || *bytes > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return static_cast<int64_t>(*bytes);
}

bool mlir::vmpack_compiler::isByteStorageType(ShapedType type) {
  return type && type.hasRank() && type.getRank() == 1 &&
         type.hasStaticShape() && type.getElementType().isSignlessInteger(8);
}

RankedTensorType
mlir::vmpack_compiler::getPackedStorageTensorType(ShapedType logicalType) {
  std::optional<int64_t> bytes = getPackedByteSize(logicalType);
  if (!bytes)
    return {};
  return RankedTensorType::get({*bytes},
                               IntegerType::get(logicalType.getContext(), 8));
}
