// Origin: llvm/llvm-project mlir/test/Dialect/Tosa/tosa-layerwise-constant-fold-dense-resource.mlir
//   commit 0d26d9ba23040c04c4f4bd6fa8156b8dc3e4d8bf, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; one split of the file.

func.func @transpose_fold_dense_resource_bf16() -> tensor<2x2xbf16> {
  %0 = "tosa.const"() <{values = dense_resource<resource> : tensor<2x2xbf16>}> : () -> tensor<2x2xbf16>

  %1 = tosa.transpose %0 { perms = array<i32: 1, 0> }: (tensor<2x2xbf16>) -> tensor<2x2xbf16>
  return %1 : tensor<2x2xbf16>
}
{-#
  dialect_resources: {
    builtin: {
      resource: "0x02000000803f004040408040"
    }
  }
#-}
