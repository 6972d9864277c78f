// Origin: llvm/llvm-project mlir/test/Bytecode/i1_roundtrip.mlir
//   commit 413fded0db1fe20ca56dd5797f9d9c9e9ef90e86, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed.

func.func @test_i1_splat_true() -> tensor<100xi1> {
  %0 = arith.constant dense<true> : tensor<100xi1>
  return %0 : tensor<100xi1>
}


func.func @test_i1_splat_false() -> tensor<100xi1> {
  %0 = arith.constant dense<false> : tensor<100xi1>
  return %0 : tensor<100xi1>
}


func.func @test_8xi1_splat_true() -> tensor<8xi1> {
  %0 = arith.constant dense<true> : tensor<8xi1>
  return %0 : tensor<8xi1>
}

func.func @test_8xi1_splat_false() -> tensor<8xi1> {
  %0 = arith.constant dense<false> : tensor<8xi1>
  return %0 : tensor<8xi1>
}

func.func @test_i8_mixed() {
  %0 = arith.constant dense<[true, false, true, false, true, false, true, false]> : tensor<8xi1>
  return
}

func.func @test_i9_mixed() {
  %0 = arith.constant dense<[true, false, true, false, true, false, true, false, true]> : tensor<9xi1>
  return
}
