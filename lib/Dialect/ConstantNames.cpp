//===- ConstantNames.cpp - Names for constants that have none -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "vmpack/Dialect/VMPack/ConstantNames.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

StringRef mlir::vmpack_compiler::getDefinedSymbol(Operation *op) {
  if (auto name =
          op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    return name.getValue();
  return {};
}

StringRef mlir::vmpack_compiler::getConstantScope(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (StringRef symbol = getDefinedSymbol(parent); !symbol.empty())
      return symbol;
  return "module";
}

std::string DerivedConstantNamer::next(Operation *op) {
  StringRef scope = getConstantScope(op);
  return (scope + ".cst" + Twine(counters[scope]++)).str();
}
