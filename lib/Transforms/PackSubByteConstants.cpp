//===- PackSubByteConstants.cpp - Sub-byte constants as packed blobs ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// --vmpack-pack-subbyte-constants: stores every sub-byte constant of
// arith.constant, tosa.const, ml_program.global and memref.global as a
// dense_resource
// blob of packed bytes (docs/packing.md), keeping its logical type in
// `vmpack.logical_type` and reaching it through `vmpack.bitcast`.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Transforms/Passes.h"

#include "vmpack/Dialect/VMPack/ConstantNames.h"
#include "vmpack/Dialect/VMPack/PackedLayout.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Dialect/VMPack/VMPackOps.h"
#include "vmpack/Transforms/PackElements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::vmpack_compiler {
#define GEN_PASS_DEF_PACKSUBBYTECONSTANTSPASS
#include "vmpack/Transforms/Passes.h.inc"
} // namespace mlir::vmpack_compiler

using namespace mlir;
using namespace mlir::vmpack_compiler;

namespace {

constexpr llvm::StringLiteral kArithConstant = "arith.constant";
constexpr llvm::StringLiteral kTosaConst = "tosa.const";
constexpr llvm::StringLiteral kMLProgramGlobal = "ml_program.global";
constexpr llvm::StringLiteral kMemRefGlobal = "memref.global";

struct PackSubByteConstantsPass
    : public mlir::vmpack_compiler::impl::PackSubByteConstantsPassBase<
          PackSubByteConstantsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    enabledOps.clear();
    for (const std::string &name : ops) {
      if (name != kArithConstant && name != kTosaConst &&
          name != kMLProgramGlobal && name != kMemRefGlobal)
        return emitError(UnknownLoc::get(context))
               << "vmpack-pack-subbyte-constants: unknown op kind '" << name
               << "' in 'ops'; expected a list of " << kArithConstant << ", "
               << kTosaConst << ", " << kMLProgramGlobal << ", "
               << kMemRefGlobal;
      enabledOps.insert(name);
    }
    return success();
  }

  void runOnOperation() override;

private:
  bool isEnabled(StringRef opName) const {
    return enabledOps.empty() || enabledOps.contains(opName);
  }

  /// Whether a constant of `type` holding `value` is packed: a static shape
  /// of at least min-elements elements of a sub-byte type, and a payload
  /// this pass can read.
  bool shouldPack(Type type, Attribute value) const;

  /// Packs `value` into a new dense_resource blob over tensor<Nxi8> named
  /// after `key`; reports failures at `op`.
  FailureOr<DenseResourceElementsAttr>
  packToResource(Operation *op, ElementsAttr value, StringRef key) const;

  /// A constant op: one tensor result whose type is that of its value
  /// attribute `valueName` (arith.constant's `value`, tosa.const's
  /// `values`). Its resource key is the next of `keys`.
  LogicalResult packConstant(Operation *op, StringRef valueName,
                             DerivedConstantNamer &keys);
  LogicalResult packGlobal(ml_program::GlobalOp global,
                           const SymbolUserMap &users);
  LogicalResult packGlobal(memref::GlobalOp global, const SymbolUserMap &users);

  llvm::StringSet<> enabledOps;
};

} // namespace

/// Whether `op` holds a sub-byte elements attribute, as an attribute or in
/// the properties of an unregistered op.
static bool holdsSubByteConstant(Operation *op) {
  auto isSubByte = [](Attribute attr) {
    auto elements = dyn_cast<ElementsAttr>(attr);
    return elements &&
           isSubByteElementType(
               cast<ShapedType>(elements.getType()).getElementType());
  };
  for (NamedAttribute attr : op->getAttrs())
    if (isSubByte(attr.getValue()))
      return true;
  if (!op->isRegistered())
    if (auto properties =
            dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
      for (NamedAttribute attr : properties)
        if (isSubByte(attr.getValue()))
          return true;
  return false;
}

/// Whether `op` already went through the pass.
static bool isAlreadyPacked(Operation *op) {
  return op->hasAttr(VMPackDialect::getLogicalTypeAttrName());
}

static void setLogicalType(Operation *op, Type logicalType) {
  op->setAttr(VMPackDialect::getLogicalTypeAttrName(),
              TypeAttr::get(logicalType));
}

bool PackSubByteConstantsPass::shouldPack(Type type, Attribute value) const {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !isSubByteElementType(shaped.getElementType()))
    return false;
  if (shaped.getNumElements() < std::max<int64_t>(minElements, 1))
    return false;
  // The payload must describe exactly the elements of `type` (a global's
  // initial value has the tensor form of a memref type).
  if (!isPackableElementsAttr(value))
    return false;
  auto valueType = cast<ShapedType>(cast<TypedAttr>(value).getType());
  return valueType.getShape() == shaped.getShape() &&
         valueType.getElementType() == shaped.getElementType();
}

