//===- PackedLayout.h - MLIR types in the `packed` encoding -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Maps MLIR element types onto the element model of docs/packing.md (W bits
// per scalar, one or two scalars per element) and gives the size and type of
// the 1-D i8 storage that holds a shaped type in the `packed` encoding. The
// verifier of `vmpack.bitcast`, the `vmpack.logical_type` verifier and the
// packing pass all use these, so they agree on every size.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_PACKEDLAYOUT_H
#define VMPACK_DIALECT_VMPACK_PACKEDLAYOUT_H

#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <optional>

namespace mlir::vmpack_compiler {

/// The element model (docs/packing.md) of a builtin element type: signless,
/// signed and unsigned integers, index, every float type of MLIR 22, and
/// complex of those; nullopt for anything else. This is the one mapping from
/// MLIR types to vmpack::ElementType: Target's getPackElementType adds
/// quantized types on top of it.
std::optional<vmpack::ElementType> getPackedElement(Type elementType);

/// How MLIR 22 holds elements of this kind in a DenseElementsAttr:
/// vmpack::mlirStorageEncoding(W) for scalars, but `byte` for complex
/// elements, because MLIR rounds each half of a complex up to whole bytes
/// (complex<i1> takes two bytes, not two bits).
vmpack::Encoding getMlirStorageEncoding(const vmpack::ElementType &element);

/// Whether `elementType` is packable and its W is not a multiple of 8: the
/// types whose MLIR storage wastes bits.
bool isSubByteElementType(Type elementType);

/// The number of scalars in `type` (elements times scalars per element), or
/// nullopt when the shape is dynamic, the element type is not packable or
/// the count overflows.
std::optional<uint64_t> getNumScalars(ShapedType type);

/// ceil(scalars * W / 8): the `packed` size of `type` in bytes, or nullopt
/// when getNumScalars() fails or the size overflows int64_t.
std::optional<int64_t> getPackedByteSize(ShapedType type);

/// Whether `type` is a statically shaped 1-D tensor or memref of i8: the
/// shape of packed storage.
bool isByteStorageType(ShapedType type);

/// `tensor<Nxi8>` with N = getPackedByteSize(logicalType); null when that
/// fails.
RankedTensorType getPackedStorageTensorType(ShapedType logicalType);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_DIALECT_VMPACK_PACKEDLAYOUT_H
