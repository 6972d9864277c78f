// Origin: iree-org/iree compiler/src/iree/compiler/Dialect/Util/IR/test/global_ops.mlir
//   commit 045bca1e213ea9ab4210277776430b497b64be10, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; second split of the file; converted by hand to MLIR generic form.

"util.global"() <{initial_value = 4 : i32, sym_name = "v_initialized_const0", sym_visibility = "public", type = i32}> : () -> ()

"util.global"() <{initial_value = 40 : i32, sym_name = "v_initialized_const1", sym_visibility = "public", type = i32}> : () -> ()

"util.global"() <{initial_value = 40 : i64, sym_name = "v_initialized_const2", sym_visibility = "public", type = i64}> : () -> ()

"util.global"() <{initial_value = dense<4> : tensor<4xi32>, sym_name = "v_initialized_const3", sym_visibility = "public", type = tensor<4xi32>}> : () -> ()

"util.global"() <{initial_value = dense<4> : tensor<4xi32>, sym_name = "v_initialized_const4", sym_visibility = "public", type = tensor<4xi32>}> : () -> ()

"util.global"() <{initial_value = dense<4> : tensor<4xi32>, sym_name = "v_initialized_const5", sym_visibility = "public", type = tensor<4xf32>}> : () -> ()
