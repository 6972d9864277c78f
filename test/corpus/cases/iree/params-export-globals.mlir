// Origin: iree-org/iree compiler/src/iree/compiler/Modules/IO/Parameters/Transforms/test/export_parameters.mlir
//   commit 3ca0a49b424c7d9918a2e73d0c19c308e7d8e6db, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted by hand to MLIR generic form (the util dialect is not registered here).

"util.global"() <{initial_value = dense<true> : tensor<i1>, sym_name = "constant_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()

"util.global"() <{initial_value = dense<[true, false]> : tensor<2xi1>, sym_name = "constant_dense_2xi1", sym_visibility = "private", type = tensor<2xi1>}> : () -> ()

"util.global"() <{initial_value = dense<[4, 5, 6]> : tensor<3xi4>, sym_name = "constant_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()

"util.global"() <{initial_value = dense<[4, 5]> : tensor<2xi8>, sym_name = "constant_dense_2xi8", sym_visibility = "private", type = tensor<2xi8>}> : () -> ()

"util.global"() <{initial_value = dense<[11.0, 12.0]> : tensor<2xf32>, sym_name = "constant_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

"util.global"() <{initial_value = dense<11.0> : tensor<2xf32>, sym_name = "constant_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

"util.global"() <{initial_value = dense<true> : tensor<i1>, is_mutable, sym_name = "mutable_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()

"util.global"() <{initial_value = dense<[4, 5, 6]> : tensor<3xi4>, is_mutable, sym_name = "mutable_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()

"util.global"() <{initial_value = dense<[11.0, 12.0]> : tensor<2xf32>, is_mutable, sym_name = "mutable_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

"util.global"() <{initial_value = dense<11.0> : tensor<2xf32>, is_mutable, sym_name = "mutable_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
