//===- VMPackAttrs.cpp - vmpack attributes --------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/VMPackAttrs.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

#include "vmpack/Dialect/VMPack/VMPackEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "vmpack/Dialect/VMPack/VMPackAttrs.cpp.inc"

void VMPackDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "vmpack/Dialect/VMPack/VMPackAttrs.cpp.inc"
      >();
}
