// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/ops.mlir
//   commit 029c4da2eb4470708e53985a40d7a1ae5d14303d, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; only the split @test_reshape (TOSA 1.0 shapes are tosa.const_shape operands).

func.func @test_reshape(%arg0: tensor<13x21x3xf32>) -> tensor<1x819xf32> {
  %1 = tosa.const_shape {values = dense<[1, 819]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %arg0, %1 : (tensor<13x21x3xf32>, !tosa.shape<2>) -> tensor<1x819xf32>
  return %0 : tensor<1x819xf32>
}
