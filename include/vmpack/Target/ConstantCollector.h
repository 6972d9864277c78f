//===- ConstantCollector.h - Finding a module's constants -------*- C++ -*-===//
//
// Finds every constant that becomes a segment of a module archive and
// describes where its bytes are, without copying them: a DenseElementsAttr's
// raw storage, a dense_resource blob (possibly inside the mapped input
// file), or a blob the vmpack pass already packed.
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

#include <string>

namespace mlir::vmpack {

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
::vmpack::Encoding getOriginEncoding(ConstantOrigin origin,
                                     const ::vmpack::ElementType &type);

/// One constant that becomes one segment.
struct ConstantInfo {
  /// The op that holds the constant (arith.constant, ml_program.global,
  /// memref.global) and the name of its value attribute.
  Operation *op = nullptr;
  StringAttr valueAttrName;
  /// The segment's name: the global's symbol, or a derived name for
  /// arith.constant (see docs/compiler.md).
  std::string segmentName;
  /// The type the program sees the value as (the storage type for
  /// pass-packed constants) and the logical type of the elements stored.
  ShapedType valueType;
  ShapedType logicalType;
  ::vmpack::ElementType elementType;
  /// Scalars: elements, times two for complex.
  uint64_t numScalars = 0;
  /// The source bytes, borrowed: in `sourceEncoding`, or one element of MLIR
  /// storage when `isSplat`.
  ArrayRef<char> data;
  ::vmpack::Encoding sourceEncoding = ::vmpack::Encoding::Byte;
  bool isSplat = false;
  ConstantOrigin origin = ConstantOrigin::Dense;
  std::string resourceKey;
  uint32_t resourceAlignment = 0;
};

/// Collects the module's constants in a deterministic order (a pre-order
/// walk). Emits a diagnostic at the op's location and fails for a constant
/// that cannot be serialized: an unsupported element type, a missing or
/// elided resource, a blob whose size does not match its type.
class ZeroCopyRegistry;
FailureOr<SmallVector<ConstantInfo>>
collectConstants(ModuleOp module, const ZeroCopyRegistry *zeroCopy = nullptr);

/// The name of the discardable attribute that marks packed storage and
/// records its logical type.
StringRef getLogicalTypeAttrName();

} // namespace mlir::vmpack

#endif // VMPACK_TARGET_CONSTANTCOLLECTOR_H
