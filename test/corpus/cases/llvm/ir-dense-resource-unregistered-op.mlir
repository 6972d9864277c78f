// Origin: llvm/llvm-project mlir/test/IR/dense-resource-elements-attr.mlir
//   commit cab25e941adbe36dedcfd14c207c8f4b686fd2bb, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; first split of the file.

"test.user_op"() {attr = dense_resource<blob1> : tensor<3xi64> } : () -> ()

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
