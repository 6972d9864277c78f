//===- Passes.h - vmpack passes ---------------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Declares the vmpack passes (createPackSubByteConstantsPass, ...) and
// registerVMPackPasses(), which makes them available to vmpack-opt.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TRANSFORMS_PASSES_H
#define VMPACK_TRANSFORMS_PASSES_H

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir::vmpack_compiler {

#define GEN_PASS_DECL
#include "vmpack/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vmpack/Transforms/Passes.h.inc"

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TRANSFORMS_PASSES_H
