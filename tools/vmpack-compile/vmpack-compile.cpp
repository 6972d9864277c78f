//===- vmpack-compile.cpp - MLIR constants in, module archive out ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: vmpack-compile INPUT.{mlir,mlirbc} -o
//        OUTPUT.{vmpk,irpa,safetensors,gguf} [options]
//
// Parses the input (bytecode read in place from a mapped file), turns every
// constant into a segment of the chosen encoding and writes the module
// archive atomically. Diagnostics carry the input's locations; on any error
// nothing is written and the exit code is 1. SIGINT and SIGTERM stop the
// writers, remove the temporary file, and then end the process by that
// signal; the destination is never touched. With an .irpa output (or
// --format=irpa) the global constants go to an IREE parameter archive
// instead and the program refers to them as #flow.parameter.named
// (lib/Target/IrpaExport.cpp, docs/irpa.md); --emit-program writes the
// program that remains, for either format. A .safetensors or .gguf output
// (or --format=safetensors|gguf) holds the constants only, written by the
// formats layer's writers (lib/Target/WeightsModule.cpp, docs/interop.md).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/IrpaExport.h"
#include "vmpack/Target/ModuleSerializer.h"
#include "vmpack/Target/WeightsModule.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;
using vmpack::Encoding;

static cl::OptionCategory compileCategory("vmpack-compile options");

static cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                          cl::desc("<input .mlir or .mlirbc>"),
                                          cl::cat(compileCategory));
static cl::opt<std::string> outputFilename("o", cl::Required,
                                           cl::desc("Output module archive"),
                                           cl::value_desc("filename"),
                                           cl::cat(compileCategory));
static cl::opt<Encoding> encoding(
    "encoding", cl::desc("How segments store sub-byte elements"),
    cl::values(
        clEnumValN(Encoding::Packed, "packed",
                   "a dense little-endian bit stream (default)"),
        clEnumValN(Encoding::Word, "word",
                   "IREE's VM rodata layout: elements in power-of-two words"),
        clEnumValN(Encoding::Byte, "byte",
                   "each element zero-extended to whole bytes")),
    cl::init(Encoding::Packed), cl::cat(compileCategory));
static cl::opt<unsigned> alignment(
    "alignment",
    cl::desc("File alignment of every segment (power of two, 1 to 65536)"),
    cl::init(64), cl::cat(compileCategory));
static cl::opt<bool> progress("progress",
                              cl::desc("Show a progress bar (default: when "
                                       "stderr is a terminal)"),
                              cl::cat(compileCategory));
static cl::opt<bool> noProgress("no-progress",
                                cl::desc("Never show a progress bar"),
                                cl::cat(compileCategory));
static cl::opt<bool> timing("timing", cl::desc("Report the time of each phase"),
                            cl::cat(compileCategory));
static cl::opt<bool> fsyncOutput(
    "fsync", cl::desc("Flush the output to stable storage before renaming it"),
    cl::cat(compileCategory));
