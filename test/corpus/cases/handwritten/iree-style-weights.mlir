// Origin: written for vmpack's corpus in the style of IREE's compiler tests (util.global, flow.tensor.constant, util.initializer) after the input conversion
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Generic form, as iree-opt --mlir-print-op-generic prints IREE's ops: inherent attributes are properties.

"builtin.module"() <{sym_name = "llama_block"}> ({
  "util.global"() <{initial_value = dense<[[1, -2, 3, -8], [7, 0, -1, 4]]> : tensor<2x4xi4>, sym_name = "layers.0.wq", sym_visibility = "private", type = tensor<2x4xi4>}> : () -> ()
  "util.global"() <{initial_value = dense<[-8, 7, 0, 1, -1, 5, -3]> : tensor<7xi4>, sym_name = "layers.0.wk", sym_visibility = "private", type = tensor<7xi4>}> : () -> ()
  "util.global"() <{initial_value = dense<[true, false, true, true, false, false, true, false, true, true, true]> : tensor<11xi1>, sym_name = "layers.0.mask", sym_visibility = "private", type = tensor<11xi1>}> : () -> ()
  "util.global"() <{initial_value = dense<[1.000000e+00, -2.500000e-01, 6.550400e+04, 0x7C00, 0xFC00, 5.960460e-08]> : tensor<6xf16>, sym_name = "layers.0.attention_norm", sym_visibility = "private", type = tensor<6xf16>}> : () -> ()
  "util.global"() <{initial_value = dense<[[1.000000e+00, 3.140630e+00], [-0.000000e+00, 0x7FC0]]> : tensor<2x2xbf16>, sym_name = "layers.0.ffn_norm", sym_visibility = "private", type = tensor<2x2xbf16>}> : () -> ()
  "util.global"() <{initial_value = dense<[0.000000e+00, 1.000000e+00, -4.480000e+02, 1.250000e-01, 0x7F]> : tensor<5xf8E4M3FN>, sym_name = "layers.0.w1_scale", sym_visibility = "private", type = tensor<5xf8E4M3FN>}> : () -> ()
  "util.global"() <{initial_value = dense<[1.000000e+00, -5.734400e+04, 0x7C, 2.000000e+00]> : tensor<4xf8E5M2>, sym_name = "layers.0.w2_scale", sym_visibility = "private", type = tensor<4xf8E5M2>}> : () -> ()
  "util.global"() <{initial_value = dense<3> : tensor<4x4xi4>, sym_name = "layers.0.zero_point", sym_visibility = "private", type = tensor<4x4xi4>}> : () -> ()
  "util.global"() <{initial_value = dense_resource<layers.0.w3> : tensor<3x3xi4>, sym_name = "layers.0.w3", sym_visibility = "private", type = tensor<3x3xi4>}> : () -> ()
  "util.global"() <{is_mutable, sym_name = "kv_cache", sym_visibility = "private", type = tensor<2x4xf16>}> : () -> ()
  "util.global"() <{initial_value = dense<0.000000e+00> : tensor<2x4xf16>, is_mutable, sym_name = "kv_cache_init", sym_visibility = "private", type = tensor<2x4xf16>}> : () -> ()
  "util.initializer"() <{function_type = () -> ()}> ({
    %0 = "flow.tensor.constant"() <{value = dense<[[1.500000e+00, -2.000000e+00, 0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x4xf16>}> : () -> tensor<2x4xf16>
    "util.global.store"(%0) <{global = @kv_cache}> : (tensor<2x4xf16>) -> ()
    "util.return"() : () -> ()
  }) : () -> ()
  "util.func"() <{function_type = (tensor<2x4xi4>) -> (tensor<2x4xi4>, tensor<5xi1>, tensor<3xbf16>, tensor<3xf8E4M3FN>), sym_name = "forward", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x4xi4>):
    %w = "util.global.load"() <{global = @layers.0.wq, is_immutable}> : () -> tensor<2x4xi4>
    %sum = "arith.addi"(%w, %arg0) <{overflowFlags = #arith.overflow<none>}> : (tensor<2x4xi4>, tensor<2x4xi4>) -> tensor<2x4xi4>
    %bits = "flow.tensor.constant"() <{value = dense<[true, false, false, true, true]> : tensor<5xi1>}> : () -> tensor<5xi1>
    %b = "flow.tensor.constant"() <{value = dense<[2.500000e-01, -1.000000e+00, 1.280000e+02]> : tensor<3xbf16>}> : () -> tensor<3xbf16>
    %f8 = "flow.tensor.constant"() <{value = dense<[1.000000e+00, -2.000000e+00, 4.480000e+02]> : tensor<3xf8E4M3FN>}> : () -> tensor<3xf8E4M3FN>
    %i4 = "flow.tensor.constant"() <{value = dense<[[7, -8, 0, 1], [-1, 2, -3, 4]]> : tensor<2x4xi4>}> : () -> tensor<2x4xi4>
    %out = "arith.addi"(%sum, %i4) <{overflowFlags = #arith.overflow<none>}> : (tensor<2x4xi4>, tensor<2x4xi4>) -> tensor<2x4xi4>
    "util.return"(%out, %bits, %b, %f8) : (tensor<2x4xi4>, tensor<5xi1>, tensor<3xbf16>, tensor<3xf8E4M3FN>) -> ()
  }) : () -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      layers.0.w3: "0x04000000010203040506070F08"
    }
  }
#-}
