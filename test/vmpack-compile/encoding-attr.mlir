// REQUIRES: mlir
// `vmpack.encoding = #vmpack.encoding<...>` on an op holding constants sets
// the encoding its constants are stored in, instead of --encoding; constants
// stored in different encodings never share a segment.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/m.vmpk --dedup=content
// RUN: vmpack-dump %t/m.vmpk | FileCheck %s
// RUN: vmpack-dump --extract w_word -o %t/word.bin %t/m.vmpk
// RUN: od -An -tx1 %t/word.bin | FileCheck %s --check-prefix=WORD
// RUN: vmpack-dump --extract w_default -o %t/packed.bin %t/m.vmpk
// RUN: od -An -tx1 %t/packed.bin | FileCheck %s --check-prefix=PACKED
// RUN: vmpack-compile %s -o %t/b.vmpk --encoding=byte --dedup=content
// RUN: vmpack-dump %t/b.vmpk | FileCheck %s --check-prefix=BYTE
// RUN: vmpack-dump --mlir %t/m.vmpk | FileCheck %s --check-prefix=MLIR
// RUN: not vmpack-compile %S/Inputs/encoding-attr-bad.mlir -o %t/bad.vmpk 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not vmpack-compile %S/Inputs/encoding-attr-not-encoding.mlir -o %t/bad.vmpk 2>&1 | FileCheck %s --check-prefix=ERR2
// RUN: test ! -e %t/bad.vmpk

// CHECK: 3 segments
// CHECK: {{^}}w_default  tensor<5xi5>  packed {{ *}}4
// CHECK: {{^}}w_word     tensor<5xi5>  word {{ *}}4
// CHECK: {{^}}w_byte     tensor<5xi5>  byte {{ *}}5
// `word` for W = 5: three elements in each 16-bit word (docs/packing.md).
// WORD: 41 0c a4 00
// `packed`: one continuous bit stream.
// PACKED: 41 0c 52 00
// With --encoding=byte, only the constants without the attribute change.
// BYTE: {{^}}w_default  tensor<5xi5>  byte {{ *}}5
// BYTE: {{^}}w_word     tensor<5xi5>  word {{ *}}4
// MLIR: ml_program.global private @w_word(dense<[1, 2, 3, 4, 5]> : tensor<5xi5>) : tensor<5xi5> {vmpack.encoding = #vmpack.encoding<word>}
// ERR: encoding-attr-bad.mlir:2:1: error: element type 'i70' cannot be stored in the 'word' encoding (defined for widths up to 64 bits and multiples of 8); set 'vmpack.encoding' to #vmpack.encoding<packed> or <byte>
// ERR2: encoding-attr-not-encoding.mlir:2:1: error: 'vmpack.encoding' must be a #vmpack.encoding<...>, got "word"

ml_program.global private @w_default(dense<[1, 2, 3, 4, 5]> : tensor<5xi5>) : tensor<5xi5>
ml_program.global private @w_word(dense<[1, 2, 3, 4, 5]> : tensor<5xi5>) : tensor<5xi5> {vmpack.encoding = #vmpack.encoding<word>}
ml_program.global private @w_byte(dense<[1, 2, 3, 4, 5]> : tensor<5xi5>) : tensor<5xi5> {vmpack.encoding = #vmpack.encoding<byte>}
