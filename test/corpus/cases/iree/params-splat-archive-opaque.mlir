// Origin: iree-org/iree compiler/src/iree/compiler/Modules/IO/Parameters/Transforms/test/generate_splat_parameter_archive.mlir
//   commit 3ca0a49b424c7d9918a2e73d0c19c308e7d8e6db, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted by hand to MLIR generic form. No elements attribute: the #flow.parameter.named attributes stay opaque.

"util.global"() <{initial_value = #flow.parameter.named<"opt"::"tensor_i1"> : tensor<i1>, sym_name = "tensor_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()

"util.global"() <{initial_value = #flow.parameter.named<"opt"::"tensor_i8"> : tensor<i8>, sym_name = "tensor_i8", sym_visibility = "private", type = tensor<i8>}> : () -> ()

"util.global"() <{initial_value = #flow.parameter.named<"opt"::"tensor_1x2xi32"> : tensor<1x2xi32>, sym_name = "tensor_1x2xi32", sym_visibility = "private", type = tensor<1x2xi32>}> : () -> ()

"util.global"() <{initial_value = #flow.parameter.named<"opt"::"tensor_2x2xi4"> : tensor<2x2xi4>, sym_name = "tensor_2x2xi4", sym_visibility = "private", type = tensor<2x2xi4>}> : () -> ()

"util.global"() <{initial_value = #flow.parameter.named<"opt"::"tensor_3xi4"> : tensor<3xi4>, sym_name = "tensor_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()

"util.func"() <{function_type = () -> (), sym_name = "function", sym_visibility = "private"}> ({
  %0 = "flow.tensor.constant"() <{value = #flow.parameter.named<"opt"::"inline"> : tensor<4xi8>}> : () -> tensor<4xi8>
  "util.return"() : () -> ()
}) : () -> ()
