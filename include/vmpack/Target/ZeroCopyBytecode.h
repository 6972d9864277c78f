//===- ZeroCopyBytecode.h - Dense elements read in place --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MLIR's bytecode reader turns every dense elements attribute into a
// DenseElementsAttr: it copies the bytes into the context, scans them for a
// splat and hashes them for uniquing — seconds and a second copy of the
// weights for a large model. vmpack only needs the bytes. This hook makes
// the reader hand each large dense elements attribute over as a
// dense_resource whose blob points into the input buffer, and remembers
// which resources stand for a dense<...> attribute so that the compiler
// records the right origin and layout.
//
// The input buffer must outlive the module (parse through a shared
// llvm::SourceMgr) and stay unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_ZEROCOPYBYTECODE_H
#define VMPACK_TARGET_ZEROCOPYBYTECODE_H

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>

namespace mlir::vmpack_compiler {

/// The resources that stand in for dense<...> attributes.
class ZeroCopyRegistry {
public:
  bool isZeroCopyDense(StringRef key) const {
    std::lock_guard<std::mutex> lock(mutex);
    return keys.contains(key);
  }
  void add(StringRef key) {
    std::lock_guard<std::mutex> lock(mutex);
    keys.insert(key);
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex);
    return keys.size();
  }

private:
  mutable std::mutex mutex;
  llvm::StringSet<> keys;
};

/// Whether `size` bytes are the whole MLIR storage (not a splat) of a
/// constant of `type` whose element type vmpack stores: such bytes can stand
/// in for a dense<...> attribute of that type as a blob.
bool canStandInForDense(ShapedType type, size_t size);

/// Installs the hook on `config`. Dense elements attributes of at least
/// `minBytes` bytes are read in place. Returns false (and installs nothing)
/// when this MLIR's bytecode encoding of dense elements could not be
/// recognised; parsing then works as usual, with copies.
bool attachZeroCopyDenseElements(ParserConfig &config,
                                 ZeroCopyRegistry &registry,
                                 size_t minBytes = 4096);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_TARGET_ZEROCOPYBYTECODE_H
