// The program IREE's exporter leaves for export_parameters.mlir (its CHECK
// lines), in generic form. Same origin and licence as that file.
module {
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_scalar_i1"> : tensor<i1>, sym_name = "constant_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xi1"> : tensor<2xi1>, sym_name = "constant_dense_2xi1", sym_visibility = "private", type = tensor<2xi1>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_3xi4"> : tensor<3xi4>, sym_name = "constant_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xi8"> : tensor<2xi8>, sym_name = "constant_dense_2xi8", sym_visibility = "private", type = tensor<2xi8>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xf32"> : tensor<2xf32>, sym_name = "constant_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_splat_2xf32"> : tensor<2xf32>, sym_name = "constant_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_scalar_i1"> : tensor<i1>, is_mutable, sym_name = "mutable_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_dense_3xi4"> : tensor<3xi4>, is_mutable, sym_name = "mutable_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_dense_2xf32"> : tensor<2xf32>, is_mutable, sym_name = "mutable_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
  "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_splat_2xf32"> : tensor<2xf32>, is_mutable, sym_name = "mutable_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
}
