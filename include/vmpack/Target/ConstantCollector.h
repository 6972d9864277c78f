//===- ConstantCollector.h - Finding a module's constants -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Finds every constant that becomes a segment of a module archive and
// describes where its bytes are, without copying them: a DenseElementsAttr's
// raw storage, a dense_resource blob (possibly inside the mapped input
// file), or a blob the vmpack pass already packed.
//
// Constants are found generically: every dense<...> or dense_resource<...>
// elements attribute of every op, registered or not, whether it is an
// attribute of its own, nested in arrays or dictionaries, or part of the
// properties of an op of an unregistered dialect (docs/compiler.md).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_CONSTANTCOLLECTOR_H
#define VMPACK_TARGET_CONSTANTCOLLECTOR_H

#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::vmpack_compiler {

/// What attribute a constant was written as in the input; the module index
/// records it so that the input can be rebuilt exactly. The values are the
/// archive's `SourceKind`.
enum class ConstantOrigin : uint8_t {
  Dense = 0,          ///< dense<...>
  DenseResource = 1,  ///< dense_resource<key> in `byte` layout
  PackedResource = 2, ///< dense_resource<key> the vmpack pass packed
};

/// The layout of a constant's bytes in the input, given its origin: MLIR's
/// in-memory storage for dense<...>, `byte` for a plain dense_resource,
/// `packed` for the pass's blobs. The compiler reads with it and
/// vmpack-dump --mlir writes with it.
vmpack::Encoding getOriginEncoding(ConstantOrigin origin,
                                   const vmpack::ElementType &type);

/// Where a constant sits inside its op: under a top-level attribute name
/// (inherent or discardable), or in the properties of an op of an
/// unregistered dialect, then down `path`, the indices into nested
/// ArrayAttr elements and DictionaryAttr entries.
struct ConstantSite {
  bool inProperties = false;
  StringAttr attrName;
  SmallVector<unsigned, 2> path;
};

/// The attribute at `site` of `op`, or null if there is none.
Attribute getSiteValue(Operation *op, const ConstantSite &site);
/// Replaces the attribute at `site` of `op`, rebuilding the arrays and
/// dictionaries around it.
void setSiteValue(Operation *op, const ConstantSite &site, Attribute value);

/// Calls `fn` on every attribute of `op`, nested ones included, that `fn`
/// might replace; where it returns a non-null attribute, that attribute
/// takes the old one's place.
void replaceNestedAttributes(Operation *op,
                             function_ref<Attribute(Attribute)> fn);

/// MLIR has no number syntax for elements of quantized types: it reads
/// `dense<"0x0102"> : tensor<2x!quant.uniform<i4:f32, 1.0>>` as one hex
/// string. The raw bytes that string stands for (one element per whole
/// byte, as for the storage type), or nullopt if `value` is not of that
/// form.
std::optional<std::vector<char>> decodeQuantizedHex(Attribute value);
/// The inverse: the attribute MLIR prints as dense<"0x..."> for `bytes`.
Attribute encodeQuantizedHex(ShapedType type, ArrayRef<char> bytes);

/// One constant that becomes one segment.
struct ConstantInfo {
  /// The op that holds the constant and where in it the value is.
  Operation *op = nullptr;
  ConstantSite site;
  /// The segment's name (docs/compiler.md, "Segment names").
  std::string segmentName;
  /// The type the program sees the value as (the storage type for
  /// pass-packed constants) and the logical type of the elements stored.
  ShapedType valueType;
  ShapedType logicalType;
  vmpack::ElementType elementType;
  /// Scalars: elements, times two for complex.
  uint64_t numScalars = 0;
  /// The source bytes, borrowed: in `sourceEncoding`, or one element of MLIR
  /// storage when `isSplat`. Empty when `isZeroFill`.
  ArrayRef<char> data;
  /// Holds `data` when it had to be decoded (the hex string of a quantized
  /// dense<"0x..."> constant).
  std::shared_ptr<const std::vector<char>> ownedData;
  vmpack::Encoding sourceEncoding = vmpack::Encoding::Byte;
  bool isSplat = false;
  /// An elided or missing resource that CollectOptions::zeroFillElided
  /// turned into zeros.
  bool isZeroFill = false;
  ConstantOrigin origin = ConstantOrigin::Dense;
  std::string resourceKey;
  uint32_t resourceAlignment = 0;
};

struct CollectOptions {
  /// Treat dense_resource<__elided__> and resources missing from the input
  /// as zeros of the right size, with a warning per constant.
  bool zeroFillElided = false;
};

/// Collects the module's constants in a deterministic order (a pre-order
/// walk; within an op, attributes by name, then properties). Emits a
/// diagnostic at the op's location and fails for a constant that cannot be
/// serialized: an unsupported element type in an op vmpack knows
/// (arith.constant, ml_program.global, memref.global), a missing or elided
/// resource, a blob whose size does not match its type. Elements
/// attributes of other ops whose element type has no vmpack layout stay in
/// the program.
class ZeroCopyRegistry;
FailureOr<SmallVector<ConstantInfo>>
collectConstants(ModuleOp module, const ZeroCopyRegistry *zeroCopy = nullptr,
                 const CollectOptions &options = {});

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_CONSTANTCOLLECTOR_H
