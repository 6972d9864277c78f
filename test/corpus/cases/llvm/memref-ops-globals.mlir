// Origin: llvm/llvm-project mlir/test/Dialect/MemRef/ops.mlir
//   commit 01fa7a292177dbbd81de9ca2fdc01fa0cf0839d9, seen 2026-11-30
// Licence: Apache-2.0 WITH LLVM-exception (see test/corpus/SOURCES.md)
// Changes: RUN/CHECK lines removed; only the memref.global section and its user kept.

memref.global @memref0 : memref<2xf32>

memref.global constant @memref1 : memref<2xf32> = dense<[0.0, 1.0]>

memref.global @memref2 : memref<2xf32>  = uninitialized

memref.global "private" @memref3 : memref<2xf32>  = uninitialized

memref.global "private" constant @memref4 : memref<2xf32>  = uninitialized

func.func @read_global_memref() {
  %0 = memref.get_global @memref0 : memref<2xf32>
  return
}
