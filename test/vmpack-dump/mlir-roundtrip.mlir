// REQUIRES: mlir
// compile -> vmpack-dump --mlir gives back the input: the same text once
// vmpack-opt prints both, for text, bytecode and pass-packed inputs and for
// every encoding.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-opt %s -o %t/expected.mlir
// RUN: vmpack-compile %s -o %t/text.vmpk --no-progress
// RUN: vmpack-dump --mlir %t/text.vmpk | vmpack-opt -o %t/text.mlir
// RUN: diff %t/expected.mlir %t/text.mlir
// RUN: vmpack-opt %s --emit-bytecode -o %t/in.mlirbc
// RUN: vmpack-compile %t/in.mlirbc -o %t/word.vmpk --encoding=word --no-progress
// RUN: vmpack-dump --mlir %t/word.vmpk | vmpack-opt -o %t/word.mlir
// RUN: diff %t/expected.mlir %t/word.mlir
// RUN: vmpack-compile %t/in.mlirbc -o %t/byte.vmpk --encoding=byte --threads=1 --no-progress
// RUN: vmpack-dump --mlir %t/byte.vmpk | vmpack-opt -o %t/byte.mlir
// RUN: diff %t/expected.mlir %t/byte.mlir
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants --emit-bytecode -o %t/packed.mlirbc
// RUN: vmpack-opt %t/packed.mlirbc -o %t/expected-packed.mlir
// RUN: vmpack-compile %t/packed.mlirbc -o %t/packed.vmpk --encoding=word --no-progress
// RUN: vmpack-dump --mlir %t/packed.vmpk | vmpack-opt -o %t/packed.mlir
// RUN: diff %t/expected-packed.mlir %t/packed.mlir
// RUN: FileCheck %s --input-file %t/text.mlir

// CHECK: ml_program.global private @wq(dense<{{\[}}[1, -2, 3, -8], [7, 0, -1, 4]]> : tensor<2x4xi4>)
// CHECK: dense<[1.000000e+00, -2.500000e+00, 3.000000e+00]> : tensor<3xf16>
// CHECK: weights: "0x08000000010F0307"

module @roundtrip {
  ml_program.global private @wq(dense<[[1, -2, 3, -8], [7, 0, -1, 4]]> : tensor<2x4xi4>) : tensor<2x4xi4>
  ml_program.global private mutable @state(dense<true> : tensor<13xi1>) : tensor<13xi1>
  ml_program.global private @res(dense_resource<weights> : tensor<4xi4>) : tensor<4xi4>
  memref.global "private" constant @table : memref<3xi3> = dense<[1, 2, 3]>
  func.func @forward(%x: tensor<2x4xi4>) -> (tensor<2x4xi4>, tensor<3xf16>, tensor<2xcomplex<i4>>) {
    %w = ml_program.global_load_const @wq : tensor<2x4xi4>
    %s = ml_program.global_load @state : tensor<13xi1>
    ml_program.global_store @state = %s : tensor<13xi1>
    %sum = arith.addi %w, %x : tensor<2x4xi4>
    %n = arith.constant dense<[1.0, -2.5, 3.0]> : tensor<3xf16>
    %c = arith.constant dense<[(1, -1), (2, 7)]> : tensor<2xcomplex<i4>>
    return %sum, %n, %c : tensor<2x4xi4>, tensor<3xf16>, tensor<2xcomplex<i4>>
  }
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x08000000010F0307"
    }
  }
#-}
