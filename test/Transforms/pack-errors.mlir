// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file -verify-diagnostics --vmpack-pack-subbyte-constants

// Payloads that cannot be read fail the pass with an error at the op.

func.func @elided() -> tensor<3xi4> {
  // expected-error @+1 {{dense_resource '__elided__' has no data (elided or missing from the module's dialect_resources); cannot pack it}}
  %0 = arith.constant dense_resource<__elided__> : tensor<3xi4>
  return %0 : tensor<3xi4>
}

// -----

// expected-error @+1 {{dense_resource 'absent' has no data}}
ml_program.global private @missing(dense_resource<absent> : tensor<5xi4>) : tensor<5xi4>

// -----

// expected-error @+1 {{dense_resource '__elided__' has no data}}
memref.global "private" constant @elided_memref : memref<3xi4> = dense_resource<__elided__>

// -----

func.func @short() -> tensor<3xi4> {
  // expected-error @+1 {{dense_resource 'short' holds 2 bytes, but 'tensor<3xi4>' takes 3 bytes in MLIR's storage layout}}
  %0 = arith.constant dense_resource<short> : tensor<3xi4>
  return %0 : tensor<3xi4>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000102"
    }
  }
#-}

// -----

// Every bad constant is reported, not only the first.
func.func @two() -> (tensor<3xi4>, tensor<2xi3>) {
  // expected-error @+1 {{dense_resource 'a' has no data}}
  %0 = arith.constant dense_resource<a> : tensor<3xi4>
  // expected-error @+1 {{dense_resource 'b' has no data}}
  %1 = arith.constant dense_resource<b> : tensor<2xi3>
  return %0, %1 : tensor<3xi4>, tensor<2xi3>
}
