//===- VMPackOps.h - vmpack operations --------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `mlir::vmpack_compiler::BitcastOp` (`vmpack.bitcast`).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKOPS_H
#define VMPACK_DIALECT_VMPACK_VMPACKOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#define GET_OP_CLASSES
#include "vmpack/Dialect/VMPack/VMPackOps.h.inc"

#endif // VMPACK_DIALECT_VMPACK_VMPACKOPS_H
