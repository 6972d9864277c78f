// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/arith-const-to-tosa-const.mlir
//   commit 1c65d0e283ce3b8c271fb33b1154336a0e448ff0, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; one split. The blob blob1 is referenced but not in the file.

func.func @rewrite_resource_tensor() -> tensor<4xf32> {
  %c = arith.constant dense_resource<"blob1"> : tensor<4xf32>
  return %c : tensor<4xf32>
}
