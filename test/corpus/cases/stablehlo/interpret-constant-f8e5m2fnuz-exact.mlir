// Origin: openxla/stablehlo stablehlo/tests/interpret/constant.mlir
//   commit 5ae7716ab0c7a01174d80ad114a0672604e30102, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; one split; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @constant_op_test_f8_e5m2_fnuz() {
  %0 = "stablehlo.constant"() <{value = dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E5M2FNUZ>}> : () -> tensor<10xf8E5M2FNUZ>
  "check.expect_eq_const"(%0) <{value = dense<[0.0, 0.0, 1.0, 0.125, 0.1, 3.0, 57344.0, -57344.0, 7.62939e-06, -7.62939e-06]> : tensor<10xf8E5M2FNUZ>}> : (tensor<10xf8E5M2FNUZ>) -> ()
  func.return
}
