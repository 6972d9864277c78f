//===- ConstantNames.h - Names for constants that have none -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one rule by which vmpack names a constant that defines no symbol of
// its own: `<S>.cst<k>`, where S is the symbol defined by the nearest
// enclosing op that defines one (usually the function), or `module` when
// there is none, and k counts from 0, in walk order, the constants named in
// S. --vmpack-hoist-constants names its globals this way,
// --vmpack-pack-subbyte-constants its resource keys, and vmpack-compile its
// segments (docs/compiler.md, "Segment names"). A name that is taken is
// made unique by appending `_<n>`: MLIR's symbol table and resource manager
// do it for the passes, counting from 0 and 1, the compiler from 1.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_CONSTANTNAMES_H
#define VMPACK_DIALECT_VMPACK_CONSTANTNAMES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::vmpack_compiler {

/// The symbol name `op` defines, or "": a `sym_name` string attribute,
/// inherent, discardable or in the properties of an unregistered op.
StringRef getDefinedSymbol(Operation *op);

/// S of the rule: the symbol defined by the nearest op above `op` that
/// defines one, or "module".
StringRef getConstantScope(Operation *op);

/// Hands out `<S>.cst<k>` names, counting k per S.
class DerivedConstantNamer {
public:
  /// The next name in `op`'s scope.
  std::string next(Operation *op);

private:
  llvm::StringMap<unsigned> counters;
};

} // namespace mlir::vmpack_compiler

#endif // VMPACK_DIALECT_VMPACK_CONSTANTNAMES_H
