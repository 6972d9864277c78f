//===- ModuleRebuilder.h - Module archive back to MLIR ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The inverse of vmpack-compile: parses an archive's program and puts back,
// for every segment reference, the attribute the constant was compiled from
// (dense<...>, dense_resource<key> in `byte` layout, or the pass's packed
// blob), converting the stored encoding back. compile -> rebuild gives the
// input module again.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_MODULEREBUILDER_H
#define VMPACK_TARGET_MODULEREBUILDER_H

#include "vmpack/Archive/ArchiveReader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::vmpack_compiler {

/// Rebuilds the module held by `reader` in `context` (which must have the
/// program's dialects registered). Emits diagnostics and returns null on a
/// malformed program or a reference to a missing segment.
OwningOpRef<ModuleOp>
rebuildModule(const vmpack::archive::ArchiveReader &reader,
              MLIRContext *context);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_MODULEREBUILDER_H
