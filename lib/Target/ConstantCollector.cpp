//===- ConstantCollector.cpp - Finding a module's constants ---------------===//

#include "vmpack/Target/ConstantCollector.h"

#include "vmpack/Target/TypeMapping.h"
#include "vmpack/Target/ZeroCopyBytecode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::vmpack;
using ::vmpack::Encoding;

StringRef mlir::vmpack::getLogicalTypeAttrName() {
  return "vmpack.logical_type";
}

Encoding mlir::vmpack::getOriginEncoding(ConstantOrigin origin,
                                         const ::vmpack::ElementType &type) {
  switch (origin) {
  case ConstantOrigin::Dense:
    return ::vmpack::mlirStorageEncoding(type.scalarBits(), type.isComplex);
  case ConstantOrigin::DenseResource:
    return Encoding::Byte;
  case ConstantOrigin::PackedResource:
    return Encoding::Packed;
  }
  return Encoding::Byte;
}

namespace {

/// An op that holds a constant, and which of its attributes is the value.
struct ConstantHolder {
  Operation *op;
  StringAttr valueAttrName;
  ElementsAttr value;
};

std::optional<ConstantHolder> getConstantHolder(Operation *op) {
  if (auto global = dyn_cast<ml_program::GlobalOp>(op)) {
    auto value = dyn_cast_or_null<ElementsAttr>(global.getValueAttr());
    if (!value)
      return std::nullopt;
    return ConstantHolder{op, global.getValueAttrName(), value};
  }
  if (auto global = dyn_cast<memref::GlobalOp>(op)) {
    auto value = dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr());
    if (!value)
      return std::nullopt;
    return ConstantHolder{op, global.getInitialValueAttrName(), value};
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = dyn_cast<ElementsAttr>(constant.getValue());
    if (!value)
      return std::nullopt;
    return ConstantHolder{op, constant.getValueAttrName(), value};
  }
  return std::nullopt;
}

/// Names of arith.constant segments: `<symbol>.cst<k>`, where <symbol> is
/// the nearest enclosing symbol (usually the function) and k counts that
/// symbol's constants in walk order; made unique against every other
/// segment name by a `_<n>` suffix.
class ConstantNamer {
public:
  explicit ConstantNamer(llvm::StringSet<> taken) : taken(std::move(taken)) {}

  std::string nameFor(Operation *op) {
    std::string scope = "module";
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (auto name = parent->getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName())) {
        scope = name.str();
        break;
      }
    }
    std::string base = scope + ".cst" + std::to_string(counters[scope]++);
    std::string name = base;
    for (unsigned n = 1; taken.contains(name); ++n)
      name = base + "_" + std::to_string(n);
    taken.insert(name);
    return name;
  }

private:
  llvm::StringSet<> taken;
  llvm::StringMap<unsigned> counters;
};

