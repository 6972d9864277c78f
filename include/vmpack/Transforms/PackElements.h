//===- PackElements.h - Packing constant payloads ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Turns the payload of a constant, as MLIR holds it (a DenseElementsAttr's
// raw data, or a dense_resource blob in MLIR's storage layout), into a blob
// in the `packed` encoding of docs/packing.md, with the fast kernels of
// vmpack/Pack/Convert.h: no per-element APInt.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TRANSFORMS_PACKELEMENTS_H
#define VMPACK_TRANSFORMS_PACKELEMENTS_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

namespace mlir::vmpack_compiler {

/// Alignment of the blobs packElements() creates. MLIR's bytecode reader
/// refuses a buffer less aligned than its most aligned resource, and LLVM
/// reads stdin and small files into 16-byte aligned heap buffers: anything
/// larger would break `vmpack-opt --emit-bytecode | vmpack-opt`. Archive
/// segments get their own, larger alignment when they are written.
constexpr size_t kPackedBlobAlignment = 16;

/// Whether packElements() can read `value`: a DenseIntOrFPElementsAttr or a
/// DenseResourceElementsAttr, statically shaped, of a packable element type.
bool isPackableElementsAttr(Attribute value);

/// Packs `value` (see isPackableElementsAttr) into a new heap blob in the
/// `packed` encoding. A dense_resource blob must be in MLIR's storage layout
/// (getMlirStorageEncoding() of PackedLayout.h); for i1 one byte per element
/// is accepted too, as MLIR's own DenseResourceElementsAttr<bool> writes it.
/// A missing or elided blob, or one of the wrong size, is reported at `loc`.
FailureOr<AsmResourceBlob> packElements(ElementsAttr value, Location loc);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TRANSFORMS_PACKELEMENTS_H