FailureOr<DenseResourceElementsAttr>
PackSubByteConstantsPass::packToResource(Operation *op, ElementsAttr value,
                                         StringRef key) const {
  auto logicalType = cast<ShapedType>(value.getType());
  FailureOr<AsmResourceBlob> blob = packElements(value, op->getLoc());
  if (failed(blob))
    return failure();
  // The blob manager makes `key` unique in the context if it is taken.
  return DenseResourceElementsAttr::get(getPackedStorageTensorType(logicalType),
                                        key, std::move(*blob));
}

LogicalResult
PackSubByteConstantsPass::packConstant(Operation *op, StringRef valueName,
                                       DerivedConstantNamer &keys) {
  // vmpack.bitcast is tensor-only, so vector constants stay as they are.
  if (op->getNumResults() != 1)
    return success();
  Value result = op->getResult(0);
  auto logicalType = dyn_cast<RankedTensorType>(result.getType());
  Attribute value = op->getAttr(valueName);
  if (!logicalType || !value || isAlreadyPacked(op) ||
      !shouldPack(logicalType, value) ||
      cast<TypedAttr>(value).getType() != logicalType)
    return success();

  FailureOr<DenseResourceElementsAttr> resource =
      packToResource(op, cast<ElementsAttr>(value), keys.next(op));
  if (failed(resource))
    return failure();

  // Rewrite in place, so that the op keeps its name, location and any other
  // attribute; then route every use through a bitcast.
  op->setAttr(valueName, *resource);
  result.setType(resource->getType());
  setLogicalType(op, logicalType);
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  auto bitcast = BitcastOp::create(builder, op->getLoc(), logicalType, result);
  result.replaceAllUsesExcept(bitcast.getResult(), bitcast);
  return success();
}

LogicalResult PackSubByteConstantsPass::packGlobal(ml_program::GlobalOp global,
                                                   const SymbolUserMap &users) {
  auto logicalType = dyn_cast<RankedTensorType>(global.getType());
  std::optional<Attribute> value = global.getValue();
  if (!logicalType || !value || isAlreadyPacked(global) ||
      !shouldPack(logicalType, *value) ||
      cast<TypedAttr>(*value).getType() != logicalType)
    return success();

  // Every user must be an op this pass knows how to route through a
  // bitcast; anything else keeps the global as it is.
  ArrayRef<Operation *> globalUsers = users.getUsers(global);
  for (Operation *user : globalUsers)
    if (!isa<ml_program::GlobalLoadOp, ml_program::GlobalLoadConstOp,
             ml_program::GlobalLoadGraphOp, ml_program::GlobalStoreOp,
             ml_program::GlobalStoreGraphOp>(user))
      return success();

  FailureOr<DenseResourceElementsAttr> resource =
      packToResource(global, cast<ElementsAttr>(*value), global.getSymName());
  if (failed(resource))
    return failure();
  auto storageType = cast<RankedTensorType>(resource->getType());
  global.setType(storageType);
  global.setValueAttr(*resource);
  setLogicalType(global, logicalType);

  OpBuilder builder(global->getContext());
  for (Operation *user : globalUsers) {
    Location loc = user->getLoc();
    // Loads now produce storage bytes; a bitcast restores the logical type.
    auto reinterpretLoad = [&](Value loaded) {
      loaded.setType(storageType);
      builder.setInsertionPointAfter(user);
      auto bitcast = BitcastOp::create(builder, loc, logicalType, loaded);
      loaded.replaceAllUsesExcept(bitcast.getResult(), bitcast);
    };
    // Stores take storage bytes; a bitcast packs the logical value.
    auto reinterpretStore = [&](OpOperand &stored) {
      builder.setInsertionPoint(user);
      stored.set(BitcastOp::create(builder, loc, storageType, stored.get()));
    };
    if (auto load = dyn_cast<ml_program::GlobalLoadOp>(user))
      reinterpretLoad(load.getResult());
    else if (auto load = dyn_cast<ml_program::GlobalLoadConstOp>(user))
      reinterpretLoad(load.getResult());
    else if (auto load = dyn_cast<ml_program::GlobalLoadGraphOp>(user))
      reinterpretLoad(load.getResult());
    else if (auto store = dyn_cast<ml_program::GlobalStoreOp>(user))
      reinterpretStore(store.getValueMutable());
    else if (auto store = dyn_cast<ml_program::GlobalStoreGraphOp>(user))
      reinterpretStore(store.getValueMutable());
  }
  return success();
}

