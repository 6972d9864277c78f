// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file -verify-diagnostics

func.func @dynamic_shape(%raw: tensor<?xi8>) -> tensor<5xi4> {
  // expected-error @+1 {{requires statically shaped tensors, got 'tensor<?xi8>' -> 'tensor<5xi4>'}}
  %0 = vmpack.bitcast %raw : tensor<?xi8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// -----

func.func @unranked(%raw: tensor<*xi8>) -> tensor<5xi4> {
  // expected-error @+1 {{requires statically shaped tensors}}
  %0 = vmpack.bitcast %raw : tensor<*xi8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// -----

func.func @wrong_size(%raw: tensor<2xi8>) -> tensor<5xi4> {
  // expected-error @+1 {{logical type 'tensor<5xi4>' packs into 3 bytes, but the storage type 'tensor<2xi8>' has 2}}
  %0 = vmpack.bitcast %raw : tensor<2xi8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// -----

func.func @wrong_size_reverse(%w: tensor<10xi1>) -> tensor<1xi8> {
  // expected-error @+1 {{logical type 'tensor<10xi1>' packs into 2 bytes, but the storage type 'tensor<1xi8>' has 1}}
  %0 = vmpack.bitcast %w : tensor<10xi1> -> tensor<1xi8>
  return %0 : tensor<1xi8>
}

// -----

// A complex element counts two scalars: 3 x 2 x 4 bits = 3 bytes.
func.func @complex_counts_twice(%raw: tensor<2xi8>) -> tensor<3xcomplex<i4>> {
  // expected-error @+1 {{logical type 'tensor<3xcomplex<i4>>' packs into 3 bytes, but the storage type 'tensor<2xi8>' has 2}}
  %0 = vmpack.bitcast %raw : tensor<2xi8> -> tensor<3xcomplex<i4>>
  return %0 : tensor<3xcomplex<i4>>
}

// -----

func.func @no_storage_side(%w: tensor<4xi4>) -> tensor<2x1xi8> {
  // expected-error @+1 {{requires exactly one side to be a 1-D i8 storage tensor, got 'tensor<4xi4>' -> 'tensor<2x1xi8>'}}
  %0 = vmpack.bitcast %w : tensor<4xi4> -> tensor<2x1xi8>
  return %0 : tensor<2x1xi8>
}

// -----

func.func @two_storage_sides(%raw: tensor<4xi8>) -> tensor<2xi8> {
  // expected-error @+1 {{requires exactly one side to be a 1-D i8 storage tensor}}
  %0 = vmpack.bitcast %raw : tensor<4xi8> -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

func.func @storage_not_i8(%raw: tensor<3xui8>) -> tensor<5xi4> {
  // expected-error @+1 {{requires exactly one side to be a 1-D i8 storage tensor}}
  %0 = vmpack.bitcast %raw : tensor<3xui8> -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// -----

func.func @unpackable_element(%raw: tensor<8xi8>) -> tensor<1xvector<2xi32>> {
  // expected-error @+1 {{logical element type 'vector<2xi32>' has no packed layout}}
  %0 = vmpack.bitcast %raw : tensor<8xi8> -> tensor<1xvector<2xi32>>
  return %0 : tensor<1xvector<2xi32>>
}

// -----

func.func @not_a_tensor(%raw: memref<3xi8>) {
  // expected-error @+1 {{invalid kind of type specified}}
  %0 = vmpack.bitcast %raw : memref<3xi8> -> tensor<5xi4>
  return
}
