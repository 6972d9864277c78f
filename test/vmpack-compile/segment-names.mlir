// REQUIRES: mlir
// One naming rule (include/vmpack/Dialect/VMPack/ConstantNames.h): a
// constant that defines no symbol is <S>.cst<k>. vmpack-compile names
// segments by it, and --vmpack-hoist-constants names its globals by it, so
// hoisting first gives the same segment names.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/direct.vmpk
// RUN: vmpack-opt %s --vmpack-hoist-constants=min-elements=1 -o %t/hoisted.mlir
// RUN: vmpack-compile %t/hoisted.mlir -o %t/hoisted.vmpk
// RUN: vmpack-dump %t/direct.vmpk | FileCheck %s
// RUN: vmpack-dump %t/hoisted.vmpk | FileCheck %s
// RUN: FileCheck %s --check-prefix=GLOBALS < %t/hoisted.mlir

// CHECK-DAG: {{^}}main.cst0 {{.*}}i4
// CHECK-DAG: {{^}}main.cst1 {{.*}}f32
// CHECK-DAG: {{^}}helper.cst0 {{.*}}i8
// GLOBALS-DAG: ml_program.global private @main.cst0(
// GLOBALS-DAG: ml_program.global private @main.cst1(
// GLOBALS-DAG: ml_program.global private @helper.cst0(

func.func @main() -> (tensor<4xi4>, tensor<2xf32>) {
  %0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>
  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1 : tensor<4xi4>, tensor<2xf32>
}
func.func @helper() -> tensor<3xi8> {
  %0 = arith.constant dense<[7, 8, 9]> : tensor<3xi8>
  return %0 : tensor<3xi8>
}
