// Origin: iree-org/iree compiler/src/iree/compiler/Dialect/VM/Target/Bytecode/test/constant_encoding.mlir
//   commit aa776b3ea7cf1b9cb67f8ba81932d8edb9cbd270, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted by hand to MLIR generic form; only the elided rodata (IREE compiles them with --iree-util-zero-fill-elided-attrs).

"vm.module"() <{sym_name = "constants"}> ({
  "vm.rodata"() <{sym_name = "elided_i2", sym_visibility = "public", value = dense_resource<__elided__> : tensor<9xi2>}> : () -> ()
  "vm.rodata"() <{sym_name = "elided_f32", sym_visibility = "public", value = dense_resource<__elided__> : tensor<3xf32>}> : () -> ()
  "vm.module_terminator"() : () -> ()
}) : () -> ()
