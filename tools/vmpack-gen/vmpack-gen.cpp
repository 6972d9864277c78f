//===- vmpack-gen.cpp - Writes llama2-shaped int4 models ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-gen -o OUT [--format=mlir|mlir-packed|mlirbc-dense|mlirbc-packed|
//                              mlirbc-resource]
//            [--layers N] [--dim D] [--hidden H] [--vocab V]
//            [--tie-embeddings] [--seed S] [--timing]
//
// Writes a synthetic, deterministic llama2-shaped model whose projection
// weights are int4: the input for vmpack's tests, demo and benchmarks. The
// same flags give byte-identical output; the output appears under its name
// only when complete (written to a temporary file, then renamed). With
// --format=mlirbc-resource the weights are generated while they are written
// (StreamedBlobs.h), so the model may be larger than memory.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/StreamOutput.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/MlirToolSupport.h"
#include "vmpack/Tools/ToolSupport.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <unistd.h>

using namespace mlir;
using namespace vmpack::gen;

namespace {
enum class OutputFormat {
  Text,
  PackedText,
  DenseBytecode,
  PackedBytecode,
  ResourceBytecode
};

llvm::cl::OptionCategory category("vmpack-gen options");

llvm::cl::opt<std::string>
    outputPath("o",
               llvm::cl::desc("Output file: .mlir (text) or .mlirbc "
                              "(bytecode), or - for standard output"),
               llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<OutputFormat> format(
    "format",
    llvm::cl::desc("What to write (default: mlir for a .mlir output, "
                   "mlirbc-dense otherwise)"),
    llvm::cl::values(
        clEnumValN(OutputFormat::Text, "mlir",
                   "MLIR text, weights as dense<\"0x...\"> hex"),
        clEnumValN(OutputFormat::PackedText, "mlir-packed",
                   "MLIR text, weights packed as dense_resource blobs"),
        clEnumValN(OutputFormat::DenseBytecode, "mlirbc-dense",
                   "MLIR bytecode, weights as dense elements"),
        clEnumValN(OutputFormat::PackedBytecode, "mlirbc-packed",
                   "MLIR bytecode, weights packed as dense_resource blobs "
                   "(vmpack `packed` encoding) with vmpack.bitcast"),
        clEnumValN(OutputFormat::ResourceBytecode, "mlirbc-resource",
                   "MLIR bytecode, weights as dense_resource blobs in MLIR's "
                   "storage layout, generated while written (any size, "
                   "little memory)")),
    llvm::cl::init(OutputFormat::DenseBytecode), llvm::cl::cat(category));
llvm::cl::opt<unsigned> layers("layers",
                               llvm::cl::desc("Transformer layers (default 1)"),
                               llvm::cl::init(1), llvm::cl::cat(category));
llvm::cl::opt<int64_t> dim("dim",
                           llvm::cl::desc("Model dimension (default 4096)"),
                           llvm::cl::init(4096), llvm::cl::cat(category));
llvm::cl::opt<int64_t>
    hidden("hidden", llvm::cl::desc("Feed-forward dimension (default 11008)"),
           llvm::cl::init(11008), llvm::cl::cat(category));
llvm::cl::opt<int64_t>
    vocab("vocab",
          llvm::cl::desc("Vocabulary size: adds tok_embeddings and output "
                         "(default 0: none; 32000 with --tie-embeddings)"),
          llvm::cl::init(0), llvm::cl::cat(category));
llvm::cl::opt<bool> tieEmbeddings(
    "tie-embeddings",
    llvm::cl::desc("The output projection is the token embedding: one "
                   "tensor read by two globals"),
    llvm::cl::init(false), llvm::cl::cat(category));
llvm::cl::opt<uint64_t> seed("seed",
                             llvm::cl::desc("Seed of the weights (default 1)"),
                             llvm::cl::init(1), llvm::cl::cat(category));
llvm::cl::opt<bool> timing("timing",
                           llvm::cl::desc("Print where the time went"),
                           llvm::cl::init(false), llvm::cl::cat(category));
llvm::cl::opt<bool> quiet("quiet", llvm::cl::desc("Print nothing but errors"),
                          llvm::cl::cat(category));
// Aliases are hidden from --help unless cl::NotHidden: these are listed.
llvm::cl::alias quietShort("q", llvm::cl::desc("Alias for --quiet"),
                           llvm::cl::aliasopt(quiet), llvm::cl::NotHidden,
                           llvm::cl::cat(category));
llvm::cl::opt<bool> verbose("verbose", llvm::cl::desc("Say what was written"),
                            llvm::cl::cat(category));
llvm::cl::alias verboseShort("v", llvm::cl::desc("Alias for --verbose"),
                             llvm::cl::aliasopt(verbose), llvm::cl::NotHidden,
                             llvm::cl::cat(category));

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Writes the module to `os` in the chosen format; `streamed` holds the
/// blobs of the mlirbc-resource format.
LogicalResult emit(ModuleOp module, StreamedBlobs &streamed,
                   llvm::raw_ostream &os) {
  switch (format) {
  case OutputFormat::Text:
  case OutputFormat::PackedText:
    module->print(os, OpPrintingFlags());
    return success();
  case OutputFormat::DenseBytecode:
  case OutputFormat::PackedBytecode:
    return writeBytecodeToFile(module, os, BytecodeWriterConfig("vmpack-gen"));
  case OutputFormat::ResourceBytecode: {
    BlobFillingStream filling(streamed, os);
    return writeBytecodeToFile(module, filling,
                               BytecodeWriterConfig("vmpack-gen"));
  }
  }
  llvm_unreachable("unknown format");
}

/// Writes as every vmpack writer does (archive::detail::writeFileAtomically):
/// a temporary file beside the output, renamed into place when complete, so
/// a reader never sees a half-written model; missing parent directories are
/// created, a symlink is written through, the replaced file's mode kept.
LogicalResult writeOutput(ModuleOp module, StreamedBlobs &streamed) {
  if (outputPath == "-")
    return emit(module, streamed, llvm::outs());
  vmpack::archive::Status written = vmpack::target::writeStreamAtomically(
      outputPath, [&](llvm::raw_ostream &os) -> vmpack::archive::Status {
        if (failed(emit(module, streamed, os)))
          return vmpack::archive::Status::ioError("cannot write the model");
        return vmpack::archive::Status::ok();
      });
  if (!written) {
    llvm::errs() << "vmpack-gen: error: " << written.message() << "\n";
    return failure();
  }
  return success();
}
} // namespace

int main(int argc, char **argv) {
  using namespace vmpack::tools;
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(category);
  if (std::optional<int> code = parseMlirToolCommandLine(
          argc, argv, "vmpack-gen",
          "vmpack-gen: writes a synthetic llama2-shaped model with int4 "
          "weights\n\nExit status: 0 success, 1 an error in the work, 2 a "
          "usage error.\n"))
    return *code;
  Reporter report("vmpack-gen");
  report.quiet = quiet;
  report.verbose = verbose;
  if (outputPath.empty())
    return report.usageError("no output given (-o OUT.mlir or OUT.mlirbc)");
  if (layers < 1 || dim < 1 || hidden < 1 || vocab < 0)
    return report.usageError("--layers, --dim and --hidden must be positive");
  // The output is what its name says: MLIR text in .mlir, bytecode in
  // .mlirbc (or anything on standard output).
  std::optional<Format> named =
      isStdout(outputPath) ? std::nullopt : formatFromExtension(outputPath);
  if (!isStdout(outputPath) && named != Format::Mlir && named != Format::Mlirbc)
    return report.usageError("'" + outputPath +
                             "': vmpack-gen writes MLIR, named .mlir (text) "
                             "or .mlirbc (bytecode)");
  if (!format.getNumOccurrences() && named == Format::Mlir)
    format = OutputFormat::Text;
  bool text =
      format == OutputFormat::Text || format == OutputFormat::PackedText;
  if (named && (named == Format::Mlir) != text)
    return report.usageError(
        "'" + outputPath + "' names " + formatInfo(*named).description +
        ", but --format=" +
        std::string(format.getValue() == OutputFormat::Text ? "mlir"
                    : format.getValue() == OutputFormat::PackedText
                        ? "mlir-packed"
                        : "mlirbc-...") +
        " writes " + (text ? "text" : "bytecode"));
  if (isStdout(outputPath) && !text && ::isatty(STDOUT_FILENO))
    return report.usageError("-o -: MLIR bytecode is binary and standard "
                             "output is a terminal; redirect it to a file or "
                             "a pipe");

  MLIRContext context;
  context.loadDialect<func::FuncDialect, ml_program::MLProgramDialect,
                      mlir::vmpack_compiler::VMPackDialect>();
  context.disableMultithreading();

  WeightForm form = WeightForm::Dense;
  if (format == OutputFormat::PackedText ||
      format == OutputFormat::PackedBytecode)
    form = WeightForm::Packed;
  else if (format == OutputFormat::ResourceBytecode)
    form = WeightForm::StreamedResource;
  LlamaConfig config;
  config.layers = layers;
  config.dim = dim;
  config.hidden = hidden;
  config.vocab = vocab ? vocab : (tieEmbeddings ? 32000 : 0);
  config.tieEmbeddings = tieEmbeddings;

  auto start = Clock::now();
  BuildTimings timings;
  // Outlives the module, whose blobs it reserves.
  StreamedBlobs streamed;
  OwningOpRef<ModuleOp> module =
      buildLlamaModule(context, config, seed, form, timings, &streamed);
  double buildSeconds = secondsSince(start);
  if (failed(verify(*module)))
    return kExitFailure;

  start = Clock::now();
  if (failed(writeOutput(*module, streamed)))
    return kExitFailure;
  report.progress("wrote " + outputPath.getValue());
  double writeSeconds = secondsSince(start);

  if (timing && !quiet) {
    llvm::errs() << llvm::format(
        "vmpack-gen: generate weights %.3f s, MLIR attributes %.3f s, "
        "build total %.3f s, write %.3f s\n",
        timings.generateSeconds, timings.attributeSeconds, buildSeconds,
        writeSeconds);
  }
  return kExitSuccess;
}
