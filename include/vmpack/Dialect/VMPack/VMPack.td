//===- VMPack.td - The whole vmpack dialect ----------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every definition of the dialect, for its generated reference
// (docs/generated/VMPackDialect.md, add_mlir_doc in CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACK_TD
#define VMPACK_DIALECT_VMPACK_VMPACK_TD

include "vmpack/Dialect/VMPack/VMPackAttrs.td"
include "vmpack/Dialect/VMPack/VMPackOps.td"

#endif // VMPACK_DIALECT_VMPACK_VMPACK_TD
