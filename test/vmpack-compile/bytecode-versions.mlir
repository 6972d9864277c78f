// REQUIRES: mlir
// Bytecode of every version MLIR 22 writes (0 to 6) loads, with ops of
// unregistered dialects and opaque attributes and types, and rebuilds to
// what MLIR itself reads from the same file. (Versions before 5 have no
// properties: MLIR's writer keeps only an op's attribute dictionary.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_bytecode_versions.py %s %t

module @versions {
  ml_program.global private @w(dense<[1, -2, 3, -8]> : tensor<4xi4>) : tensor<4xi4>
  ml_program.global private @shared_a(dense_resource<blob> : tensor<4xsi8>) : tensor<4xsi8>
  ml_program.global private @shared_b(dense_resource<blob> : tensor<4xui8>) : tensor<4xui8>
  "foo.op"() {value = dense<[1.5, 2.0]> : tensor<2xbf16>, pattern = #foo.pattern<7>, nested = [dense<true> : tensor<3xi1>]} : () -> ()
  "foo.typed"() {value = dense<[1, 2]> : tensor<2xi3>} : () -> !foo.vtensor<[2],si3>
}
{-# dialect_resources: { builtin: { blob: "0x0800000080FF327F" } } #-}
