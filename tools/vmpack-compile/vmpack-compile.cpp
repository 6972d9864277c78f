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
#include "vmpack/Archive/Format.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/IrpaExport.h"
#include "vmpack/Target/ModuleSerializer.h"
#include "vmpack/Target/WeightsModule.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/MlirToolSupport.h"
#include "vmpack/Tools/ToolSupport.h"
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

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir or .mlirbc>"),
                                          cl::cat(compileCategory));
static cl::opt<std::string> outputFilename(
    "o",
    cl::desc("Output file: .vmpk, .irpa, .safetensors or .gguf, or - for "
             "standard output (with --format)"),
    cl::value_desc("filename"), cl::cat(compileCategory));
static cl::opt<Encoding> encoding(
    "encoding", cl::desc("vmpk: how segments store sub-byte elements"),
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
    cl::desc("vmpk: file alignment of every segment (a power of two from 1 "
             "to 65536; default 64)"),
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
    "fsync",
    cl::desc("vmpk, irpa: flush the output to stable storage before "
             "renaming it"),
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
    cl::desc("vmpk: which constants with equal stored bytes share one "
             "segment"),
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
               cl::desc("vmpk: module name recorded in the archive (default: "
                        "the module's symbol name, else the input's stem)"),
               cl::cat(compileCategory));

static cl::opt<std::string> outputFormatName(
    "format",
    cl::desc("Output format: vmpk (a vmpack module archive), irpa (an IREE "
             "parameter archive), safetensors or gguf (the constants only); "
             "default: by the output's extension"),
    cl::value_desc("vmpk|irpa|safetensors|gguf"), cl::cat(compileCategory));
// Aliases are hidden from --help unless cl::NotHidden: these are listed.
static cl::alias outputFormatTo("to", cl::desc("Alias for --format"),
                                cl::aliasopt(outputFormatName), cl::NotHidden,
                                cl::cat(compileCategory));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print nothing but errors (no warnings, "
                                    "no progress bar)"),
                           cl::cat(compileCategory));
static cl::alias quietShort("q", cl::desc("Alias for --quiet"),
                            cl::aliasopt(quiet), cl::NotHidden,
                            cl::cat(compileCategory));
static cl::opt<bool> verbose("verbose",
                             cl::desc("Say what was read and written"),
                             cl::cat(compileCategory));
static cl::alias verboseShort("v", cl::desc("Alias for --verbose"),
                              cl::aliasopt(verbose), cl::NotHidden,
                              cl::cat(compileCategory));
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
    cl::desc("vmpk, irpa: also write the program that remains (.mlirbc: "
             "bytecode, else text)"),
    cl::value_desc("filename"), cl::cat(compileCategory));

