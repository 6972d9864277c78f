//===- vmpack-opt.cpp - MLIR optimizer driver with vmpack -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with every upstream dialect, extension and pass, plus the vmpack
// dialect and passes. Unlike mlir-opt, an output that is the input file
// (under any name: a symlink, a hard link, another spelling) is refused
// before anything is written, and missing parent directories are created,
// as by every vmpack tool.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vmpack_compiler::registerVMPackPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();

  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "vmpack modular optimizer driver\n", registry);
  if (input != "-" && output != "-") {
    namespace fileio = vmpack::archive::detail;
    fileio::InputFileGuard guard = fileio::InputFileGuard::forPath(input);
    if (vmpack::archive::Status s = fileio::checkNotAnInput(output); !s) {
      llvm::errs() << "vmpack-opt: error: " << s.message() << "\n";
      return 1;
    }
  }
  // Missing parent directories are created, as by every vmpack tool.
  if (output != "-")
    if (vmpack::archive::Status s = vmpack::archive::detail::createDirectories(
            vmpack::archive::detail::parentDirectory(output));
        !s) {
      llvm::errs() << "vmpack-opt: error: cannot create the output '" << output
                   << "': " << s.message() << "\n";
      return 1;
    }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
