// REQUIRES: mlir
// RUN: vmpack-opt %s --vmpack-pack-subbyte-constants | FileCheck %s

// dense_resource inputs hold MLIR's storage layout (one byte per element,
// high bits not guaranteed zero; i1 a bitmask, or one byte per element as
// MLIR's DenseResourceElementsAttr<bool> writes it). They are packed into new
// blobs; a key already taken gets a suffix from MLIR's resource manager.

// CHECK: ml_program.global private @w(dense_resource<w_1> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<5xi4>}
ml_program.global private @w(dense_resource<w> : tensor<5xi4>) : tensor<5xi4>
// CHECK: memref.global "private" constant @m : memref<2xi8> = dense_resource<m> {vmpack.logical_type = memref<5xi2>}
memref.global "private" constant @m : memref<5xi2> = dense_resource<m_in>

// CHECK-LABEL: func.func @f
// CHECK: arith.constant {vmpack.logical_type = tensor<3xi4>} dense_resource<f.cst0> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<10xi1>} dense_resource<f.cst1> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<10xi1>} dense_resource<f.cst2> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<2xcomplex<i4>>} dense_resource<f.cst3> : tensor<2xi8>
func.func @f() -> (tensor<3xi4>, tensor<10xi1>, tensor<10xi1>, tensor<2xcomplex<i4>>) {
  %0 = arith.constant dense_resource<dirty> : tensor<3xi4>
  %1 = arith.constant dense_resource<mask> : tensor<10xi1>
  %2 = arith.constant dense_resource<bools> : tensor<10xi1>
  %3 = arith.constant dense_resource<cplx> : tensor<2xcomplex<i4>>
  return %0, %1, %2, %3 : tensor<3xi4>, tensor<10xi1>, tensor<10xi1>, tensor<2xcomplex<i4>>
}

// Only the packed blobs are referenced, so only they are printed.
// CHECK:      dialect_resources: {
// CHECK-NEXT:   builtin: {
// CHECK-NEXT:     w_1: "0x10000000214305",
// CHECK-NEXT:     m: "0x100000009301",
// CHECK-NEXT:     f.cst0: "0x10000000E301",
// CHECK-NEXT:     f.cst1: "0x100000000D03",
// CHECK-NEXT:     f.cst2: "0x100000000D03",
// CHECK-NEXT:     f.cst3: "0x1000000021C3"
// CHECK-NEXT:   }
// CHECK-NEXT: }
{-#
  dialect_resources: {
    builtin: {
      w: "0x010000000102030405",
      m_in: "0x0100000003000102FD",
      dirty: "0x04000000F37EA1",
      mask: "0x010000000D03",
      bools: "0x0100000001000101000000000101",
      cplx: "0x0100000071F2A3FC"
    }
  }
#-}
