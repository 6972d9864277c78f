// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/tosa-layerwise-constant-fold-dense-resource.mlir
//   commit 0d26d9ba23040c04c4f4bd6fa8156b8dc3e4d8bf, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; first split of the file.

func.func @transpose_fold_dense_resource() -> tensor<2x2xf32> {
  %0 = "tosa.const"() <{values = dense_resource<resource> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>

  %2 = tosa.transpose %0 { perms = array<i32: 1, 0> }: (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      resource: "0x040000003f800000400000004040000040800000"
    }
  }
#-}
