// Origin: onnx/onnx-mlir test/mlir/onnx/onnx_constprop.mlir
//   commit 1b4b9ea6a7acfd1e01cc6cf338765a2fb51db148, seen 2026-11-30
// Licence: Apache-2.0 (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; the splits @test_ceil, @test_cos and @test_erf joined in one module; onnx.Constant converted to MLIR generic form (onnx is not registered here): value is a property.

func.func @test_ceil() -> tensor<3x2xbf16> {
  // Test Positive, Negative, Zero, NaN, +Inf, -Inf
  %0 = "onnx.Constant"() <{value = dense<[[12.2, -12.2], [0.0, 0x7FC0], [0x7F80, 0xFF80]]> : tensor<3x2xbf16>}> : () -> tensor<3x2xbf16>
  %1 = "onnx.Ceil"(%0) : (tensor<3x2xbf16>) -> tensor<3x2xbf16>
  "onnx.Return"(%1) : (tensor<3x2xbf16>) -> ()
}

func.func @test_cos() -> tensor<3x2xf32> {
  // Test Positive, Negative, Zero, NaN, +Inf, -Inf
  // Results: Positive, Positive, One, NaN, +/-NaN, +/-NaN
  // Note: Implementations of cos can output either NaN and -NaN for +/-Inf numbers.
  %0 = "onnx.Constant"() <{value = dense<[[0.625, -0.625], [0.0, 0x7FC00000], [0x7F800000, 0xFF800000]]> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
  %1 = "onnx.Cos"(%0) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  "onnx.Return"(%1) : (tensor<3x2xf32>) -> ()
}

func.func @test_erf() -> tensor<3x2xbf16> {
  // Test Positive, Negative, Zero, NaN, +Inf, -Inf
  %0 = "onnx.Constant"() <{value = dense<[[0.0625, -1.0], [0.0, 0x7FC0], [0x7F80, 0xFF80]]> : tensor<3x2xbf16>}> : () -> tensor<3x2xbf16>
  %1 = "onnx.Erf"(%0) : (tensor<3x2xbf16>) -> tensor<3x2xbf16>
  "onnx.Return"(%1) : (tensor<3x2xbf16>) -> ()
}
