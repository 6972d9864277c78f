// Origin: written for vmpack's corpus in the style of torch-mlir's FX importer output (torch.vtensor.literal, dense_resource for large tensors)
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Generic form, as torch-mlir-opt --mlir-print-op-generic prints torch's ops: inherent attributes are properties.

"builtin.module"() ({
  "func.func"() <{function_type = (!torch.vtensor<[2,4],f16>) -> !torch.vtensor<[2,3],f16>, sym_name = "main"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4],f16>):
    %w = "torch.vtensor.literal"() <{value = dense_resource<torch_tensor_4_3_torch.float16> : tensor<4x3xf16>}> : () -> !torch.vtensor<[4,3],f16>
    %b = "torch.vtensor.literal"() <{value = dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf16>}> : () -> !torch.vtensor<[3],f16>
    %s8 = "torch.vtensor.literal"() <{value = dense<[-128, -1, 0, 127]> : tensor<4xsi8>}> : () -> !torch.vtensor<[4],si8>
    %u8 = "torch.vtensor.literal"() <{value = dense<[0, 255, 128]> : tensor<3xui8>}> : () -> !torch.vtensor<[3],ui8>
    %m = "torch.vtensor.literal"() <{value = dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>}> : () -> !torch.vtensor<[2,3],i1>
    %bf = "torch.vtensor.literal"() <{value = dense<-2.500000e-01> : tensor<2x3xbf16>}> : () -> !torch.vtensor<[2,3],bf16>
    %i64 = "torch.vtensor.literal"() <{value = dense<[2, 3]> : tensor<2xsi64>}> : () -> !torch.vtensor<[2],si64>
    %c = "torch.vtensor.literal"() <{value = dense<[(1.000000e+00,2.000000e+00)]> : tensor<1xcomplex<f64>>}> : () -> !torch.vtensor<[1],complex<f64>>
    %int1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %mm = "torch.aten.mm"(%arg0, %w) : (!torch.vtensor<[2,4],f16>, !torch.vtensor<[4,3],f16>) -> !torch.vtensor<[2,3],f16>
    %out = "torch.aten.add.Tensor"(%mm, %b, %int1) : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[3],f16>, !torch.int) -> !torch.vtensor<[2,3],f16>
    "func.return"(%out) : (!torch.vtensor<[2,3],f16>) -> ()
  }) : () -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_3_torch.float16: "0x02000000003C00BC0038000000400042004400BC003C00B800340030"
    }
  }
#-}
