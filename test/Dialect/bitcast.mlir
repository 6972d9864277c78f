// REQUIRES: mlir
// RUN: vmpack-opt %s | FileCheck %s
// RUN: vmpack-opt %s | vmpack-opt | FileCheck %s
// RUN: vmpack-opt %s --mlir-print-op-generic | vmpack-opt | FileCheck %s
// RUN: vmpack-opt %s --emit-bytecode | vmpack-opt | FileCheck %s

// Parsing and printing vmpack.bitcast in both directions, for every kind of
// packable element.

// CHECK-LABEL: func.func @storage_to_logical
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<5xi4>
func.func @storage_to_logical(%raw: tensor<3xi8>) -> tensor<5xi4> {
  %0 = vmpack.bitcast %raw : tensor<3xi8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// CHECK-LABEL: func.func @logical_to_storage
// CHECK: vmpack.bitcast %{{.*}} : tensor<4096x4096xi4> -> tensor<8388608xi8>
func.func @logical_to_storage(%w: tensor<4096x4096xi4>) -> tensor<8388608xi8> {
  %0 = vmpack.bitcast %w : tensor<4096x4096xi4> -> tensor<8388608xi8>
  return %0 : tensor<8388608xi8>
}

// ceil(10 * 1 / 8) = 2, ceil(8 * 3 / 8) = 3, ceil(3 * 12 / 8) = 5.
// CHECK-LABEL: func.func @odd_widths
// CHECK: vmpack.bitcast %{{.*}} : tensor<2xi8> -> tensor<10xi1>
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<2x4xi3>
// CHECK: vmpack.bitcast %{{.*}} : tensor<5xi8> -> tensor<3xi12>
// CHECK: vmpack.bitcast %{{.*}} : tensor<5xi8> -> tensor<1x2xtf32>
func.func @odd_widths(%a: tensor<2xi8>, %b: tensor<3xi8>, %c: tensor<5xi8>) {
  %0 = vmpack.bitcast %a : tensor<2xi8> -> tensor<10xi1>
  %1 = vmpack.bitcast %b : tensor<3xi8> -> tensor<2x4xi3>
  %2 = vmpack.bitcast %c : tensor<5xi8> -> tensor<3xi12>
  %3 = vmpack.bitcast %c : tensor<5xi8> -> tensor<1x2xtf32>
  return
}

// Floats, signed/unsigned integers, and complex<T> (two scalars each).
// CHECK-LABEL: func.func @element_kinds
// CHECK: vmpack.bitcast %{{.*}} : tensor<2xi8> -> tensor<4xf4E2M1FN>
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<4xf6E3M2FN>
// CHECK: vmpack.bitcast %{{.*}} : tensor<2xi8> -> tensor<2xcomplex<i4>>
// CHECK: vmpack.bitcast %{{.*}} : tensor<1xi8> -> tensor<3xcomplex<i1>>
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<6xui4>
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<3xsi8>
func.func @element_kinds(%a: tensor<2xi8>, %b: tensor<3xi8>, %c: tensor<1xi8>) {
  %0 = vmpack.bitcast %a : tensor<2xi8> -> tensor<4xf4E2M1FN>
  %1 = vmpack.bitcast %b : tensor<3xi8> -> tensor<4xf6E3M2FN>
  %2 = vmpack.bitcast %a : tensor<2xi8> -> tensor<2xcomplex<i4>>
  %3 = vmpack.bitcast %c : tensor<1xi8> -> tensor<3xcomplex<i1>>
  %4 = vmpack.bitcast %b : tensor<3xi8> -> tensor<6xui4>
  %5 = vmpack.bitcast %b : tensor<3xi8> -> tensor<3xsi8>
  return
}

// Zero elements pack into zero bytes; the same type on both sides is allowed
// (and folds away).
// CHECK-LABEL: func.func @edge_cases
// CHECK: vmpack.bitcast %{{.*}} : tensor<0xi8> -> tensor<0x7xi4>
// CHECK: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<3xi8>
func.func @edge_cases(%a: tensor<0xi8>, %b: tensor<3xi8>) {
  %0 = vmpack.bitcast %a : tensor<0xi8> -> tensor<0x7xi4>
  %1 = vmpack.bitcast %b : tensor<3xi8> -> tensor<3xi8>
  return
}
