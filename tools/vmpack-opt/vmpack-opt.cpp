//===- vmpack-opt.cpp - MLIR optimizer driver with vmpack -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with every upstream dialect, extension and pass, plus the vmpack
// dialect and passes. The command line is mlir-opt's, registered and parsed
// here (as mlir::registerAndParseCLIOptions does) so that it behaves as
// every vmpack tool's: usage errors exit 2, --version gives vmpack's and
// MLIR's versions, and an input of another format is named as what it is.
// Unlike mlir-opt, an output that is the input file (under any name: a
// symlink, a hard link, another spelling; standard input redirected from
// it) is refused before anything is written, an output file is replaced
// only by a complete one (a failed run leaves it as it was), its name must
// not be another format's (.mlirbc writes bytecode), and missing parent
// directories are created.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/StreamOutput.h"
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
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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
  // -q, as in every vmpack tool: errors only (MLIR's
  // --mlir-diagnostic-verbosity-level=errors).
  static llvm::cl::opt<bool> quiet(
      "quiet", llvm::cl::desc("Print nothing but errors (as "
                              "--mlir-diagnostic-verbosity-level=errors)"));
  static llvm::cl::alias quietShort("q", llvm::cl::desc("Alias for --quiet"),
                                    llvm::cl::aliasopt(quiet),
                                    llvm::cl::NotHidden);
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

  if (quiet) {
    auto &registered = llvm::cl::getRegisteredOptions();
    auto it = registered.find("mlir-diagnostic-verbosity-level");
    if (it != registered.end())
      it->second->addOccurrence(0, it->second->ArgStr, "errors");
  }
  Reporter report("vmpack-opt");
  std::string input = inputFilename, output = outputFilename;
  if (input != "-") {
    vmpack::archive::StatusOr<Format> format = inputFormat(input, Tool::Opt);
    if (!format)
      return report.error(format.status().message());
  }
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings, and output to standard output: mlir-opt's own driver.
  if (config.shouldShowDialects() || config.shouldListPasses() ||
      isStdout(output))
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  // The output is what it is named: MLIR text or bytecode (.mlirbc writes
  // bytecode, as --emit-bytecode); a name of another format is refused. A
  // name with no extension of the table is written as mlir-opt would.
  std::optional<Format> named = formatFromExtension(output);
  if (named && *named != Format::Mlir && *named != Format::Mlirbc)
    return report.usageError(
        "'" + output + "': its extension names " +
        formatInfo(*named).description +
        ", which vmpack-opt does not write; it writes MLIR, .mlir (text) or "
        ".mlirbc (bytecode)");
  if (named == Format::Mlir && config.shouldEmitBytecode())
    return report.usageError("--emit-bytecode writes MLIR bytecode, and '" +
                             output + "' names MLIR text; name it .mlirbc");
  if (named == Format::Mlirbc)
    config.emitBytecode(true);

  // The input (a file, or standard input redirected from one) is guarded
  // for the whole run: no output replaces it under any name.
  namespace fileio = vmpack::archive::detail;
  fileio::InputFileGuard guard =
      input == "-" ? fileio::InputFileGuard::forDescriptor(0, "<stdin>")
                   : fileio::InputFileGuard::forPath(input);
  if (vmpack::archive::Status s = fileio::checkNotAnInput(output); !s)
    return report.error(s.message());
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(input, &errorMessage);
  if (!file)
    return report.error(errorMessage);
  // Unlike mlir-opt, which opens the output first and removes it when the
  // run fails, the output is written to a temporary file beside it, renamed
  // into place only when the run succeeded: a failed run leaves an existing
  // output as it was (missing parent directories are created, symlinks
  // written through, the replaced file's mode kept).
  bool runFailed = false;
  vmpack::archive::Status written = vmpack::target::writeStreamAtomically(
      output, [&](llvm::raw_ostream &os) -> vmpack::archive::Status {
        runFailed = mlir::failed(
            mlir::MlirOptMain(os, std::move(file), registry, config));
        if (runFailed)
          return vmpack::archive::Status::invalidArgument("");
        return vmpack::archive::Status::ok();
      });
  if (runFailed)
    return kExitFailure;
  if (!written)
    return report.error(written.message());
  return kExitSuccess;
}
