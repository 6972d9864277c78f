// Origin: llvm/torch-mlir test/Dialect/TorchConversion/convert-custom-quant-op.mlir
//   commit bce800a3f4200f8a28e844a91c2be2d2ce71c174, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted to MLIR generic form (torch is not registered here).

func.func @forward(%arg0: !torch.vtensor<[1,1,2],f16>) -> !torch.vtensor<[1,1,2],f16> {
  %q_rhs = "torch.vtensor.literal"() <{value = dense<[[0, 1], [2, 3]]> : tensor<2x2xui8>}> : () -> !torch.vtensor<[2,2],ui8>
  %scales = "torch.vtensor.literal"() <{value = dense<1.0> : tensor<2x1x1xf16>}> : () -> !torch.vtensor<[2,1,1],f16>
  %zps = "torch.vtensor.literal"() <{value = dense<0.0> : tensor<2x1x1xf16>}> : () -> !torch.vtensor<[2,1,1],f16>
  %bit_width = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
  %group_size = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
  %output = "torch.operator"(%arg0, %q_rhs, %scales, %zps, %bit_width, %group_size) <{name = "quant.matmul_rhs_group_quant"}> : (!torch.vtensor<[1,1,2],f16>, !torch.vtensor<[2,2],ui8>, !torch.vtensor<[2,1,1],f16>, !torch.vtensor<[2,1,1],f16>, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2],f16>
  return %output : !torch.vtensor<[1,1,2],f16>
}
