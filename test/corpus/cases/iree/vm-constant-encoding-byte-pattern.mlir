// Origin: iree-org/iree compiler/src/iree/compiler/Dialect/VM/Target/Bytecode/test/constant_encoding.mlir
//   commit aa776b3ea7cf1b9cb67f8ba81932d8edb9cbd270, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted by hand to MLIR generic form; only the #util.byte_pattern rodata (an attribute of an unregistered dialect, kept opaque).

"vm.module"() <{sym_name = "constants"}> ({
  // Tests #util.byte_pattern on sub-byte types.
  "vm.rodata"() <{sym_name = "byte_pattern_i2", sym_visibility = "public", value = #util.byte_pattern<1> : tensor<9xi2>}> : () -> ()
  "vm.module_terminator"() : () -> ()
}) : () -> ()
