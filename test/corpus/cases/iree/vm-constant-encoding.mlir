// Origin: iree-org/iree compiler/src/iree/compiler/Dialect/VM/Target/Bytecode/test/constant_encoding.mlir
//   commit aa776b3ea7cf1b9cb67f8ba81932d8edb9cbd270, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; converted by hand to MLIR generic form (the vm dialect is not registered here); the elided and #util.byte_pattern rodata are in their own cases.

"vm.module"() <{sym_name = "constants"}> ({
  // Tests that we densely pack i2 values. Note that the final element (3) is
  // padded out with zeros.
  "vm.rodata"() <{sym_name = "dense_i2", sym_visibility = "public", value = dense<[0, 1, 2, 3, 2, 2, 1, 0, 3]> : tensor<9xi2>}> : () -> ()

  // Tests that we densely pack i3 values and insert the wasted 2-bits of
  // padding in each byte.
  "vm.rodata"() <{sym_name = "dense_i3", sym_visibility = "public", value = dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi3>}> : () -> ()

  // Tests that we densely pack i4 values and handle partial values (14).
  "vm.rodata"() <{sym_name = "dense_i4", sym_visibility = "public", value = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14]> : tensor<17xi4>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_i5", sym_visibility = "public", value = dense<[2, 3, 4, 5, 6, 7]> : tensor<6xi5>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_i8", sym_visibility = "public", value = dense<[1, 2, 3]> : tensor<3xi8>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_i9", sym_visibility = "public", value = dense<[1, 2, 3, 4, 5]> : tensor<5xi9>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_f16", sym_visibility = "public", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf16>}> : () -> ()

  "vm.rodata"() <{sym_name = "splat_f16", sym_visibility = "public", value = dense<1.000000e+00> : tensor<3xf16>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_f32", sym_visibility = "public", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_resource_complex_f32", sym_visibility = "public", value = dense<
                      "0x0000803F000000400000404000008040"
                    > : tensor<2xcomplex<f32>>}> : () -> ()

  "vm.rodata"() <{sym_name = "splat_f32", sym_visibility = "public", value = dense<1.000000e+00> : tensor<3xf32>}> : () -> ()

  "vm.rodata"() <{sym_name = "dense_f64", sym_visibility = "public", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>}> : () -> ()
  "vm.module_terminator"() : () -> ()
}) : () -> ()
