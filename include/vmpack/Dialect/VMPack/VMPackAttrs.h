//===- VMPackAttrs.h - vmpack attributes ------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `mlir::vmpack_compiler::EncodingKind` and
// `mlir::vmpack_compiler::EncodingAttr`
// (`#vmpack.encoding<packed|word|byte>`).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKATTRS_H
#define VMPACK_DIALECT_VMPACK_VMPACKATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "vmpack/Dialect/VMPack/VMPackEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "vmpack/Dialect/VMPack/VMPackAttrs.h.inc"

#endif // VMPACK_DIALECT_VMPACK_VMPACKATTRS_H
