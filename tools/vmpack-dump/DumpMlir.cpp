//===- DumpMlir.cpp - vmpack-dump --mlir ----------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpMlir.h"

#include "vmpack/Archive/FileIO.h"
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

#include <unistd.h>

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
  if (options.outputPath.empty() || options.outputPath == "-") {
    if (options.emitBytecode && ::isatty(STDOUT_FILENO)) {
      llvm::errs() << "vmpack-dump: error: -o -: MLIR bytecode is binary and "
                      "standard output is a terminal; redirect it to a file "
                      "or a pipe\n";
      return 1;
    }
    if (llvm::Error error = write(llvm::outs())) {
      llvm::errs() << "vmpack-dump: error: " << llvm::toString(std::move(error))
                   << "\n";
      return 1;
    }
    llvm::outs().flush();
    return 0;
  }
  // As every writer: a temporary file beside the output, renamed into
  // place when complete; never over an input (the module shown is one),
  // written through symlinks, the replaced file's mode kept.
  namespace fileio = vmpack::archive::detail;
  archive::Status written = fileio::writeFileAtomically(
      options.outputPath,
      [&](int fd, const std::string &temp) -> archive::Status {
        llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
        if (llvm::Error error = write(os))
          return archive::Status::ioError(llvm::toString(std::move(error)));
        os.flush();
        if (os.has_error()) {
          std::string message = os.error().message();
          os.clear_error();
          return archive::Status::ioError("writing '" + temp + "': " + message);
        }
        return archive::Status::ok();
      });
  if (!written) {
    llvm::errs() << "vmpack-dump: error: " << written.message() << "\n";
    return 1;
  }
  return 0;
}