static cl::opt<bool> allowUnregistered(
    "allow-unregistered-dialect",
    cl::desc("Accept ops of dialects vmpack does not have, in generic form or "
             "bytecode (default: on)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool>
    noAllowUnregistered("no-allow-unregistered-dialect",
                        cl::desc("Reject ops of dialects vmpack does not have"),
                        cl::cat(compileCategory));
static cl::opt<bool> zeroFillElided(
    "zero-fill-elided",
    cl::desc("Store dense_resource<__elided__> and resources missing from the "
             "input as zeros, with a warning each"),
    cl::cat(compileCategory));
static cl::opt<mlir::vmpack_compiler::Dedup> dedup(
    "dedup",
    cl::desc("Which constants with equal stored bytes share one segment"),
    cl::values(
        clEnumValN(mlir::vmpack_compiler::Dedup::Off, "off",
                   "none: every constant is a segment of its own"),
        clEnumValN(mlir::vmpack_compiler::Dedup::Resources, "resources",
                   "constants reading the same dense_resource blob (default)"),
        clEnumValN(mlir::vmpack_compiler::Dedup::Content, "content",
                   "also constants with identical bytes (hashed, then "
                   "compared)")),
    cl::init(mlir::vmpack_compiler::Dedup::Resources),
    cl::cat(compileCategory));
static cl::opt<bool> noTextFastPath(
    "no-text-fast-path",
    cl::desc("Leave the hex of large dense<\"0x...\"> literals and resource "
             "blobs in text input to MLIR's parser (slower; for comparison)"),
    cl::cat(compileCategory));
static cl::opt<bool> stripDebugInfo(
    "strip-debuginfo",
    cl::desc("Drop locations from the stored program (default: keep them)"),
    cl::cat(compileCategory));
static cl::opt<std::string>
    moduleName("module-name",
               cl::desc("Module name recorded in the archive (default: the "
                        "module's symbol name, else the input's stem)"),
               cl::cat(compileCategory));

static cl::opt<std::string> outputFormat(
    "format",
    cl::desc("Output format: vmpk (a vmpack module archive), irpa (an IREE "
             "parameter archive), safetensors or gguf (the constants only); "
             "default: by the output's extension"),
    cl::value_desc("vmpk|irpa|safetensors|gguf"), cl::cat(compileCategory));
static cl::opt<std::string> parameterScope(
    "parameter-scope",
    cl::desc("irpa: the scope the program's parameter references name "
             "(default: empty, as IREE)"),
    cl::cat(compileCategory));
static cl::opt<uint64_t> parameterMinimumSize(
    "parameter-minimum-size",
    cl::desc("irpa: globals of fewer stored bytes stay in the program "
             "(default: 0, as IREE)"),
    cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> emitProgram(
    "emit-program",
    cl::desc("Also write the program that remains (.mlirbc: bytecode, else "
             "text)"),
    cl::value_desc("filename"), cl::cat(compileCategory));

/// libMLIR.so already registers a hidden `-threads` option (an int); a
/// second registration would abort. Reuse it when present, as ours.
static cl::opt<int> &getThreadsOption() {
  constexpr const char *kDescription = "Worker threads (default: all cores)";
  auto &registered = cl::getRegisteredOptions();
  auto it = registered.find("threads");
  if (it != registered.end()) {
    if (auto *existing = dynamic_cast<cl::opt<int> *>(it->second)) {
      existing->setDescription(kDescription);
      existing->addCategory(compileCategory);
      existing->setHiddenFlag(cl::NotHidden);
      return *existing;
    }
  }
  static cl::opt<int> own("threads", cl::desc(kDescription), cl::init(0),
                          cl::cat(compileCategory));
  return own;
}

static std::atomic<bool> interrupted{false};
static volatile std::sig_atomic_t interruptSignal = 0;
static void onInterrupt(int sig) {
  interruptSignal = sig;
  interrupted = true;
}

static bool isPowerOfTwoInRange(unsigned value) {
  return value >= 1 && value <= 65536 && (value & (value - 1)) == 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::opt<int> &threads = getThreadsOption();
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "vmpack-compile: serializes an MLIR module's constants into a module "
      "archive\n");

  if (!isPowerOfTwoInRange(alignment)) {
    llvm::errs() << "vmpack-compile: error: --alignment=" << alignment
                 << " is not a power of two between 1 and 65536\n";
    return 1;
  }
  if (threads < 0) {
    llvm::errs() << "vmpack-compile: error: --threads=" << threads
                 << " must be 0 (all cores) or more\n";
    return 1;
  }
  if (progress && noProgress) {
    llvm::errs() << "vmpack-compile: error: --progress and --no-progress "
                    "contradict each other\n";
    return 1;
  }

  StringRef format = outputFormat;
  if (format.empty()) {
    StringRef out = outputFilename;
    format = out.ends_with(".irpa")          ? "irpa"
             : out.ends_with(".safetensors") ? "safetensors"
             : out.ends_with(".gguf")        ? "gguf"
                                             : "vmpk";
  }
  if (format != "vmpk" && format != "irpa" && format != "safetensors" &&
      format != "gguf") {
    llvm::errs() << "vmpack-compile: error: --format=" << format
                 << " is not one of vmpk, irpa, safetensors, gguf\n";
    return 1;
  }
  bool irpa = format == "irpa";
  bool weightFile = format == "safetensors" || format == "gguf";
  if (weightFile && !emitProgram.empty()) {
    llvm::errs() << "vmpack-compile: error: --emit-program is for .vmpk and "
                    ".irpa outputs; a "
                 << format << " file holds no program to refer to\n";
    return 1;
  }

  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  TimingScope rootTimer = timingManager.getRootScope();

  DialectRegistry registry;
  registerAllDialects(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects(allowUnregistered && !noAllowUnregistered);
  // Diagnostics show the source line; the op printed again is noise.
  context.printOpOnDiagnostic(false);

  TimingScope parseTimer = rootTimer.nest("parse");
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  mlir::vmpack_compiler::InputDiagnosticHandler diagnostics(*sourceMgr,
                                                            &context);
  mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
  mlir::vmpack_compiler::TextFastPathStats textStats;
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = mlir::vmpack_compiler::parseInputFile(
      inputFilename, sourceMgr, &context, zeroCopy, errorMessage,
      /*textFastPath=*/!noTextFastPath, &textStats,
      unsigned(threads.getValue()));
  if (!module) {
    if (!errorMessage.empty())
      llvm::errs() << "vmpack-compile: error: " << errorMessage << "\n";
    return 1;
  }
  parseTimer.stop();
  // No output may be the input (guarded while the source manager holds
  // it) or the other output; refused before anything is written.
  {
    namespace fileio = vmpack::archive::detail;
    auto refuse = [](const std::string &message) {
      llvm::errs() << "vmpack-compile: error: " << message << "\n";
      return 1;
    };
    if (vmpack::archive::Status s = fileio::checkNotAnInput(outputFilename); !s)
      return refuse(s.message());
    if (!emitProgram.empty()) {
      if (vmpack::archive::Status s =
              fileio::checkNotAnInput(emitProgram, "--emit-program file");
          !s)
        return refuse(s.message());
      fileio::InputFileGuard output =
          fileio::InputFileGuard::forPath(outputFilename);
      if (emitProgram == outputFilename ||
          !fileio::checkNotAnInput(emitProgram).isOk())
        return refuse("--emit-program '" + emitProgram +
                      "' names the output '" + outputFilename +
                      "'; write the program to another file");
    }
  }
  if (timing && (textStats.denseLiterals || textStats.resourceBlobs))
    llvm::errs() << "vmpack-compile: text fast path: "
                 << textStats.denseLiterals << " dense literals and "
                 << textStats.resourceBlobs << " resource blobs, "
                 << textStats.decodedBytes << " bytes decoded\n";
  else if (timing && !textStats.fallbackReason.empty())
    llvm::errs() << "vmpack-compile: text fast path not used: "
                 << textStats.fallbackReason << "\n";

  mlir::vmpack_compiler::SerializeOptions options;
  options.encoding = encoding;
  options.alignment = alignment;
  options.threads = unsigned(threads.getValue());
  options.fsync = fsyncOutput;
  options.progress = progress || (!noProgress && isatty(STDERR_FILENO));
  options.moduleName = moduleName;
  if (options.moduleName.empty())
    if (std::optional<StringRef> name = module->getSymName())
      options.moduleName = name->str();
  if (options.moduleName.empty())
    options.moduleName = inputFilename == "-"
                             ? std::string("module")
                             : llvm::sys::path::stem(inputFilename).str();
  options.cancelled = &interrupted;
  options.zeroCopy = &zeroCopy;
  options.collect.zeroFillElided = zeroFillElided;
  options.stripDebugInfo = stripDebugInfo;
  options.dedup = dedup;

  if (weightFile) {
    // The formats layer's writers: the destination is replaced only when
    // the file is complete (an interrupt ends the process by the signal).
    mlir::vmpack_compiler::WeightFileExportOptions weightOptions;
    weightOptions.format =
        format == "gguf" ? mlir::vmpack_compiler::WeightFileFormat::Gguf
                         : mlir::vmpack_compiler::WeightFileFormat::Safetensors;
    weightOptions.zeroCopy = &zeroCopy;
    weightOptions.collect = options.collect;
    weightOptions.input = sourceMgr->getMemoryBuffer(1)->getBuffer();
    int inputFd = inputFilename == "-"
                      ? -1
                      : ::open(inputFilename.c_str(), O_RDONLY | O_CLOEXEC);
    weightOptions.inputFd = inputFd;
    LogicalResult exported = mlir::vmpack_compiler::exportWeightFile(
        *module, outputFilename, weightOptions);
    if (inputFd >= 0)
      ::close(inputFd);
    return failed(exported) ? 1 : 0;
  }

  // From here on an interrupt stops the writers, which remove their
  // temporary file; the destination is left untouched.
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  LogicalResult written = success();
  if (irpa) {
    // IREE exports globals: tensor arith.constants become globals first,
    // as --vmpack-hoist-constants does.
    PassManager hoist(&context);
    mlir::vmpack_compiler::HoistConstantsPassOptions hoistOptions;
    hoistOptions.minElements = 1;
    hoist.addPass(
        mlir::vmpack_compiler::createHoistConstantsPass(hoistOptions));
    if (failed(hoist.run(*module)))
      return 1;
    mlir::vmpack_compiler::IrpaExportOptions irpaOptions;
    irpaOptions.scope = parameterScope;
    irpaOptions.minimumSize = parameterMinimumSize;
    irpaOptions.threads = options.threads;
    irpaOptions.fsync = options.fsync;
    irpaOptions.cancelled = options.cancelled;
    irpaOptions.zeroCopy = options.zeroCopy;
    irpaOptions.collect = options.collect;
    written = mlir::vmpack_compiler::exportParameters(*module, outputFilename,
                                                      irpaOptions, rootTimer);
  } else {
    written = mlir::vmpack_compiler::serializeModule(*module, outputFilename,
                                                     options, rootTimer);
  }
  if (succeeded(written) && !emitProgram.empty())
    written = mlir::vmpack_compiler::writeProgramFile(*module, emitProgram);
  if (failed(written)) {
    /// The temporary file is gone by now: die of the signal, as the shell
    /// and make expect of an interrupted command (exit status 128 + N).
    if (int sig = interruptSignal) {
      std::signal(sig, SIG_DFL);
      std::raise(sig);
    }
    return 1;
  }
  return 0;
}
