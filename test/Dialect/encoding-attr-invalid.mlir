// REQUIRES: mlir
// RUN: vmpack-opt %s -split-input-file -verify-diagnostics

// expected-error @+2 {{expected ::mlir::vmpack_compiler::EncodingKind to be one of: packed, word, byte}}
// expected-error @+1 {{failed to parse VMPack_EncodingAttr parameter 'value'}}
func.func private @f() attributes {a = #vmpack.encoding<nibble>}
