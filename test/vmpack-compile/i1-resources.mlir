// REQUIRES: mlir
// An i1 dense_resource blob holds one byte per element (MLIR's
// DenseBoolResourceElementsAttr layout) or MLIR's in-memory bitmask; their
// sizes differ for more than one element. vmpack-compile and the packing
// pass must read both alike: compiling the module directly and after the
// pass gives the same stored bits, and the rebuilt module is the input.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/direct.vmpk
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants -o %t/packed.mlir
// RUN: vmpack-compile %t/packed.mlir -o %t/pass.vmpk
// RUN: vmpack-dump --extract bytes -o %t/direct-bytes %t/direct.vmpk
// RUN: vmpack-dump --extract bytes -o %t/pass-bytes %t/pass.vmpk
// RUN: vmpack-dump --extract bitmask -o %t/direct-bitmask %t/direct.vmpk
// RUN: vmpack-dump --extract bitmask -o %t/pass-bitmask %t/pass.vmpk
// RUN: cmp %t/direct-bytes %t/pass-bytes
// RUN: cmp %t/direct-bitmask %t/pass-bitmask
// Both stand for the same ten booleans.
// RUN: cmp %t/direct-bytes %t/direct-bitmask
// RUN: od -An -tx1 %t/direct-bytes | FileCheck %s --check-prefix=BITS
// RUN: vmpack-example %t/direct.vmpk bitmask | FileCheck %s --check-prefix=VALUES
// RUN: vmpack-opt %s -o %t/expected.mlir
// RUN: vmpack-dump --mlir %t/direct.vmpk | vmpack-opt | diff %t/expected.mlir -
// RUN: vmpack-compile %s -o %t/word.vmpk --encoding=word
// RUN: vmpack-dump --mlir %t/word.vmpk | vmpack-opt | diff %t/expected.mlir -
// A blob of neither size is refused by both.
// RUN: not vmpack-compile %S/Inputs/i1-bad-blob.mlir -o %t/bad.vmpk 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not vmpack-opt %S/Inputs/i1-bad-blob.mlir --vmpack-pack-subbyte-constants 2>&1 | FileCheck %s --check-prefix=BAD-PASS

// BITS: 0d 03
// VALUES: bitmask[0:8] = -1 0 -1 -1 0 0 0 0
// BAD: error: dense_resource 'three' holds 3 bytes but type 'tensor<10xi1>' needs 10 bytes
// BAD-PASS: error: dense_resource 'three' holds 3 bytes

ml_program.global private @bytes(dense_resource<as_bytes> : tensor<10xi1>) : tensor<10xi1>
ml_program.global private @bitmask(dense_resource<as_bits> : tensor<10xi1>) : tensor<10xi1>
{-# dialect_resources: { builtin: {
  as_bytes: "0x0100000001000101000000000101",
  as_bits: "0x010000000D03"
} } #-}
