//===- VMPackDialect.cpp - The vmpack dialect -----------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "vmpack/Dialect/VMPack/PackedLayout.h"
#include "vmpack/Dialect/VMPack/VMPackAttrs.h"
#include "vmpack/Dialect/VMPack/VMPackOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

#include "vmpack/Dialect/VMPack/VMPackDialect.cpp.inc"

void VMPackDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "vmpack/Dialect/VMPack/VMPackOps.cpp.inc"
      >();
  registerAttributes();
}

/// The type an op stores its value as: the type of its single result (e.g.
/// arith.constant), or its `type` attribute (ml_program.global,
/// memref.global). Null when the op has neither.
static ShapedType getStorageType(Operation *op) {
  if (op->getNumResults() == 1)
    return dyn_cast<ShapedType>(op->getResult(0).getType());
  if (auto typeAttr = op->getAttrOfType<TypeAttr>("type"))
    return dyn_cast<ShapedType>(typeAttr.getValue());
  return {};
}

LogicalResult VMPackDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == getMetadataAttrName()) {
    auto pairs = dyn_cast<ArrayAttr>(attr.getValue());
    auto isPair = [](Attribute a) {
      auto pair = dyn_cast<ArrayAttr>(a);
      return pair && pair.size() == 2 && isa<StringAttr>(pair[0]) &&
             isa<StringAttr>(pair[1]);
    };
    if (!pairs || !llvm::all_of(pairs, isPair))
      return op->emitError() << "'" << getMetadataAttrName()
                             << "' must be an array of [key, value] string "
                                "pairs";
    return success();
  }
  if (attr.getName() == getGgmlTypeAttrName()) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError() << "'" << getGgmlTypeAttrName()
                             << "' must be an integer (a ggml_type)";
    return success();
  }
  if (attr.getName() == getGgmlShapeAttrName()) {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()))
      return op->emitError() << "'" << getGgmlShapeAttrName()
                             << "' must be an array<i64: ...> shape";
    return success();
  }
  if (attr.getName() == getEncodingAttrName()) {
    if (!isa<EncodingAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getEncodingAttrName()
             << "' must be a #vmpack.encoding<...>, got " << attr.getValue();
    return success();
  }
  if (attr.getName() != getLogicalTypeAttrName())
    return op->emitError() << "unknown vmpack attribute '"
                           << attr.getName().getValue() << "'";

  auto typeAttr = dyn_cast<TypeAttr>(attr.getValue());
  auto logicalType =
      typeAttr ? dyn_cast<ShapedType>(typeAttr.getValue()) : ShapedType();
  if (!logicalType || !logicalType.hasStaticShape())
    return op->emitError() << "'" << getLogicalTypeAttrName()
                           << "' must be a statically shaped type, got "
                           << attr.getValue();
  std::optional<int64_t> packedBytes = getPackedByteSize(logicalType);
  if (!packedBytes)
    return op->emitError() << "'" << getLogicalTypeAttrName() << "' type "
                           << logicalType
                           << " has no packed layout (unsupported element "
                              "type or too many elements)";

  ShapedType storageType = getStorageType(op);
  if (!storageType)
    return op->emitError() << "'" << getLogicalTypeAttrName()
                           << "' needs an op with one shaped result or a "
                              "shaped 'type' attribute";
  if (!isByteStorageType(storageType) ||
      storageType.getDimSize(0) != *packedBytes)
    return op->emitError() << "'" << getLogicalTypeAttrName() << "' "
                           << logicalType << " is stored in " << *packedBytes
                           << " packed bytes, but the op's storage type is "
                           << storageType << " (expected a 1-D i8 type of "
                           << *packedBytes << " elements)";
  return success();
}
