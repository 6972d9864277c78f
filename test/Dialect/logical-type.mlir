// REQUIRES: mlir
// RUN: vmpack-opt %s | FileCheck %s

// The vmpack.logical_type attribute on the ops the packing pass produces.

// CHECK: ml_program.global private @g(dense<0> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<5xi4>}
ml_program.global private @g(dense<0> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<5xi4>}
// CHECK: memref.global "private" constant @m : memref<2xi8> = dense<0> {vmpack.logical_type = memref<10xi1>}
memref.global "private" constant @m : memref<2xi8> = dense<0> {vmpack.logical_type = memref<10xi1>}

// CHECK-LABEL: func.func @f
// CHECK: arith.constant {vmpack.logical_type = tensor<2x4xi3>} dense<0> : tensor<3xi8>
func.func @f() -> tensor<3xi8> {
  %0 = arith.constant {vmpack.logical_type = tensor<2x4xi3>} dense<0> : tensor<3xi8>
  return %0 : tensor<3xi8>
}
