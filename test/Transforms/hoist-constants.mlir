// REQUIRES: mlir
// RUN: vmpack-opt %s --split-input-file '--vmpack-hoist-constants=min-elements=2' | FileCheck %s
// RUN: vmpack-opt %s --split-input-file --vmpack-hoist-constants | FileCheck %s --check-prefix=DEFAULT
// RUN: vmpack-opt %s --split-input-file '--vmpack-hoist-constants=min-elements=2' --vmpack-pack-subbyte-constants | FileCheck %s --check-prefix=PACK

// Large tensor constants move into private immutable ml_program.globals named
// <function>.cst<k> (k counting the function's hoisted constants), in order,
// renamed by the symbol table when the name is taken.

// CHECK-LABEL: module
// CHECK-NEXT: ml_program.global private @main.cst0_0(dense<[1, 2, 3, 4]> : tensor<4xi4>) : tensor<4xi4>
// CHECK-NEXT: ml_program.global private @main.cst1(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) : tensor<2xf32>
// CHECK-NEXT: ml_program.global private @main.cst0(dense<1> : tensor<2xi32>) : tensor<2xi32>
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[A:.*]] = ml_program.global_load_const @main.cst0_0 : tensor<4xi4>
// CHECK-NEXT: %[[B:.*]] = ml_program.global_load_const @main.cst1 : tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<7> : tensor<1xi8>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]

// DEFAULT-NOT: global_load_const

// PACK: ml_program.global private @main.cst0_0(dense_resource<main.cst0_0> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<4xi4>}
// PACK: %[[A:.*]] = ml_program.global_load_const @main.cst0_0 : tensor<2xi8>
// PACK-NEXT: vmpack.bitcast %[[A]] : tensor<2xi8> -> tensor<4xi4>
// PACK: main.cst0_0: "0x100000002143"
ml_program.global private @main.cst0(dense<1> : tensor<2xi32>) : tensor<2xi32>
func.func @main() -> (tensor<4xi4>, tensor<2xf32>, tensor<1xi8>) {
  %0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>
  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = arith.constant dense<7> : tensor<1xi8>
  return %0, %1, %2 : tensor<4xi4>, tensor<2xf32>, tensor<1xi8>
}

// -----

// An already packed constant takes its logical type along, so hoisting after
// packing gives the same IR as packing after hoisting.
// CHECK-LABEL: module
// CHECK-NEXT: ml_program.global private @f.cst0(dense_resource<blob> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<4xi4>}
// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[L:.*]] = ml_program.global_load_const @f.cst0 : tensor<2xi8>
// CHECK-NEXT: vmpack.bitcast %[[L]] : tensor<2xi8> -> tensor<4xi4>
func.func @f() -> tensor<4xi4> {
  %0 = arith.constant {vmpack.logical_type = tensor<4xi4>} dense_resource<blob> : tensor<2xi8>
  %1 = vmpack.bitcast %0 : tensor<2xi8> -> tensor<4xi4>
  return %1 : tensor<4xi4>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x100000002143"
    }
  }
#-}

// -----

// Globals go into the nearest symbol table.
// CHECK-LABEL: module @outer
// CHECK-NEXT: module @inner
// CHECK-NEXT: ml_program.global private @g.cst0(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
// CHECK-NEXT: func.func @g
// CHECK-NEXT: ml_program.global_load_const @g.cst0 : tensor<2xi4>
module @outer {
  module @inner {
    func.func @g() -> tensor<2xi4> {
      %0 = arith.constant dense<[1, 2]> : tensor<2xi4>
      return %0 : tensor<2xi4>
    }
  }
}
