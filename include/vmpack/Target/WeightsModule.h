//===- WeightsModule.h - Weight files as MLIR modules and back ---*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The MLIR side of vmpack-convert and of vmpack-compile's safetensors and
// GGUF outputs (docs/interop.md, "MLIR"):
//  - writeWeightsModule: tensors become one private ml_program.global each,
//    named after the tensor, valued by a dense_resource blob (in the `byte`
//    layout the compiler reads resources with) or, on request, dense<...>;
//    metadata and ggml block types become attributes. Byte-aligned tensors
//    whose bytes are already in that layout are handed to MLIR's writer in
//    place (unmanaged blobs over the mapped input); the others are
//    converted into a scratch file mapped beside the output, never into
//    the heap. Text output leaves the blobs out of the module MLIR prints
//    and writes the resource section itself, chunk by chunk.
//  - getModuleTensors: the constants a module holds (as the compiler finds
//    them) as tensors for the formats layer's writers, pointing into the
//    parsed module, plus the metadata that writeWeightsModule stored.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_WEIGHTSMODULE_H
#define VMPACK_TARGET_WEIGHTSMODULE_H

#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Target/ConstantCollector.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::vmpack_compiler {

/// The attributes (defined by the vmpack dialect, VMPackBase.td):
/// vmpack.metadata on the module, an array of [key, value] string pairs in
/// order (GGUF values that are not strings as "vmpack.gguf.KEY" pairs);
/// vmpack.ggml_type and vmpack.ggml_shape on a global holding a ggml block
/// tensor as ui8 bytes: its ggml type number and logical shape.

struct WeightsModuleOptions {
  /// MLIR bytecode (.mlirbc) rather than text (.mlir).
  bool bytecode = true;
  /// dense<...> attributes instead of dense_resource blobs.
  bool dense = false;
  /// Alignment recorded for every blob (a power of two). 16 by default:
  /// MLIR's bytecode reader fails unless the buffer holding the file is
  /// aligned like the resource section, and `mlir-opt` reads small files
  /// into heap buffers that malloc aligns to 16 bytes only.
  uint32_t alignment = 16;
  /// The module's symbol name; none when empty.
  std::string moduleName;
  std::string producer = "vmpack";
};

/// Writes `tensors` and `metadata` as an MLIR module to `path` through a
/// temporary file beside it and a rename. Errors name the tensor.
vmpack::formats::Status
writeWeightsModule(const std::string &path,
                   const std::vector<vmpack::formats::TensorSource> &tensors,
                   const vmpack::formats::StringMetadata &metadata,
                   const WeightsModuleOptions &options);

/// A module's constants as tensors and its metadata. The tensors point
/// into `constants` and the module's attributes and blobs, which must
/// outlive them.
struct ModuleTensors {
  std::vector<vmpack::formats::TensorSource> tensors;
  vmpack::formats::StringMetadata metadata;
};

/// `input` (the parsed file's buffer) and `inputFd` (the same file, open
/// for reading, or -1) let writers copy bytes that lie in the file with
/// copy_file_range. Emits a diagnostic at the op (or module) and fails on
/// a malformed vmpack.metadata or ggml attribute.
FailureOr<ModuleTensors> getModuleTensors(ModuleOp module,
                                          ArrayRef<ConstantInfo> constants,
                                          StringRef input = {},
                                          int inputFd = -1);

class ZeroCopyRegistry;

enum class WeightFileFormat { Safetensors, Gguf };

struct WeightFileExportOptions {
  WeightFileFormat format = WeightFileFormat::Safetensors;
  const ZeroCopyRegistry *zeroCopy = nullptr;
  CollectOptions collect;
  /// The parsed input's bytes and an open descriptor of the same file
  /// (or -1), as for getModuleTensors.
  StringRef input;
  int inputFd = -1;
};

/// vmpack-compile's safetensors and GGUF outputs: every constant the
/// compiler finds becomes one tensor, named as its segment would be, in the
/// formats layer's writer (docs/interop.md: types without a dtype are
/// stored as packed bytes with their MLIR type in the metadata); the
/// module's vmpack.metadata becomes the file's metadata. What the format
/// cannot hold (a GGUF name over 63 bytes, a safetensors tensor named
/// __metadata__) is an error at the constant's op, before anything is
/// written; a quantized element type is stored as its storage integers
/// with a warning that its scales are not kept.
LogicalResult exportWeightFile(ModuleOp module, StringRef outputPath,
                               const WeightFileExportOptions &options);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_WEIGHTSMODULE_H
