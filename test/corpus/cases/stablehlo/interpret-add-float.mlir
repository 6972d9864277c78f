// Origin: openxla/stablehlo stablehlo/tests/interpret/add.mlir
//   commit d44dbf853ddd2bb656ea7a463d4e7b8c403b2ac9, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; splits joined in one module; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @add_op_test_bf16() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.140625, 0x7F80, 0x7F80, 0xFF80, 0x7F80, 0x0001]> : tensor<11xbf16>}> : () -> tensor<11xbf16>
  %1 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 7.0, 0.75, 0.3, 3.140625, 0.0, 0x7F80, 0xFF80, 0xFF80, 0x8001]> : tensor<11xbf16>}> : () -> tensor<11xbf16>
  %2 = "stablehlo.add"(%0, %1) : (tensor<11xbf16>, tensor<11xbf16>) -> tensor<11xbf16>
  "check.expect_almost_eq_const"(%2) <{value = dense<[0.000000e+00, -0.000000e+00, 8.000000e+00, 8.750000e-01, 4.003910e-01, 6.281250e+00, 0x7F80, 0x7F80, 0xFF80, 0x7FC0, 0.000000e+00]> : tensor<11xbf16>}> : (tensor<11xbf16>) -> ()
  func.return
}

func.func @add_op_test_f16() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.141, 0x7C00, 0x7C00, 0xFC00, 0x7C00, 0x0001]> : tensor<11xf16>}> : () -> tensor<11xf16>
  %1 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 7.0, 0.75, 0.3, 3.141, 0.0, 0x7C00, 0xFC00, 0xFC00, 0x8001]> : tensor<11xf16>}> : () -> tensor<11xf16>
  %2 = "stablehlo.add"(%0, %1) : (tensor<11xf16>, tensor<11xf16>) -> tensor<11xf16>
  "check.expect_almost_eq_const"(%2) <{value = dense<[0.000000e+00, -0.000000e+00, 8.000000e+00, 8.750000e-01, 3.999020e-01, 6.281250e+00, 0x7C00, 0x7C00, 0xFC00, 0x7E00, 0.000000e+00]> : tensor<11xf16>}> : (tensor<11xf16>) -> ()
  func.return

}

func.func @add_op_test_f32() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.14159265, 0x7F800000, 0x7F800000, 0xFF800000, 0x7F800000, 0x00000001]> : tensor<11xf32>}> : () -> tensor<11xf32>
  %1 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 7.0, 0.75, 0.3, 3.14159265, 0.0, 0x7F800000, 0xFF800000, 0xFF800000, 0x80000001]> : tensor<11xf32>}> : () -> tensor<11xf32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<11xf32>, tensor<11xf32>) -> tensor<11xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[0.000000e+00, -0.000000e+00, 8.000000e+00, 8.750000e-01, 4.000000e-01, 6.28318548, 0x7F800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0.000000e+00]> : tensor<11xf32>}> : (tensor<11xf32>) -> ()
  func.return

}

func.func @add_op_test_f64() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.14159265358979323846, 0x7FF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF0000000000000, 0x0000000000000001]> : tensor<11xf64>}> : () -> tensor<11xf64>
  %1 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 7.0, 0.75, 0.3, 3.14159265358979323846, 0.0, 0x7FF0000000000000, 0xFFF0000000000000, 0xFFF0000000000000, 0x8000000000000001]> : tensor<11xf64>}> : () -> tensor<11xf64>
  %2 = "stablehlo.add"(%0, %1) : (tensor<11xf64>, tensor<11xf64>) -> tensor<11xf64>
  "check.expect_almost_eq_const"(%2) <{value = dense<[0.000000e+00, -0.000000e+00, 8.000000e+00, 8.750000e-01, 4.000000e-01, 6.2831853071795862, 0x7FF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0.000000e+00]> : tensor<11xf64>}> : (tensor<11xf64>) -> ()
  func.return
}

func.func @add_op_test_c64() {
  %0 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (7.5, 5.5)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (7.5, 5.5)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%2) <{value = dense<[(3.000000e+00, 5.000000e+00), (1.500000e+01, 1.100000e+01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  func.return
}

func.func @add_op_test_c128() {
  %0 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (7.5, 5.5)]> : tensor<2xcomplex<f64>>}> : () -> tensor<2xcomplex<f64>>
  %1 = "stablehlo.constant"() <{value = dense<[(1.5, 2.5), (7.5, 5.5)]> : tensor<2xcomplex<f64>>}> : () -> tensor<2xcomplex<f64>>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  "check.expect_almost_eq_const"(%2) <{value = dense<[(3.000000e+00, 5.000000e+00), (1.500000e+01, 1.100000e+01)]> : tensor<2xcomplex<f64>>}> : (tensor<2xcomplex<f64>>) -> ()
  func.return
}
