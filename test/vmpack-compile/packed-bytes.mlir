// REQUIRES: mlir, unzip
// Segment bytes of each encoding, straight from the spec's test vectors
// (docs/packing.md section 6), read back with unzip.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/packed.vmpk --no-progress
// RUN: unzip -p %t/packed.vmpk i4 | od -An -tx1 | FileCheck %s --check-prefix=PACKED-I4
// RUN: unzip -p %t/packed.vmpk i3 | od -An -tx1 | FileCheck %s --check-prefix=PACKED-I3
// RUN: unzip -p %t/packed.vmpk i1 | od -An -tx1 | FileCheck %s --check-prefix=PACKED-I1
// RUN: unzip -p %t/packed.vmpk forward.cst0 | od -An -tx1 | FileCheck %s --check-prefix=PACKED-CST
// RUN: vmpack-compile %s -o %t/word.vmpk --encoding=word --no-progress
// RUN: unzip -p %t/word.vmpk i2 | od -An -tu1 | FileCheck %s --check-prefix=WORD-I2
// RUN: unzip -p %t/word.vmpk i3 | od -An -tu1 | FileCheck %s --check-prefix=WORD-I3
// RUN: unzip -p %t/word.vmpk i9 | od -An -tu1 | FileCheck %s --check-prefix=WORD-I9
// RUN: unzip -p %t/word.vmpk f16 | od -An -tu1 | FileCheck %s --check-prefix=WORD-F16
// RUN: vmpack-compile %s -o %t/byte.vmpk --encoding=byte --no-progress
// RUN: unzip -p %t/byte.vmpk i3 | od -An -tx1 | FileCheck %s --check-prefix=BYTE-I3
// RUN: unzip -t %t/byte.vmpk | FileCheck %s --check-prefix=ZIP

// PACKED-I4: 21 43 05
// PACKED-I3: 88 c6 fa
// PACKED-I1: 0d 03
// PACKED-CST: ff 0f
// WORD-I2: 228 26 3
// WORD-I3: 8 26 44 62
// WORD-I9: 1 4 12 0 4 10 0 0
// WORD-F16: 0 60 0 64 0 66
// BYTE-I3: 00 01 02 03 04 05 06 07
// ZIP: No errors detected

module @vectors {
  ml_program.global private @i4(dense<[1, 2, 3, 4, 5]> : tensor<5xi4>) : tensor<5xi4>
  ml_program.global private @i3(dense<[0, 1, 2, 3, -4, -3, -2, -1]> : tensor<8xi3>) : tensor<8xi3>
  ml_program.global private @i1(dense<[true, false, true, true, false, false, false, false, true, true]> : tensor<10xi1>) : tensor<10xi1>
  ml_program.global private @i2(dense<[0, 1, -2, -1, -2, -2, 1, 0, -1]> : tensor<9xi2>) : tensor<9xi2>
  ml_program.global private @i9(dense<[1, 2, 3, 4, 5]> : tensor<5xi9>) : tensor<5xi9>
  ml_program.global private @f16(dense<[1.0, 2.0, 3.0]> : tensor<3xf16>) : tensor<3xf16>
  func.func @forward() -> tensor<3xi4> {
    %0 = arith.constant dense<-1> : tensor<3xi4>
    return %0 : tensor<3xi4>
  }
}
