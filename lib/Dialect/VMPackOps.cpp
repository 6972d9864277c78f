//===- VMPackOps.cpp - vmpack operations ----------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/VMPackOps.h"

#include "vmpack/Dialect/VMPack/PackedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

//===----------------------------------------------------------------------===//
// BitcastOp
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  auto sourceType = cast<TensorType>(getSource().getType());
  auto resultType = cast<TensorType>(getResult().getType());
  if (!sourceType.hasStaticShape() || !resultType.hasStaticShape())
    return emitOpError("requires statically shaped tensors, got ")
           << sourceType << " -> " << resultType;
  if (sourceType == resultType)
    return success();

  // The storage side is the 1-D i8 tensor. When both sides are 1-D i8 and
  // differ, neither can be the packed storage of the other.
  bool sourceIsStorage = isByteStorageType(sourceType);
  bool resultIsStorage = isByteStorageType(resultType);
  if (sourceIsStorage == resultIsStorage)
    return emitOpError("requires exactly one side to be a 1-D i8 storage "
                       "tensor, got ")
           << sourceType << " -> " << resultType;

  TensorType storageType = sourceIsStorage ? sourceType : resultType;
  TensorType logicalType = sourceIsStorage ? resultType : sourceType;
  if (!getPackedElement(logicalType.getElementType()))
    return emitOpError("logical element type ")
           << logicalType.getElementType()
           << " has no packed layout (expected an integer, index, float or "
              "complex type)";
  std::optional<int64_t> packedBytes = getPackedByteSize(logicalType);
  if (!packedBytes)
    return emitOpError("logical type ")
           << logicalType << " is too large to pack";
  if (storageType.getDimSize(0) != *packedBytes)
    return emitOpError("logical type ")
           << logicalType << " packs into " << *packedBytes
           << " bytes, but the storage type " << storageType << " has "
           << storageType.getDimSize(0);
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  // A bitcast to the same type is the identity.
  if (getSource().getType() == getType())
    return getSource();
  // bitcast(bitcast(x)) back to x's type is x.
  if (auto producer = getSource().getDefiningOp<BitcastOp>())
    if (producer.getSource().getType() == getType())
      return producer.getSource();
  return {};
}

#define GET_OP_CLASSES
#include "vmpack/Dialect/VMPack/VMPackOps.cpp.inc"
