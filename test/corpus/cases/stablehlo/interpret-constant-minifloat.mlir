// Origin: openxla/stablehlo stablehlo/tests/interpret/constant.mlir
//   commit 5ae7716ab0c7a01174d80ad114a0672604e30102, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; splits joined in one module; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @constant_op_test_f4_e2m1fn() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x07, 0x0F, 0x01, 0x09]> : tensor<10xf4E2M1FN>}> : () -> tensor<10xf4E2M1FN>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.0, 0.0, 3.0, 6.0, -6.0, 0.5, -0.5]> : tensor<10xf4E2M1FN>}> : (tensor<10xf4E2M1FN>) -> ()
  func.return
}

func.func @constant_op_test_f6_e2m3fn() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x1F, 0x3F, 0x01, 0x21]> : tensor<10xf6E2M3FN>}> : () -> tensor<10xf6E2M3FN>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.125, 3.25, 7.5, -7.5, 0.125, -0.125]> : tensor<10xf6E2M3FN>}> : (tensor<10xf6E2M3FN>) -> ()
  func.return
}

func.func @constant_op_test_f6_e3m2fn() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x1F, 0x3F, 0x01, 0x21]> : tensor<10xf6E3M2FN>}> : () -> tensor<10xf6E3M2FN>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.125, 3.0, 28.0, -28.0, 0.0625, -0.0625]> : tensor<10xf6E3M2FN>}> : (tensor<10xf6E3M2FN>) -> ()
  func.return
}

func.func @constant_op_test_f8_e3m4() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E3M4>}> : () -> tensor<10xf8E3M4>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.09375, 3.125, 0x7F, 0xFF, 0.015625, -0.015625]> : tensor<10xf8E3M4>}> : (tensor<10xf8E3M4>) -> ()
  func.return
}

func.func @constant_op_test_f8_e4m3b11_fnuz() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E4M3B11FNUZ>}> : () -> tensor<10xf8E4M3B11FNUZ>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, 0.0, 1.0, 0.125, 0.101563, 3.25, 30.0, -30.0, 0.00012207, -0.00012207]> : tensor<10xf8E4M3B11FNUZ>}> : (tensor<10xf8E4M3B11FNUZ>) -> ()
  func.return
}

func.func @constant_op_test_f8_e4m3() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E4M3>}> : () -> tensor<10xf8E4M3>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1015630, 3.25, 0x7F, 0xFF, 0.001953130, -0.001953130]> : tensor<10xf8E4M3>}> : (tensor<10xf8E4M3>) -> ()
  func.return
}

func.func @constant_op_test_f8_e4m3_fn() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E4M3FN>}> : () -> tensor<10xf8E4M3FN>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1015630, 3.25, 0x7F, 0xFF, 0.001953130, -0.001953130]> : tensor<10xf8E4M3FN>}> : (tensor<10xf8E4M3FN>) -> ()
  func.return
}

func.func @constant_op_test_f8_e4m3_fnuz() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E4M3FNUZ>}> : () -> tensor<10xf8E4M3FNUZ>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, 0.0, 1.0, 0.125, 0.101563, 3.25, 240.0, -240.0, 0.000976562, -0.0009765620]> : tensor<10xf8E4M3FNUZ>}> : (tensor<10xf8E4M3FNUZ>) -> ()
  func.return
}

func.func @constant_op_test_f8_e5m2() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E5M2>}> : () -> tensor<10xf8E5M2>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.09375, 3.0, 0x7F, 0xFF, 0.0000152588, -0.0000152588]> : tensor<10xf8E5M2>}> : (tensor<10xf8E5M2>) -> ()
  func.return
}

func.func @constant_op_test_f8_e5m2_fnuz() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E5M2FNUZ>}> : () -> tensor<10xf8E5M2FNUZ>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, 0.0, 1.0, 0.125, 0.09375, 3.0, 57344.0, -57344.0, 0.00000762939, -0.00000762939]> : tensor<10xf8E5M2FNUZ>}> : (tensor<10xf8E5M2FNUZ>) -> ()
  func.return
}

func.func @constant_op_test_f8_e8m0fnu() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, 1.0, 0.125, 0.1, 3.1415, 0x00, 0x80, 0xFF]> : tensor<8xf8E8M0FNU>}> : () -> tensor<8xf8E8M0FNU>
  "check.expect_almost_eq_const"(%0) <{value = dense<[0.0, 1.0, 0.125, 0.125, 4.0, 1.175490e-38, 2.0, 0xFF]> : tensor<8xf8E8M0FNU>}> : (tensor<8xf8E8M0FNU>) -> ()
  func.return
}
