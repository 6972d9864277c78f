// Origin: llvm/llvm-project mlir/test/Bytecode/op_with_properties_deeply_nested_attr.mlir
//   commit 4bbbc6d1938fd50bdf539dbe4897b0cb3fbe8acd, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN line removed.

func.func @deeply_nested_attribute() -> i32 {
  %0 = "test.constant"() {value = [[[[[[[[[[[[1]]]]]]]]]]]]} : () -> i32
  return %0 : i32
}
