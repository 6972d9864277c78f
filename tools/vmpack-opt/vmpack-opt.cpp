//===- vmpack-opt.cpp - MLIR optimizer driver with vmpack -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with every upstream dialect, extension and pass, plus the vmpack
// dialect and passes.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vmpack_compiler::registerVMPackPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "vmpack modular optimizer driver\n", registry));
}
