// Origin: openxla/stablehlo stablehlo/tests/print_stablehlo.mlir
//   commit 7c50d4efeaea30bff6aa5e46c7f71170f5aa06af, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: CHECK lines removed; only @constants; converted to MLIR generic form (stablehlo is not registered here): the inherent attribute value is a property, as StableHLO's generic printer puts it.

func.func @constants() -> () {
  %cst = "stablehlo.constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %cst_attrs = "stablehlo.constant"() <{value = dense<[-2, 4]> : tensor<2xi64>}> {attr = 1 : i32} : () -> tensor<2xi64>
  %cst_q = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
  %cst_q_attr = "stablehlo.constant"() <{value = dense<[3]> : tensor<1xi8>}> : () -> tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>
  %cst_q_attrs = "stablehlo.constant"() <{value = dense<[4]> : tensor<1xi8>}> {attr = 1 : i32} : () -> tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>
  func.return
}
