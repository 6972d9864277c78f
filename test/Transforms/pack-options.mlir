// REQUIRES: mlir
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants | FileCheck %s --check-prefix=ALL
// RUN: vmpack-opt %s '--vmpack-pack-subbyte-constants=min-elements=4' | FileCheck %s --check-prefix=MIN4
// RUN: vmpack-opt %s '--vmpack-pack-subbyte-constants=min-elements=100' | FileCheck %s --check-prefix=NONE
// RUN: vmpack-opt %s '--vmpack-pack-subbyte-constants=ops=arith.constant' | FileCheck %s --check-prefix=ARITH
// RUN: vmpack-opt %s '--vmpack-pack-subbyte-constants=ops=ml_program.global,memref.global min-elements=3' | FileCheck %s --check-prefix=GLOBALS
// RUN: vmpack-opt %s '--pass-pipeline=builtin.module(vmpack-pack-subbyte-constants{ops=memref.global})' | FileCheck %s --check-prefix=MEMREF
// RUN: not vmpack-opt %s '--vmpack-pack-subbyte-constants=ops=arith.constant,tensor.empty' 2>&1 | FileCheck %s --check-prefix=BADOP

// ALL: ml_program.global private @g4({{.*}}) : tensor<2xi8> {vmpack.logical_type = tensor<4xi4>}
// ALL: ml_program.global private @g2({{.*}}) : tensor<1xi8> {vmpack.logical_type = tensor<2xi4>}
// ALL: memref.global "private" constant @m4 : memref<2xi8>
// ALL: arith.constant {vmpack.logical_type = tensor<4xi4>}
// ALL: arith.constant {vmpack.logical_type = tensor<1xi4>}

// MIN4: ml_program.global private @g4({{.*}}) : tensor<2xi8> {vmpack.logical_type = tensor<4xi4>}
// MIN4: ml_program.global private @g2(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
// MIN4: memref.global "private" constant @m4 : memref<2xi8>
// MIN4: arith.constant {vmpack.logical_type = tensor<4xi4>}
// MIN4: arith.constant dense<7> : tensor<1xi4>

// NONE-NOT: vmpack

// ARITH: ml_program.global private @g4(dense<[1, 2, 3, 4]> : tensor<4xi4>) : tensor<4xi4>
// ARITH: memref.global "private" constant @m4 : memref<4xi4>
// ARITH: arith.constant {vmpack.logical_type = tensor<4xi4>}
// ARITH: arith.constant {vmpack.logical_type = tensor<1xi4>}

// GLOBALS: ml_program.global private @g4({{.*}}) : tensor<2xi8> {vmpack.logical_type = tensor<4xi4>}
// GLOBALS: ml_program.global private @g2(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
// GLOBALS: memref.global "private" constant @m4 : memref<2xi8>
// GLOBALS: arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>
// GLOBALS: arith.constant dense<7> : tensor<1xi4>

// MEMREF: ml_program.global private @g4(dense<[1, 2, 3, 4]> : tensor<4xi4>) : tensor<4xi4>
// MEMREF: memref.global "private" constant @m4 : memref<2xi8>
// MEMREF: arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>

// BADOP: error: vmpack-pack-subbyte-constants: unknown op kind 'tensor.empty' in 'ops'; expected a list of arith.constant, tosa.const, ml_program.global, memref.global

ml_program.global private @g4(dense<[1, 2, 3, 4]> : tensor<4xi4>) : tensor<4xi4>
ml_program.global private @g2(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
memref.global "private" constant @m4 : memref<4xi4> = dense<[1, 2, 3, 4]>

func.func @f() -> (tensor<4xi4>, tensor<1xi4>) {
  %0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>
  %1 = arith.constant dense<7> : tensor<1xi4>
  return %0, %1 : tensor<4xi4>, tensor<1xi4>
}
