// REQUIRES: mlir
// --zero-fill-elided, --strip-debuginfo, a module read from stdin, and
// vmpack-dump --mlir's output options.
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: split-file %s %t
//
// Elided and missing resources are refused, or stored as zeros with a
// warning each.
// RUN: not vmpack-compile %t/elided.mlir -o %t/elided.vmpk 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: vmpack-compile %t/elided.mlir -o %t/elided.vmpk --zero-fill-elided 2>&1 | FileCheck %s --check-prefix=ZEROS
// RUN: vmpack-example %t/elided.vmpk e | FileCheck %s --check-prefix=E
// RUN: vmpack-example %t/elided.vmpk m | FileCheck %s --check-prefix=M
// RUN: vmpack-dump %t/elided.vmpk | FileCheck %s --check-prefix=ELIDED-TABLE
//
// Locations are kept by default; --strip-debuginfo drops them, so the same
// module from two directories gives byte-identical archives.
// RUN: cp %t/small.mlir %t/a/model.mlir && cp %t/small.mlir %t/b/model.mlir
// RUN: cd %t/a && vmpack-compile model.mlir -o %t/a.vmpk --strip-debuginfo
// RUN: cd %t/b && vmpack-compile %t/b/model.mlir -o %t/b.vmpk --strip-debuginfo
// RUN: cmp %t/a.vmpk %t/b.vmpk
// RUN: vmpack-dump --mlir --mlir-print-debuginfo %t/a.vmpk | FileCheck %s --check-prefix=STRIPPED
// RUN: vmpack-compile %t/a/model.mlir -o %t/kept.vmpk
// RUN: vmpack-dump --mlir --mlir-print-debuginfo %t/kept.vmpk | FileCheck %s --check-prefix=KEPT
//
// A module read from stdin is named after its symbol, else 'module'.
// RUN: vmpack-compile - -o %t/stdin.vmpk < %t/small.mlir
// RUN: vmpack-dump %t/stdin.vmpk | FileCheck %s --check-prefix=STDIN
// RUN: vmpack-compile - -o %t/named.vmpk < %t/named.mlir
// RUN: vmpack-dump %t/named.vmpk | FileCheck %s --check-prefix=NAMED
//
// vmpack-dump --mlir: generic form, and bytecode written atomically to -o.
// RUN: vmpack-dump --mlir --mlir-print-op-generic %t/kept.vmpk | FileCheck %s --check-prefix=GENERIC
// RUN: vmpack-dump --mlir --emit-bytecode -o %t/back.mlirbc %t/kept.vmpk
// RUN: vmpack-opt %t/back.mlirbc | FileCheck %s --check-prefix=BYTECODE
// RUN: not vmpack-dump --mlir --emit-bytecode %t/kept.vmpk 2>&1 | FileCheck %s --check-prefix=NEEDS-O
// RUN: not vmpack-dump --emit-bytecode %t/kept.vmpk 2>&1 | FileCheck %s --check-prefix=ONLY-MLIR
//
// Vector constants are segments as tensors are.
// RUN: vmpack-compile %t/vector.mlir -o %t/vector.vmpk
// RUN: vmpack-dump %t/vector.vmpk | FileCheck %s --check-prefix=VECTOR
// RUN: vmpack-example %t/vector.vmpk f.cst0 | FileCheck %s --check-prefix=VECTOR-VALUES
// RUN: vmpack-dump --mlir %t/vector.vmpk | FileCheck %s --check-prefix=VECTOR-BACK
//
// Bytecode newer than this MLIR: both versions named, and what to do.
// RUN: vmpack-opt %t/small.mlir --emit-bytecode -o %t/small.mlirbc
// RUN: %python -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[4]=(9<<1)|1; open(sys.argv[2],'wb').write(b)" %t/small.mlirbc %t/newer.mlirbc
// RUN: not vmpack-compile %t/newer.mlirbc -o %t/newer.vmpk 2>&1 | FileCheck %s --check-prefix=NEWER

// REFUSED: elided.mlir:1:1: error: dense_resource '__elided__' has no data (the resource is elided or missing from the input's dialect_resources; --zero-fill-elided stores zeros instead)
// REFUSED: elided.mlir:2:1: error: dense_resource 'nowhere' has no data
// ZEROS: elided.mlir:1:1: warning: dense_resource '__elided__' has no data; storing 'tensor<5xi4>' as zeros (--zero-fill-elided)
// ZEROS: elided.mlir:2:1: warning: dense_resource 'nowhere' has no data; storing 'tensor<3xf16>' as zeros (--zero-fill-elided)
// E: e[0:5] = 0 0 0 0 0
// M: m[0:3] = 0 0 0
// ELIDED-TABLE: e  tensor<5xi4>   packed               3
// ELIDED-TABLE: m  tensor<3xf16>  packed               6
// STRIPPED-NOT: model.mlir
// STRIPPED: #loc = loc(unknown)
// STRIPPED-NOT: model.mlir
// KEPT: #loc{{[0-9]*}} = loc("{{.*}}model.mlir":1:1)
// STDIN: module 'module' (producer 'vmpack-compile', format 1): 1 segments
// NAMED: module 'mine' (producer 'vmpack-compile', format 1): 1 segments
// GENERIC: "ml_program.global"() <{sym_name = "w", sym_visibility = "private", type = tensor<3xi4>, value = dense<[1, 2, 3]> : tensor<3xi4>}> : () -> ()
// BYTECODE: ml_program.global private @w(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
// NEEDS-O: error: --emit-bytecode needs -o FILE
// ONLY-MLIR: error: --mlir-print-op-generic, --mlir-print-debuginfo and --emit-bytecode are options of --mlir
// NEWER: newer.mlirbc:0:0: error: bytecode version 9 is newer than the current version
// NEWER: note: vmpack reads MLIR bytecode up to the version of the MLIR it is built with

// VECTOR: f.cst0  vector<2x3xi4>  packed               3
// VECTOR-VALUES: f.cst0[0:6] = 1 2 3 -1 -2 -3
// VECTOR-BACK: arith.constant dense<{{\[}}[1, 2, 3], [-1, -2, -3]]> : vector<2x3xi4>

//--- vector.mlir
func.func @f() -> vector<2x3xi4> {
  %v = arith.constant dense<[[1, 2, 3], [-1, -2, -3]]> : vector<2x3xi4>
  return %v : vector<2x3xi4>
}
//--- elided.mlir
ml_program.global private @e(dense_resource<__elided__> : tensor<5xi4>) : tensor<5xi4>
ml_program.global private @m(dense_resource<nowhere> : tensor<3xf16>) : tensor<3xf16>
//--- small.mlir
ml_program.global private @w(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
//--- named.mlir
module @mine {
  ml_program.global private @w(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
}
