// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/arith-const-to-tosa-const.mlir
//   commit 1c65d0e283ce3b8c271fb33b1154336a0e448ff0, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; one split. In MLIR 22 a dense list of a quantized element type parses as string elements.

func.func @rewrite_quant_uniform_tensor() -> tensor<2x!quant.uniform<i8:f32, 0.5:0>> {
  %c = arith.constant dense<["10", "20"]> : tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  return %c : tensor<2x!quant.uniform<i8:f32, 0.5:0>>
}
