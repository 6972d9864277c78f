//===- DumpMlir.cpp - vmpack-dump --mlir ----------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpMlir.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/ModuleRebuilder.h"
#include "vmpack/Tools/MlirFiles.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

const char *vmpack::dump::dumpMlirVersion() {
  return vmpack::tools::mlirVersion();
}

int vmpack::dump::printModuleAsMlir(const archive::ArchiveReader &reader,
                                    const DumpOptions &options) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects(options.allowUnregistered);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::vmpack_compiler::rebuildModule(reader, &context);
  if (!module)
    return 1;

  auto write = [&](llvm::raw_ostream &os) -> llvm::Error {
    if (options.emitBytecode) {
      if (mlir::failed(mlir::writeBytecodeToFile(*module, os)))
        return llvm::createStringError("cannot write the module as bytecode");
      return llvm::Error::success();
    }
    mlir::OpPrintingFlags flags;
    if (options.printGeneric)
      flags.printGenericOpForm();
    if (options.printDebugInfo)
      flags.enableDebugInfo();
    module->print(os, flags);
    os << "\n";
    return llvm::Error::success();
  };
  if (options.outputPath.empty()) {
    if (llvm::Error error = write(llvm::outs())) {
      llvm::errs() << "vmpack-dump: error: " << llvm::toString(std::move(error))
                   << "\n";
      return 1;
    }
    llvm::outs().flush();
    return 0;
  }
  // A temporary file renamed into place: an existing file is replaced only
  // by a complete one.
  if (llvm::Error error = llvm::writeToOutput(options.outputPath, write)) {
    llvm::errs() << "vmpack-dump: error: '" << options.outputPath
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
