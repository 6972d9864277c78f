// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'vmpack.logical_type' 'tensor<5xi4>' is stored in 3 packed bytes, but the op's storage type is 'tensor<2xi8>' (expected a 1-D i8 type of 3 elements)}}
ml_program.global private @g(dense<0> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<5xi4>}

// -----

// expected-error @+1 {{'vmpack.logical_type' must be a statically shaped type, got tensor<?xi4>}}
ml_program.global private @g(dense<0> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<?xi4>}

// -----

// expected-error @+1 {{'vmpack.logical_type' must be a statically shaped type, got "i4"}}
ml_program.global private @g(dense<0> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = "i4"}

// -----

// expected-error @+1 {{'vmpack.logical_type' must be a statically shaped type, got i4}}
ml_program.global private @g(dense<0> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = i4}

// -----

func.func @f() -> tensor<6xi4> {
  // expected-error @+1 {{'vmpack.logical_type' 'tensor<3xi4>' is stored in 2 packed bytes, but the op's storage type is 'tensor<6xi4>'}}
  %0 = arith.constant {vmpack.logical_type = tensor<3xi4>} dense<0> : tensor<6xi4>
  return %0 : tensor<6xi4>
}

// -----

// expected-error @+1 {{'vmpack.logical_type' 'memref<10xi1>' is stored in 2 packed bytes, but the op's storage type is 'memref<1x2xi8>'}}
memref.global "private" constant @m : memref<1x2xi8> = dense<0> {vmpack.logical_type = memref<10xi1>}

// -----

// expected-error @+1 {{'vmpack.logical_type' needs an op with one shaped result or a shaped 'type' attribute}}
func.func private @f() attributes {vmpack.logical_type = tensor<5xi4>}

// -----

// expected-error @+1 {{unknown vmpack attribute 'vmpack.other'}}
func.func private @f() attributes {vmpack.other = 1}
