// Origin: openxla/stablehlo stablehlo/tests/ops_stablehlo.mlir
//   commit e548a98440ca9d68fbd167e549beacfb7ea13ee3, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: CHECK lines removed; only the split @quantized_constants; converted to MLIR generic form (stablehlo is not registered here).

func.func @quantized_constants() -> (tensor<2x!quant.uniform<i8:f32, 2.0:15>>, tensor<2x!quant.uniform<ui8:f32, 34.0:16>>, tensor<2x!quant.uniform<i8:f32, 2.0:15>>) {
  %0 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
  %1 = "stablehlo.constant"() <{value = dense<[10.0, 12.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %2 = "stablehlo.constant"() <{value = dense<[3.0, 100.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %3 = "stablehlo.uniform_quantize"(%2) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 2.0:15>>
  %4 = "stablehlo.uniform_quantize"(%1) : (tensor<2xf32>) -> tensor<2x!quant.uniform<ui8:f32, 34.0:16>>
  func.return %0, %4, %3 : tensor<2x!quant.uniform<i8:f32, 2.0:15>>, tensor<2x!quant.uniform<ui8:f32, 34.0:16>>, tensor<2x!quant.uniform<i8:f32, 2.0:15>>
}
