// REQUIRES: mlir
// RUN: vmpack-opt %s --canonicalize | FileCheck %s

// bitcast(bitcast(x)) back to x's type is x.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[RAW:.*]]: tensor<3xi8>)
// CHECK-NOT: vmpack.bitcast
// CHECK: return %[[RAW]]
func.func @round_trip(%raw: tensor<3xi8>) -> tensor<3xi8> {
  %0 = vmpack.bitcast %raw : tensor<3xi8> -> tensor<5xi4>
  %1 = vmpack.bitcast %0 : tensor<5xi4> -> tensor<3xi8>
  return %1 : tensor<3xi8>
}

// CHECK-LABEL: func.func @round_trip_logical
// CHECK-SAME: (%[[W:.*]]: tensor<2x3xi3>)
// CHECK-NOT: vmpack.bitcast
// CHECK: return %[[W]]
func.func @round_trip_logical(%w: tensor<2x3xi3>) -> tensor<2x3xi3> {
  %0 = vmpack.bitcast %w : tensor<2x3xi3> -> tensor<3xi8>
  %1 = vmpack.bitcast %0 : tensor<3xi8> -> tensor<2x3xi3>
  return %1 : tensor<2x3xi3>
}

// A bitcast to the same type folds away.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[RAW:.*]]: tensor<3xi8>)
// CHECK-NEXT: return %[[RAW]]
func.func @identity(%raw: tensor<3xi8>) -> tensor<3xi8> {
  %0 = vmpack.bitcast %raw : tensor<3xi8> -> tensor<3xi8>
  return %0 : tensor<3xi8>
}

// Two bitcasts that do not lead back to the original type stay: the bytes
// mean something else as i3 than as i4.
// CHECK-LABEL: func.func @different_logical_types
// CHECK: %[[A:.*]] = vmpack.bitcast %{{.*}} : tensor<6xi4> -> tensor<3xi8>
// CHECK: %[[B:.*]] = vmpack.bitcast %[[A]] : tensor<3xi8> -> tensor<8xi3>
// CHECK: return %[[B]]
func.func @different_logical_types(%w: tensor<6xi4>) -> tensor<8xi3> {
  %0 = vmpack.bitcast %w : tensor<6xi4> -> tensor<3xi8>
  %1 = vmpack.bitcast %0 : tensor<3xi8> -> tensor<8xi3>
  return %1 : tensor<8xi3>
}

// The op is pure: an unused bitcast is erased.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT: return
func.func @dead(%raw: tensor<3xi8>) {
  %0 = vmpack.bitcast %raw : tensor<3xi8> -> tensor<5xi4>
  return
}

// A bitcast of a constant is not folded: folding would unpack the bytes into
// a one-byte-per-element DenseElementsAttr again.
// CHECK-LABEL: func.func @constant_operand
// CHECK: %[[C:.*]] = arith.constant dense<[33, 67, 5]> : tensor<3xi8>
// CHECK: vmpack.bitcast %[[C]] : tensor<3xi8> -> tensor<5xi4>
func.func @constant_operand() -> tensor<5xi4> {
  %c = arith.constant dense<[33, 67, 5]> : tensor<3xi8>
  %0 = vmpack.bitcast %c : tensor<3xi8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}
