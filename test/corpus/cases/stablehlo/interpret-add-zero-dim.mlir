// Origin: openxla/stablehlo stablehlo/tests/interpret/add.mlir
//   commit d44dbf853ddd2bb656ea7a463d4e7b8c403b2ac9, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed; one split; converted to MLIR generic form (stablehlo and check are not registered here).

func.func @add_op_tensor_shape_with_zero_dim_size() {
  %0 = "stablehlo.constant"() <{value = dense<2> : tensor<2x0x3xi4>}> : () -> tensor<2x0x3xi4>
  %1 = "stablehlo.constant"() <{value = dense<3> : tensor<2x0x3xi4>}> : () -> tensor<2x0x3xi4>
  %2 = "stablehlo.add"(%0, %1) : (tensor<2x0x3xi4>, tensor<2x0x3xi4>) -> tensor<2x0x3xi4>
  "check.expect_eq_const"(%2) <{value = dense<> : tensor<2x0x3xi4>}> : (tensor<2x0x3xi4>) -> ()
  func.return
}