LogicalResult describeConstant(const ConstantHolder &holder,
                               const ZeroCopyRegistry *zeroCopy,
                               ConstantInfo &info) {
  Operation *op = holder.op;
  info.op = op;
  info.valueAttrName = holder.valueAttrName;
  info.valueType = cast<ShapedType>(holder.value.getType());
  info.logicalType = info.valueType;
  if (auto memrefGlobal = dyn_cast<memref::GlobalOp>(op))
    info.logicalType = memrefGlobal.getType();

  if (auto logical = op->getAttrOfType<TypeAttr>(getLogicalTypeAttrName())) {
    auto shaped = dyn_cast<ShapedType>(logical.getValue());
    if (!shaped || !shaped.hasStaticShape())
      return op->emitError() << "'" << getLogicalTypeAttrName()
                             << "' must be a statically shaped type, got "
                             << logical.getValue();
    info.logicalType = shaped;
  }
  if (!info.valueType.hasStaticShape() || !info.logicalType.hasStaticShape())
    return op->emitError() << "constant of dynamically shaped type "
                           << info.logicalType << " cannot be serialized";

  auto elementType = getPackElementType(info.logicalType.getElementType());
  if (!elementType)
    return op->emitError() << "element type "
                           << info.logicalType.getElementType()
                           << " is not supported (supported: integers, index, "
                              "floats and complex of those)";
  info.elementType = *elementType;
  info.numScalars = uint64_t(info.logicalType.getNumElements()) *
                    elementType->scalarsPerElement();
  uint32_t bitWidth = elementType->scalarBits();

  std::optional<uint64_t> expectedSize;
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(holder.value)) {
    info.origin = ConstantOrigin::Dense;
    info.data = dense.getRawData();
    info.isSplat = dense.isSplat();
    info.sourceEncoding = getOriginEncoding(info.origin, *elementType);
    expectedSize = info.isSplat
                       ? ::vmpack::encodedSize(info.sourceEncoding, bitWidth,
                                               elementType->scalarsPerElement())
                       : ::vmpack::encodedSize(info.sourceEncoding, bitWidth,
                                               info.numScalars);
    // MLIR stores an i1 splat as one byte, 0x00 or 0xFF.
    if (info.isSplat && bitWidth == 1 && !elementType->isComplex)
      expectedSize = 1;
  } else if (auto resource =
                 dyn_cast<DenseResourceElementsAttr>(holder.value)) {
    DenseResourceElementsHandle handle = resource.getRawHandle();
    info.resourceKey = handle.getKey().str();
    AsmResourceBlob *blob = handle.getBlob();
    if (!blob)
      return op->emitError() << "dense_resource '" << handle.getKey()
                             << "' has no data (the resource is elided or "
                                "missing from the input's dialect_resources)";
    info.data = blob->getData();
    info.resourceAlignment = uint32_t(blob->getDataAlignment());
    if (zeroCopy && zeroCopy->isZeroCopyDense(handle.getKey()))
      info.origin = ConstantOrigin::Dense;
    else if (op->hasAttr(getLogicalTypeAttrName()))
      info.origin = ConstantOrigin::PackedResource;
    else
      info.origin = ConstantOrigin::DenseResource;
    info.sourceEncoding = getOriginEncoding(info.origin, *elementType);
    expectedSize =
        ::vmpack::encodedSize(info.sourceEncoding, bitWidth, info.numScalars);
  } else {
    return op->emitError()
           << "constant of type " << holder.value.getType() << " is a '"
           << Attribute(holder.value).getAbstractAttribute().getName()
           << "' attribute; only dense<...> and dense_resource<...> elements "
              "can be serialized";
  }
  if (!expectedSize)
    return op->emitError() << "constant of type " << info.logicalType
                           << " is too large to serialize";
  if (info.data.size() != *expectedSize) {
    InFlightDiagnostic diag = op->emitError();
    if (!info.resourceKey.empty())
      diag << "dense_resource '" << info.resourceKey << "' holds ";
    else
      diag << "constant holds ";
    diag << info.data.size() << " bytes but type " << info.logicalType
         << " needs " << *expectedSize << " bytes in the '"
         << ::vmpack::encodingName(info.sourceEncoding) << "' layout";
    return diag;
  }
  return success();
}

} // namespace

FailureOr<SmallVector<ConstantInfo>>
mlir::vmpack::collectConstants(ModuleOp module,
                               const ZeroCopyRegistry *zeroCopy) {
  SmallVector<ConstantHolder> holders;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto holder = getConstantHolder(op))
      holders.push_back(*holder);
  });

  llvm::StringSet<> globalNames;
  for (const ConstantHolder &holder : holders)
    if (!isa<arith::ConstantOp>(holder.op))
      globalNames.insert(SymbolTable::getSymbolName(holder.op).getValue());
  ConstantNamer namer(globalNames);

  SmallVector<ConstantInfo> constants;
  constants.reserve(holders.size());
  bool anyFailed = false;
  for (const ConstantHolder &holder : holders) {
    ConstantInfo info;
    if (failed(describeConstant(holder, zeroCopy, info))) {
      anyFailed = true;
      continue;
    }
    info.segmentName =
        isa<arith::ConstantOp>(holder.op)
            ? namer.nameFor(holder.op)
            : SymbolTable::getSymbolName(holder.op).getValue().str();
    constants.push_back(std::move(info));
  }
  if (anyFailed)
    return failure();
  return constants;
}
