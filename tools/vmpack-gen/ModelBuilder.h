//===- ModelBuilder.h - A llama2-shaped MLIR module --------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Builds the MLIR module vmpack-gen writes: one private, immutable
// `ml_program.global` per tensor and a `func.func @forward` that loads every
// global and returns them all (so nothing is dead and the program is more
// than a bag of constants).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACKGEN_MODELBUILDER_H
#define VMPACK_TOOLS_VMPACKGEN_MODELBUILDER_H

#include "LlamaModel.h"
#include "StreamedBlobs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace vmpack::gen {

/// How the int4 weights are held.
enum class WeightForm {
  /// `dense<...> : tensor<RxCxi4>`, MLIR's own representation.
  Dense,
  /// What vmpack's pack-subbyte-constants pass produces: a `tensor<Nxi8>`
  /// global holding a `dense_resource` blob in vmpack's `packed` encoding,
  /// tagged `vmpack.logical_type = tensor<RxCxi4>`, and a `vmpack.bitcast`
  /// back to the logical type after each load. f16 norms stay dense.
  Packed,
  /// `dense_resource<...> : tensor<RxCxi4>` whose blob is in MLIR's own
  /// storage layout (one byte per element, as in `dense<...>`), produced
  /// only as the bytecode writer writes it (StreamedBlobs.h). f16 norms
  /// stay dense.
  StreamedResource,
};

/// Where the time went, for --timing.
struct BuildTimings {
  double generateSeconds = 0;  ///< producing weight bytes
  double attributeSeconds = 0; ///< MLIR creating (copying, hashing) attributes
};

/// Builds the module. The MLIR context must have the func and ml_program
/// dialects loaded, and vmpack's for WeightForm::Packed. For
/// WeightForm::StreamedResource, `streamed` holds the blobs, must outlive
/// the module, and the module can only be written as bytecode through a
/// BlobFillingStream.
mlir::OwningOpRef<mlir::ModuleOp>
buildLlamaModule(mlir::MLIRContext &context, const LlamaConfig &config,
                 uint64_t seed, WeightForm form, BuildTimings &timings,
                 StreamedBlobs *streamed = nullptr);

} // namespace vmpack::gen

#endif // VMPACK_TOOLS_VMPACKGEN_MODELBUILDER_H
