// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file | FileCheck %s
// RUN: vmpack-opt %s -split-input-file --emit-bytecode | vmpack-opt | FileCheck %s --check-prefix=BC

// The three encodings of docs/packing.md as an attribute.

// CHECK: func.func private @f() attributes {a = #vmpack.encoding<packed>, b = #vmpack.encoding<word>, c = #vmpack.encoding<byte>}
// BC: #vmpack.encoding<packed>
func.func private @f() attributes {a = #vmpack.encoding<packed>,
                                   b = #vmpack.encoding<word>,
                                   c = #vmpack.encoding<byte>}
