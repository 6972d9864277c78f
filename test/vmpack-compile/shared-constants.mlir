// REQUIRES: mlir
// Constants that read one dense_resource blob, or hold one dense<...>
// attribute (MLIR keeps one copy of equal attributes), are stored once,
// whatever types they read it as; --dedup=content also shares identical
// bytes and --dedup=off shares nothing. The index keeps every constant as an alias
// with its own name and type, the C runtime finds each by name, and
// vmpack-dump --mlir rebuilds the blob once under its own key.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-opt %s -o %t/expected.mlir
// RUN: vmpack-compile %s -o %t/default.vmpk
// RUN: vmpack-dump %t/default.vmpk | FileCheck %s --check-prefix=RESOURCES
// RUN: vmpack-dump --verify %t/default.vmpk
// RUN: vmpack-dump --mlir %t/default.vmpk | vmpack-opt | diff %t/expected.mlir -
// RUN: vmpack-example %t/default.vmpk as_ui8 | FileCheck %s --check-prefix=UI8
// RUN: vmpack-example %t/default.vmpk as_si8 | FileCheck %s --check-prefix=SI8
// RUN: vmpack-dump --extract as_2x2 -o %t/alias.bin %t/default.vmpk
// RUN: vmpack-dump --extract as_si8 -o %t/segment.bin %t/default.vmpk
// RUN: cmp %t/alias.bin %t/segment.bin
// RUN: vmpack-dump --json %t/default.vmpk | FileCheck %s --check-prefix=JSON
// RUN: vmpack-compile %s -o %t/content.vmpk --dedup=content --encoding=word
// RUN: vmpack-dump %t/content.vmpk | FileCheck %s --check-prefix=CONTENT
// RUN: vmpack-dump --mlir %t/content.vmpk | vmpack-opt | diff %t/expected.mlir -
// RUN: vmpack-compile %s -o %t/off.vmpk --dedup=off
// RUN: vmpack-dump %t/off.vmpk | FileCheck %s --check-prefix=OFF
// RUN: vmpack-dump --mlir %t/off.vmpk | vmpack-opt | diff %t/expected.mlir -
// The same from bytecode.
// RUN: vmpack-opt %s --emit-bytecode -o %t/in.mlirbc
// RUN: vmpack-compile %t/in.mlirbc -o %t/bc.vmpk
// RUN: vmpack-dump %t/bc.vmpk | FileCheck %s --check-prefix=RESOURCES
// Each copy of the blob costs its bytes and index record: one stored copy
// is smaller than three.
// RUN: %python -c "import os,sys; a,b=(os.path.getsize(p) for p in sys.argv[1:]); sys.exit(0 if a < b else 1)" %t/default.vmpk %t/off.vmpk

// RESOURCES: module 'shared_constants' (producer 'vmpack-compile', format 2): 3 segments, 3 aliases
// RESOURCES-NEXT: name
// RESOURCES-NEXT: as_si8     tensor<4xsi8>    packed               4
// RESOURCES-NEXT: c1         tensor<3xi4>     packed               2
// RESOURCES-NEXT: other      tensor<4xi8>     packed               4
// RESOURCES-NEXT: as_ui8     tensor<4xui8>    alias of 'as_si8'
// RESOURCES-NEXT: as_2x2     tensor<2x2xi8>   alias of 'as_si8'
// RESOURCES-NEXT: c2         tensor<3xi4>     alias of 'c1'
// UI8: as_ui8[0:4] = 128 255 50 127
// SI8: as_si8[0:4] = -128 -1 50 127
// JSON: "aliases": [
// JSON-NEXT: {"name": "as_ui8", "type": "tensor<4xui8>", "element_type": "ui8", "shape": [4], "target": "as_si8", "extra": {"source_kind": 1, "source_key": "_int8", "source_alignment": 8}},
// JSON-NEXT: {"name": "as_2x2", "type": "tensor<2x2xi8>", "element_type": "i8", "shape": [2, 2], "target": "as_si8", "extra": {"source_kind": 1, "source_key": "_int8", "source_alignment": 8}},
// JSON-NEXT: {"name": "c2", "type": "tensor<3xi4>", "element_type": "i4", "shape": [3], "target": "c1", "extra": {"source_kind": 0, "source_key": "", "source_alignment": 0}}
// JSON-NEXT: ],
// CONTENT: format 2): 2 segments, 4 aliases
// CONTENT: as_ui8     tensor<4xui8>    alias of 'as_si8'
// CONTENT-NEXT: as_2x2     tensor<2x2xi8>   alias of 'as_si8'
// CONTENT-NEXT: c2         tensor<3xi4>     alias of 'c1'
// CONTENT-NEXT: other      tensor<4xi8>     alias of 'as_si8'
// OFF: format 1): 6 segments

module @shared_constants {
  ml_program.global private @as_si8(dense_resource<_int8> : tensor<4xsi8>) : tensor<4xsi8>
  ml_program.global private @as_ui8(dense_resource<_int8> : tensor<4xui8>) : tensor<4xui8>
  ml_program.global private @as_2x2(dense_resource<_int8> : tensor<2x2xi8>) : tensor<2x2xi8>
  ml_program.global private @c1(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
  ml_program.global private @c2(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
  ml_program.global private @other(dense_resource<same_bytes> : tensor<4xi8>) : tensor<4xi8>
}
{-# dialect_resources: { builtin: {
  _int8: "0x0800000080FF327F",
  same_bytes: "0x0400000080FF327F"
} } #-}
