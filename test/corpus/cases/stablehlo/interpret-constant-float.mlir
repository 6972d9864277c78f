// Origin: openxla/stablehlo stablehlo/tests/interpret/constant.mlir
//   commit 5ae7716ab0c7a01174d80ad114a0672604e30102, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; splits joined in one module; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @constant_op_test_bf16() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.140630, 0x7F80, 0xFF80, 0x7FFF, 0x0001, 0x8001]> : tensor<11xbf16>}> : () -> tensor<11xbf16>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 1.000980e-01, 3.140630e+00, 0x7F80, 0xFF80, 0x7FFF, 9.183550e-41, -9.183550e-41]> : tensor<11xbf16>}> : (tensor<11xbf16>) -> ()
  func.return
}

func.func @constant_op_test_f16() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.140630, 0x7C00, 0xFC00, 0x7FFF, 0x0001, 0x8001]> : tensor<11xf16>}> : () -> tensor<11xf16>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 9.997550e-02, 3.140630e+00, 0x7C00, 0xFC00, 0x7FFF, 5.960460e-08, -5.960460e-08]> : tensor<11xf16>}> : (tensor<11xf16>) -> ()
  func.return
}

func.func @constant_op_test_f32() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.14159274, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0x00000001, 0x80000001]> : tensor<11xf32>}> : () -> tensor<11xf32>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 1.000000e-01, 3.14159274, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 1.401300e-45, -1.401300e-45]> : tensor<11xf32>}> : (tensor<11xf32>) -> ()
  func.return
}

func.func @constant_op_test_f64() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415926535897931, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FFFFFFFFFFFFFFF, 0x0000000000000001, 0x8000000000000001]> : tensor<11xf64>}> : () -> tensor<11xf64>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 1.000000e-01, 3.1415926535897931, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FFFFFFFFFFFFFFF, 4.940660e-324, -4.940660e-324]> : tensor<11xf64>}> : (tensor<11xf64>) -> ()
  func.return
}

func.func @constant_op_test_c64() {
  %0 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (3.5, 4.5)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%0) <{value = dense<[(1.500000e+00, 2.500000e+00), (3.500000e+00, 4.500000e+00)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  func.return
}

func.func @constant_op_test_c128() {
  %0 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (3.5, 4.5)]> : tensor<2xcomplex<f64>>}> : () -> tensor<2xcomplex<f64>>
  "check.expect_almost_eq_const"(%0) <{value = dense<[(1.500000e+00, 2.500000e+00), (3.500000e+00, 4.500000e+00)]> : tensor<2xcomplex<f64>>}> : (tensor<2xcomplex<f64>>) -> ()
  func.return
}
