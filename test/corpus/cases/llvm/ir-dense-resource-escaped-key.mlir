// Origin: llvm/llvm-project mlir/test/IR/dense-resource-elements-attr.mlir
//   commit cab25e941adbe36dedcfd14c207c8f4b686fd2bb, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; second split of the file.

// DenseResourceElementsHandle key blob\-"one" is quoted and escaped.
"test.user_op"() {attr = dense_resource<"blob\\-\22one\22"> : tensor<2xi16>} : () -> ()

{-#
  dialect_resources: {
    builtin: {
      "blob\\-\22one\22": "0x0200000001000200"
    }
  }
#-}
