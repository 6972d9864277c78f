// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/arith-const-to-tosa-const.mlir
//   commit 1c65d0e283ce3b8c271fb33b1154336a0e448ff0, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; the splits with tensor constants held inline joined into one module.

func.func @rewrite_f32_tensor() -> tensor<2xf32> {
  %c = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  return %c : tensor<2xf32>
}

func.func @rewrite_i32_tensor() -> tensor<3xi32> {
  %c = arith.constant dense<[1, 0, -1]> : tensor<3xi32>
  return %c : tensor<3xi32>
}

func.func @rewrite_i1_tensor() -> tensor<2xi1> {
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  return %c : tensor<2xi1>
}

func.func @rewrite_rank0_tensor() -> tensor<f32> {
  %c = arith.constant dense<1.234500e+00> : tensor<f32>
  return %c : tensor<f32>
}

func.func @preserve_scalar_i32() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}

func.func @preserve_index_tensor() -> tensor<2xindex> {
  %c = arith.constant dense<[0, 1]> : tensor<2xindex>
  return %c : tensor<2xindex>
}

func.func @rewrite_quant_tensor() -> tensor<2xui8> {
  %c = arith.constant dense<[10, 20]> : tensor<2xui8>
  return %c : tensor<2xui8>
}
