//===- HoistConstants.cpp - Large constants into ml_program globals -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// --vmpack-hoist-constants: turns large tensor arith.constants into private
// immutable ml_program.globals read with ml_program.global_load_const, so
// that every weight of a module is a named global the archive writer can
// store as a segment.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Transforms/Passes.h"

#include "vmpack/Dialect/VMPack/ConstantNames.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::vmpack_compiler {
#define GEN_PASS_DEF_HOISTCONSTANTSPASS
#include "vmpack/Transforms/Passes.h.inc"
} // namespace mlir::vmpack_compiler

using namespace mlir;

namespace {

struct HoistConstantsPass
    : public mlir::vmpack_compiler::impl::HoistConstantsPassBase<
          HoistConstantsPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void HoistConstantsPass::runOnOperation() {
  SmallVector<arith::ConstantOp> constants;
  getOperation()->walk([&](arith::ConstantOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (type && type.hasStaticShape() &&
        type.getNumElements() >= std::max<int64_t>(minElements, 1) &&
        isa<DenseElementsAttr, DenseResourceElementsAttr>(op.getValue()))
      constants.push_back(op);
  });

  StringRef logicalTypeName =
      vmpack_compiler::VMPackDialect::getLogicalTypeAttrName();
  SymbolTableCollection symbolTables;
  // Globals keep the order of their constants: each goes after the last
  // one created in the same symbol table.
  llvm::DenseMap<Operation *, Operation *> lastGlobal;
  vmpack_compiler::DerivedConstantNamer names;
  for (arith::ConstantOp op : constants) {
    // The global goes into the symbol table closest to the constant; a
    // constant with none above it stays (it cannot name a global).
    Operation *symbolTableOp = op->getParentWithTrait<OpTrait::SymbolTable>();
    if (!symbolTableOp || symbolTableOp->getNumRegions() != 1 ||
        !symbolTableOp->getRegion(0).hasOneBlock())
      continue;
    SymbolTable &table = symbolTables.getSymbolTable(symbolTableOp);

    OpBuilder builder(op->getContext());
    if (Operation *previous = lastGlobal.lookup(symbolTableOp))
      builder.setInsertionPointAfter(previous);
    else
      builder.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
    auto global = ml_program::GlobalOp::create(
        builder, op.getLoc(), names.next(op), op.getType(),
        /*is_mutable=*/false, op.getValue(), builder.getStringAttr("private"));
    if (Attribute logicalType = op->getAttr(logicalTypeName))
      global->setAttr(logicalTypeName, logicalType);
    // Renames the global if its name is taken.
    table.insert(global);
    lastGlobal[symbolTableOp] = global;

    builder.setInsertionPoint(op);
    auto load = ml_program::GlobalLoadConstOp::create(
        builder, op.getLoc(), op.getType(),
        FlatSymbolRefAttr::get(global.getSymNameAttr()));
    op.replaceAllUsesWith(load.getResult());
    op.erase();
  }
}
