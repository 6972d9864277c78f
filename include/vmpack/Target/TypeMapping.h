//===- TypeMapping.h - MLIR types to vmpack element types -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TARGET_TYPEMAPPING_H
#define VMPACK_TARGET_TYPEMAPPING_H

#include "vmpack/Pack/ElementType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::vmpack_compiler {

/// The packing library's view of an MLIR element type: integers of any
/// width, index, every float type of MLIR 22, and complex of those. Returns
/// nullopt for anything else (strings, vectors, opaque types, ...).
std::optional<vmpack::ElementType> getPackElementType(Type elementType);

/// The inverse: the MLIR type a packing-library element type names (i4,
/// ui8, f8E4M3FN, complex<f16>, ...), or null if MLIR has no such type.
Type getMlirElementType(const vmpack::ElementType &type, MLIRContext *context);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_TYPEMAPPING_H
