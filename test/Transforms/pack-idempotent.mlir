// REQUIRES: mlir
// Running the pass on its own output changes nothing: constants that carry
// vmpack.logical_type are already packed.
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants -o %t.once.mlir
// RUN: vmpack-opt %t.once.mlir --vmpack-pack-subbyte-constants -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants --vmpack-pack-subbyte-constants | diff %t.once.mlir -
// RUN: FileCheck %s --input-file=%t.twice.mlir

// CHECK: ml_program.global private @g(dense_resource<g> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<5xi4>}
// CHECK: memref.global "private" constant @m : memref<2xi8> = dense_resource<m> {vmpack.logical_type = memref<3xi4>}
// CHECK: %[[C:.*]] = arith.constant {vmpack.logical_type = tensor<3xi4>} dense_resource<f.cst0> : tensor<2xi8>
// CHECK-NEXT: vmpack.bitcast %[[C]] : tensor<2xi8> -> tensor<3xi4>
// CHECK-NOT: vmpack.bitcast
// CHECK: g: "0x10000000214305",
// CHECK-NEXT: m: "0x10000000FF0F",
// CHECK-NEXT: f.cst0: "0x10000000FF0F"

ml_program.global private @g(dense<[1, 2, 3, 4, 5]> : tensor<5xi4>) : tensor<5xi4>
memref.global "private" constant @m : memref<3xi4> = dense<-1>
func.func @f() -> (tensor<5xi4>, tensor<3xi4>) {
  %0 = ml_program.global_load_const @g : tensor<5xi4>
  %1 = arith.constant dense<-1> : tensor<3xi4>
  return %0, %1 : tensor<5xi4>, tensor<3xi4>
}
