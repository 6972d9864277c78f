// Origin: iree-org/iree compiler/src/iree/compiler/Dialect/Util/IR/test/attributes.mlir
//   commit 5a33e923edc9a81a210c875ab74c75d6775c7c16, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; the byte_pattern and composite splits joined in one module. The attributes of the unregistered util dialect stay opaque: the dense<...> inside #util.composite is part of its text.

builtin.module @byte_pattern attributes {
  util.r0 = #util.byte_pattern<0> : i8,
  util.r1 = #util.byte_pattern<0> : tensor<28xi8>,
  util.r2 = #util.byte_pattern<6> : tensor<33x4xi4>,
  util.c0 = #util.composite<0xi8, []>,
  util.c1 = #util.composite<1xi8, [dense<0> : vector<1xi8>]>,
  util.c2 = #util.composite<4xi8, [
    dense<0> : vector<1xi8>,
    dense<1> : vector<1xi8>,
    dense<[2, 3]> : vector<2xi8>,
  ]>
} {}
