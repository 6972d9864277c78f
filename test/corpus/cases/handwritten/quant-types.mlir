// Origin: written for vmpack's corpus in the style of TOSA and StableHLO quantized weights
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Quantized element types: dense_resource blobs typed !quant.uniform (per-tensor, per-axis, unsigned storage), and i8 values under quantized result types. MLIR 22 stores sub-byte storage one element per byte.

func.func @quantized() -> (tensor<4x!quant.uniform<i4:f32, 5.000000e-01:-1>>, tensor<2x2x!quant.uniform<i4:f32:0, {5.000000e-01:-1,2.500000e-01:2}>>, tensor<3x!quant.uniform<u4:f32, 1.000000e-01:8>>, tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>) {
  %0 = "tosa.const"() <{values = dense_resource<q_i4> : tensor<4x!quant.uniform<i4:f32, 5.000000e-01:-1>>}> : () -> tensor<4x!quant.uniform<i4:f32, 5.000000e-01:-1>>
  %1 = "tosa.const"() <{values = dense_resource<q_i4_axis> : tensor<2x2x!quant.uniform<i4:f32:0, {5.000000e-01:-1,2.500000e-01:2}>>}> : () -> tensor<2x2x!quant.uniform<i4:f32:0, {5.000000e-01:-1,2.500000e-01:2}>>
  %2 = "stablehlo.constant"() <{value = dense_resource<q_u4> : tensor<3x!quant.uniform<u4:f32, 1.000000e-01:8>>}> : () -> tensor<3x!quant.uniform<u4:f32, 1.000000e-01:8>>
  %3 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
  return %0, %1, %2, %3 : tensor<4x!quant.uniform<i4:f32, 5.000000e-01:-1>>, tensor<2x2x!quant.uniform<i4:f32:0, {5.000000e-01:-1,2.500000e-01:2}>>, tensor<3x!quant.uniform<u4:f32, 1.000000e-01:8>>, tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>
}

{-#
  dialect_resources: {
    builtin: {
      q_i4: "0x01000000010E0307",
      q_i4_axis: "0x01000000080F0701",
      q_u4: "0x01000000000F08"
    }
  }
#-}
