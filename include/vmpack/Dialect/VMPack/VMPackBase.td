//===- VMPackBase.td - The vmpack dialect ------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The dialect definition shared by the op and attribute definitions.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKBASE_TD
#define VMPACK_DIALECT_VMPACK_VMPACKBASE_TD

include "mlir/IR/OpBase.td"

def VMPack_Dialect : Dialect {
  let name = "vmpack";
  let cppNamespace = "::mlir::vmpack_compiler";
  let summary = "Packed storage of sub-byte constants";
  let description = [{
    The `vmpack` dialect describes constants whose elements are narrower than
    a byte (i1 ... i7, f4E2M1FN, f6, tf32, complex of those) once they are
    held as packed byte storage (docs/packing.md, encoding `packed`).

    - `vmpack.bitcast` reinterprets a 1-D `i8` storage tensor as a tensor of
      the logical type, and back.
    - The discardable attribute `vmpack.logical_type` records the logical
      type of a constant or global whose storage type is packed bytes.
    - `#vmpack.encoding<packed|word|byte>` names one of the three encodings.
      As the discardable attribute `vmpack.encoding` on an op holding
      constants, it sets the encoding vmpack-compile stores them in,
      instead of `--encoding` (docs/compiler.md).
    - `vmpack.metadata` (on a module: [key, value] string pairs in order),
      `vmpack.ggml_type` and `vmpack.ggml_shape` (on a global holding ggml
      blocks as bytes) carry what weight files say beyond their tensors
      (docs/interop.md, "MLIR").
  }];

  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;

  let extraClassDeclaration = [{
    /// The discardable attribute holding the logical type (a TypeAttr of a
    /// statically shaped type) of an op whose storage type is packed bytes.
    static ::llvm::StringRef getLogicalTypeAttrName() {
      return "vmpack.logical_type";
    }

    /// The encoding (an EncodingAttr) in which vmpack-compile stores the
    /// constants of the op that carries it, instead of --encoding.
    static ::llvm::StringRef getEncodingAttrName() {
      return "vmpack.encoding";
    }

    /// A weight file's metadata on a module: an array of [key, value]
    /// string pairs, in order.
    static ::llvm::StringRef getMetadataAttrName() {
      return "vmpack.metadata";
    }
    /// A ggml block tensor held as 1-D ui8 bytes: its ggml type number (an
    /// integer) and logical shape (array<i64: ...>, outermost first).
    static ::llvm::StringRef getGgmlTypeAttrName() {
      return "vmpack.ggml_type";
    }
    static ::llvm::StringRef getGgmlShapeAttrName() {
      return "vmpack.ggml_shape";
    }

    /// Adds the attributes of VMPackAttrs.td (defined in VMPackAttrs.cpp).
    void registerAttributes();
  }];
}

#endif // VMPACK_DIALECT_VMPACK_VMPACKBASE_TD
