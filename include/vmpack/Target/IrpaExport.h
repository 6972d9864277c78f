//===- IrpaExport.h - Constants to an IREE parameter archive ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-compile's .irpa back end: does what IREE's exporter
// (iree-io-export-parameters) does, at memory speed. Every constant global
// (util.global initial values, ml_program.global values) of at least the
// minimum size becomes an entry keyed by its symbol name,
// in module order; immutable splats become splat entries where a pattern
// describes their bytes exactly; each global's value becomes
// #flow.parameter.named<"SCOPE"::"KEY">. Entry bytes are vmpack's `word`
// encoding (i1: one byte per element). docs/irpa.md, section 7.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_IRPAEXPORT_H
#define VMPACK_TARGET_IRPAEXPORT_H

#include "vmpack/Target/ConstantCollector.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace mlir::vmpack_compiler {

class ZeroCopyRegistry;

struct IrpaExportOptions {
  /// The scope the program's references name (IREE's default: empty).
  std::string scope;
  /// Globals whose stored size is smaller stay in the program.
  uint64_t minimumSize = 0;
  /// Worker threads; 0 means one per hardware thread.
  unsigned threads = 0;
  bool fsync = false;
  const std::atomic<bool> *cancelled = nullptr;
  const ZeroCopyRegistry *zeroCopy = nullptr;
  CollectOptions collect;
};

/// Writes the module's exported globals to `outputPath` and rewrites their
/// values into parameter references. On failure, emits diagnostics and
/// leaves `outputPath` as it was.
LogicalResult exportParameters(ModuleOp module, StringRef outputPath,
                               const IrpaExportOptions &options,
                               TimingScope &timing);

/// Writes `module` to `path` as MLIR bytecode when it ends in ".mlirbc",
/// else as text, through a temporary file renamed over `path`.
LogicalResult writeProgramFile(ModuleOp module, StringRef path);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_IRPAEXPORT_H
