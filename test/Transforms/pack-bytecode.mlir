// REQUIRES: mlir
// The packed module survives a bytecode round trip unchanged, and packing
// bytecode input gives the same module as packing text.
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants -o %t.text.mlir
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants --emit-bytecode | vmpack-opt -o %t.rt.mlir
// RUN: diff %t.text.mlir %t.rt.mlir
// RUN: vmpack-opt %s --emit-bytecode -o %t.in.mlirbc
// RUN: vmpack-opt %t.in.mlirbc --vmpack-pack-subbyte-constants | diff %t.text.mlir -
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants --emit-bytecode -o %t.packed.mlirbc
// RUN: vmpack-opt %t.packed.mlirbc --vmpack-pack-subbyte-constants | diff %t.text.mlir -
// RUN: FileCheck %s --input-file=%t.rt.mlir

// CHECK: ml_program.global private @weights(dense_resource<weights> : tensor<8xi8>) : tensor<8xi8> {vmpack.logical_type = tensor<4x4xi4>}
// CHECK: memref.global "private" constant @table : memref<3xi8> = dense_resource<table> {vmpack.logical_type = memref<8xi3>}
// CHECK: arith.constant {vmpack.logical_type = tensor<10xi1>} dense_resource<main.cst0> : tensor<2xi8>
// CHECK: vmpack.bitcast
// CHECK: weights: "0x100000002143658721436587",
// CHECK-NEXT: table: "0x1000000088C6FA",
// CHECK-NEXT: main.cst0: "0x100000000D03"

ml_program.global private @weights(dense<[[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<4x4xi4>) : tensor<4x4xi4>
memref.global "private" constant @table : memref<8xi3> = dense<[0, 1, 2, 3, 4, 5, 6, 7]>
func.func @main() -> (tensor<4x4xi4>, tensor<10xi1>) {
  %0 = ml_program.global_load_const @weights : tensor<4x4xi4>
  %1 = arith.constant dense<[true, false, true, true, false, false, false, false, true, true]> : tensor<10xi1>
  return %0, %1 : tensor<4x4xi4>, tensor<10xi1>
}
