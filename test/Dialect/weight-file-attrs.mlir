// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// The attributes vmpack-convert writes for a weight file's metadata and
// its ggml block tensors (docs/dialect.md, "Weight-file attributes").

// CHECK: module attributes {vmpack.metadata = {{\[\[}}"format", "pt"], ["vmpack.gguf.general.alignment", "uint32:32"]]}
// CHECK: vmpack.ggml_shape = array<i64: 3, 64>, vmpack.ggml_type = 2 : ui32
module attributes {vmpack.metadata = [["format", "pt"], ["vmpack.gguf.general.alignment", "uint32:32"]]} {
  ml_program.global private @q(dense<0> : tensor<108xui8>) : tensor<108xui8> {vmpack.ggml_type = 2 : ui32, vmpack.ggml_shape = array<i64: 3, 64>}
}

// -----

// expected-error @+1 {{'vmpack.metadata' must be an array of [key, value] string pairs}}
module attributes {vmpack.metadata = [["format", 1]]} {
}

// -----

// expected-error @+1 {{'vmpack.metadata' must be an array of [key, value] string pairs}}
module attributes {vmpack.metadata = {format = "pt"}} {
}

// -----

// expected-error @+1 {{'vmpack.ggml_type' must be an integer (a ggml_type)}}
ml_program.global private @q(dense<0> : tensor<18xui8>) : tensor<18xui8> {vmpack.ggml_type = "Q4_0"}

// -----

// expected-error @+1 {{'vmpack.ggml_shape' must be an array<i64: ...> shape}}
ml_program.global private @q(dense<0> : tensor<18xui8>) : tensor<18xui8> {vmpack.ggml_shape = [32]}
