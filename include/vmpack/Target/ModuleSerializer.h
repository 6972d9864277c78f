//===- ModuleSerializer.h - MLIR module to module archive -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The compiler's back end: takes a parsed module, turns each constant into
// a segment of the requested encoding, keeps the program as MLIR bytecode
// whose constants refer to their segments by name, and writes the archive.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_MODULESERIALIZER_H
#define VMPACK_TARGET_MODULESERIALIZER_H

#include "vmpack/Pack/Encoding.h"
#include "vmpack/Target/ConstantCollector.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <atomic>
#include <string>

namespace mlir::vmpack_compiler {

class ZeroCopyRegistry;

/// Which constants with the same stored bytes share one segment
/// (docs/compiler.md, "Shared constants").
enum class Dedup {
  /// Every constant is a segment of its own.
  Off,
  /// Constants that read the same dense_resource blob (default).
  Resources,
  /// Also constants whose bytes are identical, found by hashing and then
  /// comparing every byte.
  Content,
};

struct SerializeOptions {
  vmpack::Encoding encoding = vmpack::Encoding::Packed;
  /// Alignment of every segment: a power of two in [1, 65536].
  uint32_t alignment = 64;
  /// Worker threads; 0 means one per hardware thread.
  unsigned threads = 0;
  bool fsync = false;
  /// Draw a progress bar on stderr.
  bool progress = false;
  std::string moduleName;
  std::string producer = "vmpack-compile";
  /// Set from a signal handler to stop early; the output is then not
  /// created.
  const std::atomic<bool> *cancelled = nullptr;
  /// The resources that stand for dense<...> attributes read in place.
  const ZeroCopyRegistry *zeroCopy = nullptr;
  CollectOptions collect;
  Dedup dedup = Dedup::Resources;
  /// Drop every location from the stored program, so that the same module
  /// compiled from different paths gives the same archive.
  bool stripDebugInfo = false;
};

/// The resource key by which the program refers to segment `segmentName`.
std::string getSegmentReferenceKey(StringRef segmentName);
/// The inverse: the segment a program resource key refers to, or "".
StringRef getReferencedSegment(StringRef resourceKey);

/// Writes `module` to a module archive at `outputPath`. On failure, emits
/// diagnostics and leaves `outputPath` as it was. The module's constants are
/// replaced by segment references in the process.
LogicalResult serializeModule(ModuleOp module, StringRef outputPath,
                              const SerializeOptions &options,
                              TimingScope &timing);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_MODULESERIALIZER_H
