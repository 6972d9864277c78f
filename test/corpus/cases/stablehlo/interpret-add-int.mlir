// Origin: openxla/stablehlo stablehlo/tests/interpret/add.mlir
//   commit d44dbf853ddd2bb656ea7a463d4e7b8c403b2ac9, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; splits joined in one module; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @add_op_test_si2() {
  %0 = "stablehlo.constant"() <{value = dense<[1, 0, -1, -2]> : tensor<4xi2>}> : () -> tensor<4xi2>
  %1 = "stablehlo.constant"() <{value = dense<[-1, 1, 1, 1]> : tensor<4xi2>}> : () -> tensor<4xi2>
  %2 = "stablehlo.add"(%0, %1) : (tensor<4xi2>, tensor<4xi2>) -> tensor<4xi2>
  "check.expect_eq_const"(%2) <{value = dense<[0, 1, 0, -1]> : tensor<4xi2>}> : (tensor<4xi2>) -> ()
  func.return
}

func.func @add_op_test_ui2() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 2]> : tensor<2xui2>}> : () -> tensor<2xui2>
  %1 = "stablehlo.constant"() <{value = dense<[1, 1]> : tensor<2xui2>}> : () -> tensor<2xui2>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui2>, tensor<2xui2>) -> tensor<2xui2>
  "check.expect_eq_const"(%2) <{value = dense<[1, 3]> : tensor<2xui2>}> : (tensor<2xui2>) -> ()
  func.return
}

func.func @add_op_test_si4() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 2, -3, 0]> : tensor<5xi4>}> : () -> tensor<5xi4>
  %1 = "stablehlo.constant"() <{value = dense<[-8, -1, 2, -3, 7]> : tensor<5xi4>}> : () -> tensor<5xi4>
  %2 = "stablehlo.add"(%0, %1) : (tensor<5xi4>, tensor<5xi4>) -> tensor<5xi4>
  "check.expect_eq_const"(%2) <{value = dense<[-8, 0, 4, -6, 7]> : tensor<5xi4>}> : (tensor<5xi4>) -> ()
  func.return
}

func.func @add_op_test_ui4() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 2]> : tensor<2xui4>}> : () -> tensor<2xui4>
  %1 = "stablehlo.constant"() <{value = dense<[15, 3]> : tensor<2xui4>}> : () -> tensor<2xui4>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui4>, tensor<2xui4>) -> tensor<2xui4>
  "check.expect_eq_const"(%2) <{value = dense<[15, 5]> : tensor<2xui4>}> : (tensor<2xui4>) -> ()
  func.return
}

func.func @add_op_test_si8() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 8, -9, 0]> : tensor<5xi8>}> : () -> tensor<5xi8>
  %1 = "stablehlo.constant"() <{value = dense<[-128, -1, 8, -9, 127]> : tensor<5xi8>}> : () -> tensor<5xi8>
  %2 = "stablehlo.add"(%0, %1) : (tensor<5xi8>, tensor<5xi8>) -> tensor<5xi8>
  "check.expect_eq_const"(%2) <{value = dense<[-128, 0, 16, -18, 127]> : tensor<5xi8>}> : (tensor<5xi8>) -> ()
  func.return
}

func.func @add_op_test_ui8() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 16]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %1 = "stablehlo.constant"() <{value = dense<[255, 16]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  "check.expect_eq_const"(%2) <{value = dense<[255, 32]> : tensor<2xui8>}> : (tensor<2xui8>) -> ()
  func.return
}

func.func @add_op_test_si16() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 128, -129, 0]> : tensor<5xi16>}> : () -> tensor<5xi16>
  %1 = "stablehlo.constant"() <{value = dense<[-32768, -1, 128, -129, 32767]> : tensor<5xi16>}> : () -> tensor<5xi16>
  %2 = "stablehlo.add"(%0, %1) : (tensor<5xi16>, tensor<5xi16>) -> tensor<5xi16>
  "check.expect_eq_const"(%2) <{value = dense<[-32768, 0, 256, -258, 32767]> : tensor<5xi16>}> : (tensor<5xi16>) -> ()
  func.return
}

func.func @add_op_test_ui16() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 256]> : tensor<2xui16>}> : () -> tensor<2xui16>
  %1 = "stablehlo.constant"() <{value = dense<[65535, 256]> : tensor<2xui16>}> : () -> tensor<2xui16>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
  "check.expect_eq_const"(%2) <{value = dense<[65535, 512]> : tensor<2xui16>}> : (tensor<2xui16>) -> ()
  func.return
}

func.func @add_op_test_si32() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 32768, -32769, 0]> : tensor<5xi32>}> : () -> tensor<5xi32>
  %1 = "stablehlo.constant"() <{value = dense<[-2147483648, -1, 32768, -32769, 2147483647]> : tensor<5xi32>}> : () -> tensor<5xi32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-2147483648, 0, 65536, -65538, 2147483647]> : tensor<5xi32>}> : (tensor<5xi32>) -> ()
  func.return
}

func.func @add_op_test_ui32() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 65536]> : tensor<2xui32>}> : () -> tensor<2xui32>
  %1 = "stablehlo.constant"() <{value = dense<[4294967295, 65536]> : tensor<2xui32>}> : () -> tensor<2xui32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  "check.expect_eq_const"(%2) <{value = dense<[4294967295, 131072]> : tensor<2xui32>}> : (tensor<2xui32>) -> ()
  func.return
}

func.func @add_op_test_si64() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 2147483648, -2147483649, 0]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %1 = "stablehlo.constant"() <{value = dense<[-9223372036854775808, -1, 2147483648, -2147483649, 9223372036854775807]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %2 = "stablehlo.add"(%0, %1) : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  "check.expect_eq_const"(%2) <{value = dense<[-9223372036854775808, 0, 4294967296, -4294967298, 9223372036854775807]> : tensor<5xi64>}> : (tensor<5xi64>) -> ()
  func.return
}

func.func @add_op_test_ui64() {
  %0 = "stablehlo.constant"() <{value = dense<[0, 4294967296]> : tensor<2xui64>}> : () -> tensor<2xui64>
  %1 = "stablehlo.constant"() <{value = dense<[18446744073709551615, 4294967296]> : tensor<2xui64>}> : () -> tensor<2xui64>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  "check.expect_eq_const"(%2) <{value = dense<[18446744073709551615, 8589934592]> : tensor<2xui64>}> : (tensor<2xui64>) -> ()
  func.return
}

func.func @add_op_test_i1() {
  %0 = "stablehlo.constant"() <{value = dense<[false, false, true, true]> : tensor<4xi1>}> : () -> tensor<4xi1>
  %1 = "stablehlo.constant"() <{value = dense<[false, true, false, true]> : tensor<4xi1>}> : () -> tensor<4xi1>
  %2 = "stablehlo.add"(%0, %1) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  "check.expect_eq_const"(%2) <{value = dense<[false, true, true, true]> : tensor<4xi1>}> : (tensor<4xi1>) -> ()
  func.return
}