LogicalResult PackSubByteConstantsPass::packGlobal(memref::GlobalOp global,
                                                   const SymbolUserMap &users) {
  MemRefType logicalType = global.getType();
  std::optional<Attribute> value = global.getInitialValue();
  if (!value || isAlreadyPacked(global) ||
      !logicalType.getLayout().isIdentity() || !shouldPack(logicalType, *value))
    return success();
  // There is no memref form of vmpack.bitcast, and memref.get_global must
  // return the global's exact type; reinterpreting bytes through
  // memref.view would need a lowering that agrees with `packed`, which
  // MLIR's (one byte per sub-byte element) does not. So only globals nobody
  // takes the address of are packed.
  if (!users.useEmpty(global))
    return success();

  FailureOr<DenseResourceElementsAttr> resource =
      packToResource(global, cast<ElementsAttr>(*value), global.getSymName());
  if (failed(resource))
    return failure();
  auto storageType = MemRefType::get(
      resource->getType().getShape(), resource->getType().getElementType(),
      MemRefLayoutAttrInterface(), logicalType.getMemorySpace());
  global.setType(storageType);
  global.setInitialValueAttr(*resource);
  setLogicalType(global, logicalType);
  return success();
}

void PackSubByteConstantsPass::runOnOperation() {
  // Collect first: the rewrites add ops and must not disturb the walk.
  SmallVector<std::pair<Operation *, StringRef>> constants;
  SmallVector<ml_program::GlobalOp> mlGlobals;
  SmallVector<memref::GlobalOp> memrefGlobals;
  // Ops whose semantics the pass does not know are never changed: another
  // tool's verifier may expect the attribute's type as it is. They are
  // counted for a remark.
  unsigned unknownOps = 0;
  StringRef exampleUnknownOp;
  getOperation()->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (isa<arith::ConstantOp>(op)) {
      if (isEnabled(kArithConstant))
        constants.push_back({op, "value"});
    } else if (name == kTosaConst) {
      if (isEnabled(kTosaConst))
        constants.push_back({op, "values"});
    } else if (auto global = dyn_cast<ml_program::GlobalOp>(op)) {
      if (isEnabled(kMLProgramGlobal))
        mlGlobals.push_back(global);
    } else if (auto global = dyn_cast<memref::GlobalOp>(op)) {
      if (isEnabled(kMemRefGlobal))
        memrefGlobals.push_back(global);
    } else if (holdsSubByteConstant(op)) {
      if (!unknownOps++)
        exampleUnknownOp = name;
    }
  });
  if (unknownOps)
    emitRemark(getOperation()->getLoc())
        << "vmpack-pack-subbyte-constants: left " << unknownOps
        << " op(s) unchanged whose sub-byte constants it does not know the "
           "meaning of (e.g. '"
        << exampleUnknownOp << "')";

  // Keep going after a failure, so every bad constant gets reported.
  bool anyFailed = false;
  if (!mlGlobals.empty() || !memrefGlobals.empty()) {
    // One walk finds the users of every global, instead of one per global.
    SymbolTableCollection symbolTables;
    SymbolUserMap users(symbolTables, getOperation());
    for (ml_program::GlobalOp global : mlGlobals)
      anyFailed |= failed(packGlobal(global, users));
    for (memref::GlobalOp global : memrefGlobals)
      anyFailed |= failed(packGlobal(global, users));
  }
  DerivedConstantNamer keys;
  for (auto [op, valueName] : constants)
    anyFailed |= failed(packConstant(op, valueName, keys));
  if (anyFailed)
    signalPassFailure();
}
