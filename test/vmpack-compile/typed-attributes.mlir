// REQUIRES: mlir
// A registered op may constrain an attribute to a class: linalg's
// convolution `strides` and `dilations` are DenseIntElementsAttr, which a
// segment reference is not. Such constants stay in the program (nothing is
// dropped), the others become segments, and the module rebuilds exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-opt %s -o %t/expected.mlir
// RUN: vmpack-compile %s -o %t/m.vmpk
// RUN: vmpack-dump %t/m.vmpk | FileCheck %s
// RUN: vmpack-dump --mlir %t/m.vmpk | vmpack-opt | diff %t/expected.mlir -
// RUN: vmpack-opt %s --emit-bytecode -o %t/m.mlirbc
// RUN: vmpack-compile %t/m.mlirbc -o %t/bc.vmpk --encoding=word
// RUN: vmpack-dump --mlir %t/bc.vmpk | vmpack-opt | diff %t/expected.mlir -

// CHECK: 2 segments
// CHECK-NEXT: name
// CHECK-NEXT: filter {{ *}}tensor<3x3x3x4xf32>
// CHECK-NEXT: conv.cst0 {{ *}}tensor<2xi4>
// CHECK-NEXT: program

ml_program.global private @filter(dense<0.5> : tensor<3x3x3x4xf32>) : tensor<3x3x3x4xf32>
func.func @conv(%arg0: tensor<1x8x8x3xf32>, %out: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %w = ml_program.global_load_const @filter : tensor<3x3x3x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {annotation = dense<[1, -1]> : tensor<2xi4>, dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 1]> : tensor<2xi64>} ins(%arg0, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%out : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}
