//===- VMPackAttrs.td - vmpack attributes ------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `#vmpack.encoding<packed|word|byte>`: one of the three encodings of
// docs/packing.md.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKATTRS_TD
#define VMPACK_DIALECT_VMPACK_VMPACKATTRS_TD

include "vmpack/Dialect/VMPack/VMPackBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

/// The case values equal vmpack::Encoding's, which module indexes store.
def VMPack_EncodingKind : I32EnumAttr<"EncodingKind",
    "a storage encoding of docs/packing.md", [
      I32EnumAttrCase<"Packed", 0, "packed">,
      I32EnumAttrCase<"Word", 1, "word">,
      I32EnumAttrCase<"Byte", 2, "byte">
    ]> {
  let cppNamespace = "::mlir::vmpack_compiler";
  let genSpecializedAttr = 0;
}

def VMPack_EncodingAttr : EnumAttr<VMPack_Dialect, VMPack_EncodingKind,
                                   "encoding"> {
  let cppClassName = "EncodingAttr";
  let assemblyFormat = "`<` $value `>`";
}

#endif // VMPACK_DIALECT_VMPACK_VMPACKATTRS_TD
