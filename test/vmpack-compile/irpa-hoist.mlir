// REQUIRES: mlir
// To .irpa, tensor arith.constants are hoisted into globals and exported;
// scalars and ops of other dialects stay in the program.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/p.irpa --emit-program=%t/p.mlir
// RUN: vmpack-dump %t/p.irpa | FileCheck %s --check-prefix=DUMP
// RUN: FileCheck %s --check-prefix=PROGRAM < %t/p.mlir
// RUN: vmpack-dump --extract main.cst0 -o %t/w.bin %t/p.irpa
// RUN: od -An -tx1 %t/w.bin | FileCheck %s --check-prefix=BYTES

// DUMP: 2 entries
// DUMP: main.cst0  -     data              2
// DUMP-NEXT: main.cst1  -     data              8
// PROGRAM: ml_program.global private @main.cst0(#flow.parameter.named<""::"main.cst0"> : tensor<4xi4>) : tensor<4xi4>
// PROGRAM: ml_program.global private @main.cst1(#flow.parameter.named<""::"main.cst1"> : tensor<2xf32>) : tensor<2xf32>
// PROGRAM: ml_program.global_load_const @main.cst0 : tensor<4xi4>
// PROGRAM: arith.constant 3 : i32
// PROGRAM: "flow.tensor.constant"() <{value = dense<[1, 0]> : tensor<2xi8>}>
// BYTES: 21 43

func.func @main() -> (tensor<4xi4>, tensor<2xf32>, i32) {
  %0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi4>
  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = arith.constant 3 : i32
  %3 = "flow.tensor.constant"() <{value = dense<[1, 0]> : tensor<2xi8>}> : () -> tensor<2xi8>
  return %0, %1, %2 : tensor<4xi4>, tensor<2xf32>, i32
}
