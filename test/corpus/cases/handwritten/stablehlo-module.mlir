// Origin: written for vmpack's corpus in the style of StableHLO as JAX exports it (jax.jit lowered to StableHLO)
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Generic form, as stablehlo-opt --mlir-print-op-generic prints StableHLO's ops: inherent attributes are properties.

"builtin.module"() <{sym_name = "jit_mlp"}> ({
  "func.func"() <{function_type = (tensor<2x4xf32>) -> tensor<2x3xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x4xf32>):
    %w = "stablehlo.constant"() <{value = dense<[[1.000000e+00, -2.000000e+00, 5.000000e-01], [0.000000e+00, 2.500000e-01, 3.000000e+00], [-1.000000e+00, 1.000000e+00, 1.000000e+00], [7.500000e-01, 0.000000e+00, -5.000000e-01]]> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
    %b = "stablehlo.constant"() <{value = dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xbf16>}> : () -> tensor<3xbf16>
    %q = "stablehlo.constant"() <{value = dense<[[-8, 7, 1], [0, -1, 3], [2, 2, -5], [4, 6, -7]]> : tensor<4x3xi4>}> : () -> tensor<4x3xi4>
    %u = "stablehlo.constant"() <{value = dense<[0, 15, 8, 1, 3]> : tensor<5xui4>}> : () -> tensor<5xui4>
    %z = "stablehlo.constant"() <{value = dense<2> : tensor<2x0x3xi4>}> : () -> tensor<2x0x3xi4>
    %c = "stablehlo.constant"() <{value = dense<[(1.000000e+00,-1.000000e+00), (0.000000e+00,2.000000e+00)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
    %p = "stablehlo.constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
    %f8 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<3xf8E4M3FNUZ>}> : () -> tensor<3xf8E4M3FNUZ>
    %qc = "stablehlo.constant"() <{value = dense<[1, -2, 3]> : tensor<3xi8>}> : () -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>
    %dot = "stablehlo.dot_general"(%arg0, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %bf = "stablehlo.convert"(%b) : (tensor<3xbf16>) -> tensor<3xf32>
    %bb = "stablehlo.broadcast_in_dim"(%bf) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
    %sum = "stablehlo.add"(%dot, %bb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%sum) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
