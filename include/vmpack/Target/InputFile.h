//===- InputFile.h - Reading the compiler's input ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TARGET_INPUTFILE_H
#define VMPACK_TARGET_INPUTFILE_H

#include "vmpack/Target/TextFastPath.h"
#include "vmpack/Target/ZeroCopyBytecode.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlir::vmpack_compiler {

/// Opens `path` (or "-" for stdin) into `sourceMgr` and parses it as MLIR
/// text or bytecode, detected by content. The file is mapped (or read with
/// 64-byte alignment when small) and stays owned by `sourceMgr`, so
/// bytecode resources and — through `zeroCopy` — large dense elements are
/// used in place. On an I/O error sets `errorMessage`; on a parse error the
/// context's diagnostics have reported it. Returns null on either.
/// Text goes through the hex fast path of TextFastPath.h first, unless
/// `textFastPath` is false; `stats`, when given, says what it did; it
/// decodes on up to `threads` threads (0: one per hardware thread).
OwningOpRef<ModuleOp>
parseInputFile(StringRef path,
               const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
               MLIRContext *context, ZeroCopyRegistry &zeroCopy,
               std::string &errorMessage, bool textFastPath = true,
               TextFastPathStats *stats = nullptr, unsigned threads = 0);

/// Prints diagnostics with their source lines, as MLIR's tools do, and
/// says what to do where MLIR's own message does not:
/// - custom syntax of an op of a dialect vmpack does not have cannot be
///   parsed by any tool without that dialect: the message says so, names
///   the dialect and points to generic form or bytecode;
/// - bytecode newer than this MLIR reads gets a note on how to write an
///   older version.
/// Diagnostics go to `os` (the Python binding collects them in a string).
class InputDiagnosticHandler : public SourceMgrDiagnosticHandler {
public:
  InputDiagnosticHandler(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                         llvm::raw_ostream &os = llvm::errs());

private:
  void emitExplained(Diagnostic &diag);
};

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_INPUTFILE_H
