// Origin: llvm/torch-mlir test/Conversion/TorchOnnxToTorch/simple_ops_a_to_f.mlir
//   commit 44d0d92dc4a81377235dd532c07c4ba2f638176e, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: CHECK lines removed; the splits @float_constant, @int_constant, @dense_constant, @ints_constant, @test_constant_of_shape_dense_float_cst and @test_constant_of_shape_dense_bf16_cst joined in one module; converted to MLIR generic form (torch is not registered here), torch types as torch prints them.

func.func @float_constant() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value_float = 0.25 : f32} : () -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

func.func @int_constant() -> !torch.vtensor<[],si64> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value_int = 79 : si64} : () -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}

func.func @dense_constant() -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value = dense<13> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}

func.func @ints_constant() -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"() <{name = "onnx.Constant"}> {torch.onnx.value_ints = [7 : si64, 9 : si64]} : () -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

func.func @test_constant_of_shape_dense_float_cst() -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.ir_version = 9 : si64, torch.onnx_meta.opset_version = 20 : si64, torch.onnx_meta.producer_name = "backend-test", torch.onnx_meta.producer_version = ""} {
  %cst = "torch.vtensor.literal"() <{value = dense<[2,3,4]> : tensor<3xsi64>}> : () -> !torch.vtensor<[3],si64>
  %0 = "torch.operator"(%cst) <{name = "onnx.ConstantOfShape"}> {torch.onnx.value = dense<3.4> : tensor<1xf32>}: (!torch.vtensor<[3],si64>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

func.func @test_constant_of_shape_dense_bf16_cst() -> !torch.vtensor<[2,3,4],bf16> attributes {torch.onnx_meta.ir_version = 9 : si64, torch.onnx_meta.opset_version = 20 : si64, torch.onnx_meta.producer_name = "backend-test", torch.onnx_meta.producer_version = ""} {
  %cst = "torch.vtensor.literal"() <{value = dense<[2,3,4]> : tensor<3xsi64>}> : () -> !torch.vtensor<[3],si64>
  %0 = "torch.operator"(%cst) <{name = "onnx.ConstantOfShape"}> {torch.onnx.value = dense<2.000000e+00> : tensor<1xbf16>}: (!torch.vtensor<[3],si64>) -> !torch.vtensor<[2,3,4],bf16>
  return %0 : !torch.vtensor<[2,3,4],bf16>
}
