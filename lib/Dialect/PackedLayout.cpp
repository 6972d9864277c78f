//===- PackedLayout.cpp - MLIR types in the `packed` encoding -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/PackedLayout.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

std::optional<PackedElement>
mlir::vmpack_compiler::getPackedElement(Type elementType) {
  unsigned scalars = 1;
  if (auto complex = dyn_cast<ComplexType>(elementType)) {
    elementType = complex.getElementType();
    scalars = 2;
  }
  if (auto integer = dyn_cast<IntegerType>(elementType))
    return PackedElement{integer.getWidth(), scalars};
  if (isa<IndexType>(elementType))
    return PackedElement{64, scalars};
  // FloatType::getWidth() is the format's width in bits (19 for tf32).
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return PackedElement{floatType.getWidth(), scalars};
  return std::nullopt;
}

vmpack::Encoding
mlir::vmpack_compiler::getMlirStorageEncoding(PackedElement element) {
  if (element.scalarsPerElement > 1)
    return vmpack::Encoding::Byte;
  return vmpack::mlirStorageEncoding(element.bitWidth);
}

bool mlir::vmpack_compiler::isSubByteElementType(Type elementType) {
  std::optional<PackedElement> element = getPackedElement(elementType);
  return element && element->bitWidth % 8 != 0;
}

std::optional<uint64_t> mlir::vmpack_compiler::getNumScalars(ShapedType type) {
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<PackedElement> element =
      getPackedElement(type.getElementType());
  if (!element)
    return std::nullopt;
  uint64_t count = element->scalarsPerElement;
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
      getPackedElement(type.getElementType())->bitWidth, *scalars);
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
