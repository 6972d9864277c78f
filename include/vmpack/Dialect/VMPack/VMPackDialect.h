//===- VMPackDialect.h - The vmpack dialect ---------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The dialect class `mlir::vmpack_compiler::VMPackDialect`, with the name of
// the `vmpack.logical_type` discardable attribute.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKDIALECT_H
#define VMPACK_DIALECT_VMPACK_VMPACKDIALECT_H

#include "mlir/IR/Dialect.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h.inc"

#endif // VMPACK_DIALECT_VMPACK_VMPACKDIALECT_H
