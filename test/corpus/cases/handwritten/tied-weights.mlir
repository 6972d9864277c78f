// Origin: written for vmpack's corpus in the style of MLIR's Bytecode/resources.mlir and torch-mlir's ONNX importer tests
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Tied weights: one blob read by two ops under two types, and two blobs with
// identical bytes under their own keys. Each key must come back as written.

module @tied attributes {
  bytecode.test2 = dense_resource<resource> : tensor<4xf64>,
  bytecode.test3 = dense_resource<resource_2> : tensor<4xf64>
} {
  ml_program.global private @embed(dense_resource<tok> : tensor<2x3xbf16>) : tensor<2x3xbf16>
  ml_program.global private @unembed(dense_resource<tok> : tensor<2x3xf16>) : tensor<2x3xf16>
  func.func @scales() -> (tensor<4xi8>, tensor<4xui8>) {
    %0 = "tosa.const"() <{values = dense_resource<scale> : tensor<4xi8>}> : () -> tensor<4xi8>
    %1 = "vendor.const"() <{value = dense_resource<scale> : tensor<4xui8>}> : () -> tensor<4xui8>
    return %0, %1 : tensor<4xi8>, tensor<4xui8>
  }
}

{-#
  dialect_resources: {
    builtin: {
      resource: "0x080000000100000000000000020000000000000003000000000000000400000000000000",
      resource_2: "0x080000000100000000000000020000000000000003000000000000000400000000000000",
      tok: "0x02000000803F0040404080C000000080",
      scale: "0x0800000080FF327F"
    }
  }
#-}
