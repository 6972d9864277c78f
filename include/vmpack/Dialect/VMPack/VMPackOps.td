//===- VMPackOps.td - vmpack operations --------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `vmpack.bitcast`: packed byte storage <-> logical sub-byte tensor.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_DIALECT_VMPACK_VMPACKOPS_TD
#define VMPACK_DIALECT_VMPACK_VMPACKOPS_TD

include "vmpack/Dialect/VMPack/VMPackBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class VMPack_Op<string mnemonic, list<Trait> traits = []>
    : Op<VMPack_Dialect, mnemonic, traits>;

def VMPack_BitcastOp : VMPack_Op<"bitcast", [Pure]> {
  let summary = "Reinterprets packed byte storage as a logical tensor";
  let description = [{
    Reinterprets a tensor of packed storage bytes as a tensor of a logical
    type, or a logical tensor as its packed storage bytes. Exactly one side
    is the storage: a 1-D `i8` tensor of ceil(n * W / 8) elements, holding
    the other side's n elements of W bits each in the `packed` encoding of
    docs/packing.md (a complex element counts as two scalars). Both shapes
    are static.

    ```mlir
    %w = vmpack.bitcast %raw : tensor<8388608xi8> -> tensor<4096x4096xi4>
    %raw2 = vmpack.bitcast %w : tensor<4096x4096xi4> -> tensor<8388608xi8>
    ```

    A bitcast to the same type folds away, and so does a pair of bitcasts
    that leads back to the original type.
  }];

  let arguments = (ins AnyTensor:$source);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];

  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // VMPACK_DIALECT_VMPACK_VMPACKOPS_TD
