// REQUIRES: mlir
// Bad input: a located diagnostic, exit code 1, and no output — an existing
// file at the destination keeps its bytes and no temporary is left behind.
// RUN: rm -rf %t && mkdir -p %t && echo precious > %t/out.vmpk
// RUN: split-file %s %t
// RUN: not vmpack-compile %t/word-i65.mlir -o %t/out.vmpk --encoding=word 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not vmpack-compile %t/elided.mlir -o %t/out.vmpk 2>&1 | FileCheck %s --check-prefix=ELIDED
// RUN: not vmpack-compile %t/short-blob.mlir -o %t/out.vmpk 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not vmpack-compile %t/syntax.mlir -o %t/out.vmpk 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not vmpack-compile %t/unknown-op.mlir -o %t/out.vmpk --no-allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: vmpack-compile %t/sparse.mlir -o %t/sparse.vmpk 2>&1 | FileCheck %s --check-prefix=SPARSE
// RUN: not vmpack-compile %t/missing.mlir -o %t/out.vmpk 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %exit 2 vmpack-compile %t/word-i65.mlir -o %t/out.vmpk --encoding=foo 2>&1 | FileCheck %s --check-prefix=ENCODING
// RUN: %exit 2 vmpack-compile %t/word-i65.mlir -o %t/out.vmpk --alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not vmpack-compile %t/word-i65.mlir -o %t/out.vmpk/x.vmpk 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: FileCheck %s --check-prefix=KEPT --input-file %t/out.vmpk
// RUN: ls %t | FileCheck %s --check-prefix=NOTEMP

// WORD: word-i65.mlir:2:3: error: element type 'i65' cannot be stored in the 'word' encoding
// ELIDED: elided.mlir:1:1: error: dense_resource '__elided__' has no data
// SHORT: short-blob.mlir:1:1: error: dense_resource 'blob' holds 3 bytes but type 'tensor<4xi4>' needs 4 bytes
// SYNTAX: syntax.mlir:2:43: error: expected ']'
// UNKNOWN: unknown-op.mlir:1:12: error: operation being parsed with an unregistered dialect
// SPARSE: sparse.mlir:1:1: warning: constant of type 'tensor<4xi4>' (a 'builtin.sparse_elements' attribute) has no vmpack layout and stays in the program
// MISSING: vmpack-compile: error: cannot open '{{.*}}missing.mlir': No such file or directory
// ENCODING: Cannot find option named 'foo'
// ALIGN: vmpack-compile: error: --alignment needs a power of two from 1 to 65536, got '48'
// NODIR: error: cannot create the output '{{.*}}out.vmpk/x.vmpk': '{{.*}}out.vmpk' is not a directory
// KEPT: precious
// NOTEMP-NOT: tmp
// NOTEMP: out.vmpk
// NOTEMP-NOT: tmp

//--- word-i65.mlir
module {
  ml_program.global private @wide(dense<[1, 2]> : tensor<2xi65>) : tensor<2xi65>
}
//--- elided.mlir
ml_program.global private @r(dense_resource<__elided__> : tensor<4xi4>) : tensor<4xi4>
//--- short-blob.mlir
ml_program.global private @r(dense_resource<blob> : tensor<4xi4>) : tensor<4xi4>
{-# dialect_resources: { builtin: { blob: "0x04000000010203" } } #-}
//--- syntax.mlir
module {
  ml_program.global private @r(dense<[1, 2> : tensor<2xi4>) : tensor<2xi4>
}
//--- unknown-op.mlir
"nosuch.op"() : () -> ()
//--- sparse.mlir
ml_program.global private @s(sparse<[[0]], [1]> : tensor<4xi4>) : tensor<4xi4>
