//===- InputFile.cpp - Reading the compiler's input -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/InputFile.h"

#include "vmpack/Target/TextFastPath.h"

#include "vmpack/Archive/FileIO.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include <unistd.h>

using namespace mlir;

namespace {

/// The input file's buffer, which guards the file as an input of the
/// process for as long as the source manager holds it: no writer replaces
/// it meanwhile (vmpack::archive::detail::InputFileGuard).
class GuardedInputBuffer : public llvm::MemoryBuffer {
public:
  GuardedInputBuffer(std::unique_ptr<llvm::MemoryBuffer> inner,
                     vmpack::archive::detail::InputFileGuard guard)
      : inner(std::move(inner)), guard(std::move(guard)) {
    init(this->inner->getBufferStart(), this->inner->getBufferEnd(),
         /*RequiresNullTerminator=*/false);
  }
  StringRef getBufferIdentifier() const override {
    return inner->getBufferIdentifier();
  }
  BufferKind getBufferKind() const override { return inner->getBufferKind(); }

private:
  std::unique_ptr<llvm::MemoryBuffer> inner;
  vmpack::archive::detail::InputFileGuard guard;
};

} // namespace

OwningOpRef<ModuleOp> mlir::vmpack_compiler::parseInputFile(
    StringRef path, const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
    MLIRContext *context, ZeroCopyRegistry &zeroCopy, std::string &errorMessage,
    bool textFastPath, TextFastPathStats *stats, unsigned threads) {
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(path, llvm::Align(64), &errorMessage);
  if (!input)
    return {};
  // Standard input redirected from a file is that file: it is guarded too.
  input = std::make_unique<GuardedInputBuffer>(
      std::move(input),
      path == "-"
          ? vmpack::archive::detail::InputFileGuard::forDescriptor(STDIN_FILENO,
                                                                   "<stdin>")
          : vmpack::archive::detail::InputFileGuard::forPath(path.str()));
  llvm::MemoryBufferRef inputRef = input->getMemBufferRef();
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  if (textFastPath && !isBytecode(inputRef))
    if (OwningOpRef<ModuleOp> module =
            parseTextWithFastHex(inputRef, context, zeroCopy,
                                 /*minBytes=*/4096, stats, threads))
      return module;
  ParserConfig config(context);
  attachZeroCopyDenseElements(config, zeroCopy);
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

mlir::vmpack_compiler::InputDiagnosticHandler::InputDiagnosticHandler(
    llvm::SourceMgr &sourceMgr, MLIRContext *context, llvm::raw_ostream &os)
    : SourceMgrDiagnosticHandler(sourceMgr, context, os) {
  // Replaces the base class's handler, which only prints.
  setHandler([this](Diagnostic &diag) {
    emitExplained(diag);
    return success();
  });
}

void mlir::vmpack_compiler::InputDiagnosticHandler::emitExplained(
    Diagnostic &diag) {
  if (diag.getSeverity() != DiagnosticSeverity::Error)
    return emitDiagnostic(diag);
  std::string message = diag.str();
  StringRef text = message;
  // MLIR 22: "Dialect `util' not found for custom op 'util.global' ".
  constexpr StringLiteral kPrefix = "Dialect `";
  constexpr StringLiteral kMiddle = "' not found for custom op '";
  if (text.starts_with(kPrefix) && text.contains(kMiddle)) {
    StringRef dialect = text.drop_front(kPrefix.size()).split(kMiddle).first;
    StringRef op = text.split(kMiddle).second.rsplit('\'').first;
    Diagnostic replacement(diag.getLocation(), DiagnosticSeverity::Error);
    replacement << "'" << op << "' is written in the custom syntax of the '"
                << dialect
                << "' dialect, which vmpack does not have; no MLIR tool can "
                   "parse an op's custom syntax without its dialect";
    replacement.attachNote(diag.getLocation())
        << "ops of any dialect are read in generic form or from bytecode: "
           "write the module with a tool that has the '"
        << dialect
        << "' dialect, adding --mlir-print-op-generic (text) or "
           "--emit-bytecode";
    return emitDiagnostic(replacement);
  }
  // MLIR 22: "dialect 'vhlo' does not implement the bytecode interface".
  constexpr StringLiteral kNoInterface =
      "' does not implement the bytecode interface";
  if (text.starts_with("dialect '") && text.contains(kNoInterface)) {
    StringRef dialect = text.drop_front(9).split(kNoInterface).first;
    diag.attachNote(diag.getLocation())
        << "this bytecode holds attributes, types or a version of the '"
        << dialect
        << "' dialect in that dialect's own encoding, which only a tool "
           "with the dialect can read; have that tool write the module in "
           "generic form (--mlir-print-op-generic) or deserialize it first "
           "(a StableHLO portable artifact: stablehlo-translate "
           "--deserialize)";
  }
  if (text.starts_with("bytecode version ") &&
      text.contains(" is newer than the current version "))
    diag.attachNote(diag.getLocation())
        << "vmpack reads MLIR bytecode up to the version of the MLIR it is "
           "built with; have the producer write an older version (e.g. "
           "--emit-bytecode-version), or give the module as text";
  emitDiagnostic(diag);
}
