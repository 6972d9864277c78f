//===- vmpack-opt.cpp - MLIR optimizer driver with vmpack -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with every upstream dialect, extension and pass, plus the vmpack
// dialect and passes. The command line is mlir-opt's, registered and parsed
// here (as mlir::registerAndParseCLIOptions does) so that it behaves as
// every vmpack tool's: usage errors exit 2, --version gives vmpack's and
// MLIR's versions, and an input of another format is named as what it is.
// Unlike mlir-opt, an output that is the input file (under any name: a
// symlink, a hard link, another spelling) is refused before anything is
// written, and missing parent directories are created.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/MlirToolSupport.h"
#include "vmpack/Tools/ToolSupport.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/Debug/CLOptionsSetup.h"
#include "mlir/Debug/Counter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  using namespace vmpack::tools;
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  mlir::vmpack_compiler::registerVMPackPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();

  static llvm::cl::opt<std::string> inputFilename(
      llvm::cl::Positional, llvm::cl::desc("<input file>"),
      llvm::cl::init("-"));
  static llvm::cl::opt<std::string> outputFilename(
      "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
      llvm::cl::init("-"));
  mlir::MlirOptMainConfig::registerCLOptions(registry);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::tracing::DebugCounter::registerCLOptions();
  if (std::optional<int> code = parseMlirToolCommandLine(
          argc, argv, "vmpack-opt",
          "vmpack modular optimizer driver: mlir-opt with the vmpack dialect "
          "and passes\n\nExit status: 0 success, 1 an error in the work, 2 "
          "a usage error.\n"))
    return *code;

  Reporter report("vmpack-opt");
  std::string input = inputFilename, output = outputFilename;
  if (input != "-") {
    vmpack::archive::StatusOr<Format> format = inputFormat(input, Tool::Opt);
    if (!format)
      return report.error(format.status().message());
  }
  namespace fileio = vmpack::archive::detail;
  if (input != "-" && output != "-") {
    fileio::InputFileGuard guard = fileio::InputFileGuard::forPath(input);
    if (vmpack::archive::Status s = fileio::checkNotAnInput(output); !s)
      return report.error(s.message());
  }
  // Missing parent directories are created, as by every vmpack tool.
  if (output != "-")
    if (vmpack::archive::Status s =
            fileio::createDirectories(fileio::parentDirectory(output));
        !s)
      return report.error("cannot create the output '" + output +
                          "': " + s.message());
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
