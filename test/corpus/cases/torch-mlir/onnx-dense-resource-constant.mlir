// Origin: llvm/torch-mlir test/Conversion/TorchOnnxToTorch/simple_ops_a_to_f.mlir
//   commit 44d0d92dc4a81377235dd532c07c4ba2f638176e, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: CHECK lines removed; only the split @dense_resource_constant; converted to MLIR generic form (torch is not registered here): the op name of torch.operator is its property name.

func.func @dense_resource_constant() -> () attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense_resource<_int32> : tensor<4xsi32>} : () -> !torch.vtensor<[4],si32>
  %1 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense_resource<_float32> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %2 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense_resource<_int8> : tensor<4xsi8>} : () -> !torch.vtensor<[4],si8>
  %3 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense_resource<_int8> : tensor<4xui8>} : () -> !torch.vtensor<[4],ui8>
  return
}

{-#
  dialect_resources: {
    builtin: {
      _int8: "0x0800000080FF327F",
      _int32: "0x08000000000000000a0000008000000068420000",
      _float32: "0x0800000000000000000020410000004300d08446"
    }
  }
#-}
