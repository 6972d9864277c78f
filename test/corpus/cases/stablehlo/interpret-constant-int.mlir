// Origin: openxla/stablehlo stablehlo/tests/interpret/constant.mlir
//   commit 5ae7716ab0c7a01174d80ad114a0672604e30102, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; splits joined in one module; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @constant_op_test_si2() {
  %0 = "stablehlo.constant"() <{value = dense<[-2, -1, 0, 1]> : tensor<4xi2>}> : () -> tensor<4xi2>
  "check.expect_eq_const"(%0) <{value = dense<[-2, -1, 0, 1]> : tensor<4xi2>}> : (tensor<4xi2>) -> ()
  func.return
}

func.func @constant_op_test_ui2() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 2, 3]> : tensor<4xui2>}> : () -> tensor<4xui2>
  "check.expect_eq_const"(%0) <{value = dense<[0, 1, 2, 3]> : tensor<4xui2>}> : (tensor<4xui2>) -> ()
  func.return
}

func.func @constant_op_test_si4() {
  %0 = "stablehlo.constant"() <{value = dense<[-8, -1, 0, 1, 7]> : tensor<5xi4>}> : () -> tensor<5xi4>
  "check.expect_eq_const"(%0) <{value = dense<[-8, -1, 0, 1, 7]> : tensor<5xi4>}> : (tensor<5xi4>) -> ()
  func.return
}

func.func @constant_op_test_ui4() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 8, 15]> : tensor<3xui4>}> : () -> tensor<3xui4>
  "check.expect_eq_const"(%0) <{value = dense<[0, 8, 15]> : tensor<3xui4>}> : (tensor<3xui4>) -> ()
  func.return
}

func.func @constant_op_test_si8() {
  %0 = "stablehlo.constant"() <{value = dense<[-128, -9, 0, 8, 127]> : tensor<5xi8>}> : () -> tensor<5xi8>
  "check.expect_eq_const"(%0) <{value = dense<[-128, -9, 0, 8, 127]> : tensor<5xi8>}> : (tensor<5xi8>) -> ()
  func.return
}

func.func @constant_op_test_ui8() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 16, 255]> : tensor<3xui8>}> : () -> tensor<3xui8>
  "check.expect_eq_const"(%0) <{value = dense<[0, 16, 255]> : tensor<3xui8>}> : (tensor<3xui8>) -> ()
  func.return
}

func.func @constant_op_test_si16() {
  %0 = "stablehlo.constant"() <{value = dense<[-32768, -129, 0, 128, 32767]> : tensor<5xi16>}> : () -> tensor<5xi16>
  "check.expect_eq_const"(%0) <{value = dense<[-32768, -129, 0, 128, 32767]> : tensor<5xi16>}> : (tensor<5xi16>) -> ()
  func.return
}

func.func @constant_op_test_ui16() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 256, 65535]> : tensor<3xui16>}> : () -> tensor<3xui16>
  "check.expect_eq_const"(%0) <{value = dense<[0, 256, 65535]> : tensor<3xui16>}> : (tensor<3xui16>) -> ()
  func.return
}

func.func @constant_op_test_si32() {
  %0 = "stablehlo.constant"() <{value = dense<[-2147483648, -65537, 0, 65536, 2147483647]> : tensor<5xi32>}> : () -> tensor<5xi32>
  "check.expect_eq_const"(%0) <{value = dense<[-2147483648, -65537, 0, 65536, 2147483647]> : tensor<5xi32>}> : (tensor<5xi32>) -> ()
  func.return
}

func.func @constant_op_test_ui32() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 65536, 4294967295]> : tensor<3xui32>}> : () -> tensor<3xui32>
  "check.expect_eq_const"(%0) <{value = dense<[0, 65536, 4294967295]> : tensor<3xui32>}> : (tensor<3xui32>) -> ()
  func.return
}

func.func @constant_op_test_si64() {
  %0 = "stablehlo.constant"() <{value = dense<[-9223372036854775808, -2147483649, 0, 2147483648, 9223372036854775807]> : tensor<5xi64>}> : () -> tensor<5xi64>
  "check.expect_eq_const"(%0) <{value = dense<[-9223372036854775808, -2147483649, 0, 2147483648, 9223372036854775807]> : tensor<5xi64>}> : (tensor<5xi64>) -> ()
  func.return
}

func.func @constant_op_test_ui64() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 4294967296, 18446744073709551615]> : tensor<3xui64>}> : () -> tensor<3xui64>
  "check.expect_eq_const"(%0) <{value = dense<[0, 4294967296, 18446744073709551615]> : tensor<3xui64>}> : (tensor<3xui64>) -> ()
  func.return
}
