// Origin: llvm/torch-mlir test/Conversion/TorchOnnxToTorch/simple_ops_a_to_f.mlir
//   commit 44d0d92dc4a81377235dd532c07c4ba2f638176e, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: CHECK lines removed; only the split @dense_constant_i1; converted to MLIR generic form (torch is not registered here). The blob holds one byte per i1 element.

func.func @dense_constant_i1() -> !torch.vtensor<[5],i1> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense_resource<_> : tensor<5xi1>} : () -> !torch.vtensor<[5],i1>
  return %0 : !torch.vtensor<[5],i1>
}

{-#
  dialect_resources: {
    builtin: {
      _: "0x080000000100000101"
    }
  }
#-}
