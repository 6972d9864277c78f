// IREE's own test of its parameter exporter, converted to MLIR generic form.
//
// Origin: https://github.com/iree-org/iree, file
//   compiler/src/iree/compiler/Modules/IO/Parameters/Transforms/test/export_parameters.mlir
// at commit b48a5955575cf8924ffc191f3b0804976e5738b9 (2026-08-21).
// Copyright 2023 The IREE Authors. Licensed under the Apache License v2.0
// with LLVM Exceptions (SPDX-License-Identifier: Apache-2.0 WITH
// LLVM-exception); see https://llvm.org/LICENSE.txt.
//
// Changes: every `util.global` is written by hand in the generic form that
// `iree-opt --mlir-print-op-generic` prints (inherent attributes as
// properties, sorted by name), so that vmpack reads it without IREE's
// dialects; IREE's RUN line `iree-io-export-parameters{path="opt=%t.irpa"
// minimum-size=0}` becomes vmpack-compile's options; IREE's CHECK lines
// (the rewritten program, export-parameters.expected.mlir) and DUMP lines
// (iree-dump-parameters on the archive) are kept with the same meaning.
// docs/irpa.md, "What vmpack-compile exports", explains each case.
//
// IREE's tools check the archive (lit feature iree-tools).
// REQUIRES: mlir, iree-tools
// RUN: vmpack-compile %s -o %t.irpa --parameter-scope=opt --parameter-minimum-size=0 --emit-program=%t.mlir
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir | FileCheck %s
// RUN: %iree_tools/iree-dump-parameters --parameters=%t.irpa | FileCheck %s --check-prefix=DUMP


// CHECK: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_scalar_i1"> : tensor<i1>, sym_name = "constant_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()
//  DUMP: - | - | 1 | `constant_scalar_i1`
"util.global"() <{initial_value = dense<true> : tensor<i1>, sym_name = "constant_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xi1"> : tensor<2xi1>, sym_name = "constant_dense_2xi1", sym_visibility = "private", type = tensor<2xi1>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 2 | `constant_dense_2xi1`
"util.global"() <{initial_value = dense<[true, false]> : tensor<2xi1>, sym_name = "constant_dense_2xi1", sym_visibility = "private", type = tensor<2xi1>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_3xi4"> : tensor<3xi4>, sym_name = "constant_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 2 | `constant_dense_3xi4`
"util.global"() <{initial_value = dense<[4, 5, 6]> : tensor<3xi4>, sym_name = "constant_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xi8"> : tensor<2xi8>, sym_name = "constant_dense_2xi8", sym_visibility = "private", type = tensor<2xi8>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 2 | `constant_dense_2xi8`
"util.global"() <{initial_value = dense<[4, 5]> : tensor<2xi8>, sym_name = "constant_dense_2xi8", sym_visibility = "private", type = tensor<2xi8>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_dense_2xf32"> : tensor<2xf32>, sym_name = "constant_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 8 | `constant_dense_2xf32`
"util.global"() <{initial_value = dense<[1.100000e+01, 1.200000e+01]> : tensor<2xf32>, sym_name = "constant_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"constant_splat_2xf32"> : tensor<2xf32>, sym_name = "constant_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
//  DUMP-NEXT: - | - | 8 | `constant_splat_2xf32`
"util.global"() <{initial_value = dense<1.100000e+01> : tensor<2xf32>, sym_name = "constant_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_scalar_i1"> : tensor<i1>, is_mutable, sym_name = "mutable_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 1 | `mutable_scalar_i1`
"util.global"() <{initial_value = dense<true> : tensor<i1>, is_mutable, sym_name = "mutable_scalar_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_dense_3xi4"> : tensor<3xi4>, is_mutable, sym_name = "mutable_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 2 | `mutable_dense_3xi4`
"util.global"() <{initial_value = dense<[4, 5, 6]> : tensor<3xi4>, is_mutable, sym_name = "mutable_dense_3xi4", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_dense_2xf32"> : tensor<2xf32>, is_mutable, sym_name = "mutable_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 8 | `mutable_dense_2xf32`
"util.global"() <{initial_value = dense<[1.100000e+01, 1.200000e+01]> : tensor<2xf32>, is_mutable, sym_name = "mutable_dense_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()

// CHECK-NEXT: "util.global"() <{initial_value = #flow.parameter.named<"opt"::"mutable_splat_2xf32"> : tensor<2xf32>, is_mutable, sym_name = "mutable_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
//  DUMP-NEXT: {{[0-9]+}} | {{[0-9]+}} | 8 | `mutable_splat_2xf32`
"util.global"() <{initial_value = dense<1.100000e+01> : tensor<2xf32>, is_mutable, sym_name = "mutable_splat_2xf32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