/// libMLIR.so already registers a hidden `-threads` option (an int); a
/// second registration would abort. Reuse it when present, as ours.
static cl::opt<int> &getThreadsOption() {
  constexpr const char *kDescription =
      "Worker threads, 0 to 1024 (default 0: all cores)";
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

/// An option given for an output it does not apply to: a usage error.
static bool notFor(const cl::Option &option, bool applies,
                   vmpack::tools::Format format, const char *appliesTo) {
  if (applies || !option.getNumOccurrences())
    return false;
  llvm::errs() << "vmpack-compile: error: --" << option.ArgStr
               << " does not apply to "
               << vmpack::tools::formatInfo(format).description << " ("
               << vmpack::tools::formatName(format) << "): it is for "
               << appliesTo
               << " outputs\n(vmpack-compile --help shows the "
                  "usage)\n";
  return true;
}

int main(int argc, char **argv) {
  using namespace vmpack::tools;
  llvm::InitLLVM initLLVM(argc, argv);
  cl::opt<int> &threads = getThreadsOption();
  cl::HideUnrelatedOptions(compileCategory);
  if (std::optional<int> code = parseMlirToolCommandLine(
          argc, argv, "vmpack-compile",
          "vmpack-compile: serializes an MLIR module's constants into a "
          "module archive (.vmpk), an IREE parameter archive (.irpa), or a "
          "safetensors or GGUF file\n\nExit status: 0 success, 1 an error "
          "in the work, 2 a usage error.\n"))
    return *code;
  Reporter report("vmpack-compile");
  report.quiet = quiet;
  report.verbose = verbose;

  if (inputFilename.empty())
    return report.usageError("no input given (INPUT.mlir, INPUT.mlirbc or - "
                             "for standard input)");
  if (outputFilename.empty())
    return report.usageError("no output given (-o OUTPUT)");
  if (!vmpack::archive::isValidAlignment(alignment))
    return report.usageError("--alignment needs " + alignmentRange() +
                             ", got '" + std::to_string(alignment) + "'");
  if (threads < 0 || threads > int(kMaxThreads))
    return report.usageError("--threads needs a number from 0 (all cores) "
                             "to " +
                             std::to_string(kMaxThreads) + ", got '" +
                             std::to_string(threads) + "'");
  if (progress && noProgress)
    return report.usageError(
        "--progress and --no-progress contradict each other");

  vmpack::archive::StatusOr<Format> chosen = vmpack::tools::outputFormat(
      outputFilename,
      outputFormatName.getNumOccurrences()
          ? std::optional<std::string>(outputFormatName.getValue())
          : std::nullopt,
      "--format", Tool::Compile);
  if (!chosen)
    return report.usageError(chosen.status().message());
  Format out = *chosen;
  std::string format = formatName(out);
  bool irpa = out == Format::Irpa;
  bool weightFile = out == Format::Safetensors || out == Format::Gguf;
  bool vmpk = out == Format::Vmpk;
  if (notFor(emitProgram, !weightFile, out, "vmpk and irpa") ||
      notFor(moduleName, vmpk, out, "vmpk") ||
      notFor(encoding, vmpk, out, "vmpk") ||
      notFor(alignment, vmpk, out, "vmpk") ||
      notFor(dedup, vmpk, out, "vmpk") ||
      notFor(parameterScope, irpa, out, "irpa") ||
      notFor(parameterMinimumSize, irpa, out, "irpa") ||
      notFor(fsyncOutput, !weightFile, out, "vmpk and irpa"))
    return kExitUsage;
  if (isStdout(outputFilename) && isStdout(emitProgram))
    return report.usageError("-o - and --emit-program=- would both write to "
                             "standard output");
  vmpack::archive::StatusOr<OutputPath> output =
      OutputPath::create(outputFilename, out);
  if (!output)
    return report.usageError(output.status().message());

  // MLIR only: a file of another format is named as what it is, with the
  // tool that takes it.
  if (inputFilename != "-") {
    vmpack::archive::StatusOr<Format> input =
        inputFormat(inputFilename, Tool::Compile);
    if (!input)
      return report.error(input.status().message());
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
  ToolDiagnostics toolDiagnostics(&context, "vmpack-compile", quiet);
  mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
  mlir::vmpack_compiler::TextFastPathStats textStats;
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = mlir::vmpack_compiler::parseInputFile(
      inputFilename, sourceMgr, &context, zeroCopy, errorMessage,
      /*textFastPath=*/!noTextFastPath, &textStats,
      unsigned(threads.getValue()));
  if (!module) {
    if (!errorMessage.empty())
      return report.error(errorMessage);
    return kExitFailure;
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
      if (!isStdout(outputFilename) &&
          fileio::sameDestination(emitProgram, outputFilename))
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
  options.progress =
      !quiet && (progress || (!noProgress && isatty(STDERR_FILENO)));
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
        *module, output->path(), weightOptions);
    if (inputFd >= 0)
      ::close(inputFd);
    if (failed(exported))
      return kExitFailure;
    if (vmpack::archive::Status st = output->finish(); !st)
      return report.error(st.message());
    report.progress("wrote " + output->display() + " (" + format + ")");
    return kExitSuccess;
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
      return kExitFailure;
    mlir::vmpack_compiler::IrpaExportOptions irpaOptions;
    irpaOptions.scope = parameterScope;
    irpaOptions.minimumSize = parameterMinimumSize;
    irpaOptions.threads = options.threads;
    irpaOptions.fsync = options.fsync;
    irpaOptions.cancelled = options.cancelled;
    irpaOptions.zeroCopy = options.zeroCopy;
    irpaOptions.collect = options.collect;
    written = mlir::vmpack_compiler::exportParameters(*module, output->path(),
                                                      irpaOptions, rootTimer);
  } else {
    written = mlir::vmpack_compiler::serializeModule(*module, output->path(),
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
    return kExitFailure;
  }
  if (vmpack::archive::Status st = output->finish(); !st)
    return report.error(st.message());
  report.progress("wrote " + output->display() + " (" + format + ")" +
                  (emitProgram.empty()
                       ? std::string()
                       : " and the program to " + emitProgram.getValue()));
  return kExitSuccess;
}
