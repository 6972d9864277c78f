// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/tosa-layerwise-constant-fold-dense-resource.mlir
//   commit 0d26d9ba23040c04c4f4bd6fa8156b8dc3e4d8bf, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; one split of the file.

func.func @transpose_fold_dense_resource_f4e2m1fn() -> tensor<2x2xf4E2M1FN> {
  %0 = "tosa.const"() <{values = dense_resource<resource> : tensor<2x2xf4E2M1FN>}> : () -> tensor<2x2xf4E2M1FN>

  %1 = tosa.transpose %0 { perms = array<i32: 1, 0> }: (tensor<2x2xf4E2M1FN>) -> tensor<2x2xf4E2M1FN>
  return %1 : tensor<2x2xf4E2M1FN>
}
{-#
  dialect_resources: {
    builtin: {
      resource: "0x0100000002040506"
    }
  }
#-}
