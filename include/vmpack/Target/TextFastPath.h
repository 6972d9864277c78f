//===- TextFastPath.h - Large hex constants decoded before parsing -*- C++ -*-//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MLIR's text parser decodes the hex of `dense<"0x...">` literals and of
// resource blobs one digit at a time and copies the result into the
// context (about 120 MB/s). For a module whose text is mostly such hex,
// vmpack decodes the large ones itself, with the vector kernels of
// vmpack/Pack/Hex.h, and gives MLIR a small program:
// - `dense<"0xHEX"> : T` becomes `dense_resource<KEY> : T`, the decoded
//   bytes become that resource's blob, and KEY is added to the
//   ZeroCopyRegistry so that the compiler treats it as the dense<...>
//   attribute it was (origin, layout, `vmpack-dump --mlir`).
// - In `{-# dialect_resources: { builtin: { KEY: "0xHEX" } } #-}` the
//   value keeps only its 4 alignment bytes, and the decoded blob is
//   installed under KEY after the parse.
// Only what the scanner recognises for certain is rewritten: literals in
// strings, comments and dialect attribute or type bodies (`#d.x<...>`,
// `!d.x<...>`) are not; a literal must be well-formed hex, at least
// `minBytes` long, followed by `: T` with T a type vmpack stores whose
// size matches the bytes exactly (no splat). Everything else is left to
// MLIR's parser.
//
// The rewritten program is first parsed and verified in a scratch context;
// if MLIR reports anything at all, the original text is parsed as usual,
// so every diagnostic is MLIR's own, located in the original text. Line
// numbers are kept by the rewrite; columns after a rewritten literal on
// the same line are mapped back, so the module's locations are the ones a
// plain parse gives.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_TEXTFASTPATH_H
#define VMPACK_TARGET_TEXTFASTPATH_H

#include "vmpack/Target/ZeroCopyBytecode.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace mlir::vmpack_compiler {

/// What the fast path did, for tests and timing.
struct TextFastPathStats {
  /// Distinct dense literals decoded (equal ones of one type share a blob).
  size_t denseLiterals = 0;
  size_t resourceBlobs = 0;
  uint64_t decodedBytes = 0;
  /// Why the original text was parsed as usual, or empty.
  std::string fallbackReason;
};

/// Parses the MLIR text `input` with large hex constants decoded ahead of
/// MLIR's parser. Returns null when the fast path does not apply (nothing
/// to rewrite, or MLIR rejected the rewritten program): the caller then
/// parses `input` as usual. Emits no diagnostics. `input` must be text, not
/// bytecode. A literal longer than a few MiB is decoded by up to `threads`
/// threads (0: one per hardware thread).
OwningOpRef<ModuleOp>
parseTextWithFastHex(llvm::MemoryBufferRef input, MLIRContext *context,
                     ZeroCopyRegistry &zeroCopy, size_t minBytes = 4096,
                     TextFastPathStats *stats = nullptr, unsigned threads = 0);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_TEXTFASTPATH_H
