// REQUIRES: mlir
// Bad input that test/vmpack-compile/errors.mlir does not cover: each is a
// clear message (located where MLIR has a location), exit status 1, no
// output created, an existing output kept byte for byte, no temporary left.
// check_compile.py checks the last three for every case.
// RUN: rm -rf %t && mkdir -p %t/out && split-file %s %t
// RUN: echo precious > %t/out/kept.vmpk
// RUN: %python -c "open(r'%t/junk.mlirbc', 'wb').write(b'ML\xefR' + bytes(range(7, 200)))"
// RUN: %python -c "open(r'%t/magic-only.mlirbc', 'wb').write(b'ML\xefR')"
// RUN: vmpack-gen --layers 1 --dim 64 --hidden 128 --format=mlirbc-dense -o %t/model.mlirbc
// RUN: %python -c "d = open(r'%t/model.mlirbc', 'rb').read(); open(r'%t/cut.mlirbc', 'wb').write(d[:len(d) // 2])"

// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/junk.mlirbc -o %t/out/kept.vmpk | FileCheck %s --check-prefix=JUNK
// JUNK: junk.mlirbc:0:0: error:
// JUNK-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/magic-only.mlirbc -o %t/out/kept.vmpk | FileCheck %s --check-prefix=MAGIC
// MAGIC: magic-only.mlirbc:0:0: error:
// MAGIC-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/cut.mlirbc -o %t/out/kept.vmpk | FileCheck %s --check-prefix=CUT
// CUT: cut.mlirbc:0:0: error: attempting to parse
// CUT-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/cut.mlirbc -o %t/out/new.vmpk | FileCheck %s --check-prefix=CUT
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/long-blob.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=LONG
// LONG: long-blob.mlir:1:1: error: dense_resource 'blob' holds 5 bytes but type 'tensor<4xi4>' needs 4 bytes
// LONG-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/missing-resource.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=NORES
// NORES: missing-resource.mlir:1:1: error: dense_resource 'nowhere' has no data
// NORES-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/unknown-dialect.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=DIALECT
// DIALECT: unknown-dialect.mlir:2:3: error: 'nosuch.op' is written in the custom syntax of the 'nosuch' dialect, which vmpack does not have; no MLIR tool can parse an op's custom syntax without its dialect
// DIALECT: unknown-dialect.mlir:2:3: note: ops of any dialect are read in generic form or from bytecode: write the module with a tool that has the 'nosuch' dialect, adding --mlir-print-op-generic (text) or --emit-bytecode
// DIALECT-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/unknown-op.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=OP
// OP: unknown-op.mlir:2:3: error: custom op 'ml_program.nosuch' is unknown
// OP-NOT: check_compile.py: FAIL

// Bad flags: refused before anything is read or written.
// RUN: %python %S/Inputs/check_compile.py --exit 2 -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk --alignment=0 | FileCheck %s --check-prefix=ALIGN0
// ALIGN0: error: --alignment needs a power of two from 1 to 65536, got '0'
// ALIGN0-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py --exit 2 -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk --alignment=131072 | FileCheck %s --check-prefix=ALIGNBIG
// ALIGNBIG: error: --alignment needs a power of two from 1 to 65536, got '131072'
// ALIGNBIG-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py --exit 2 -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk --threads=-1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: --threads needs a number from 0 (all cores) to 1024, got '-1'
// THREADS-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py --exit 2 -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk --encoding=foo | FileCheck %s --check-prefix=ENCODING
// ENCODING: Cannot find option named 'foo'
// ENCODING-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py --exit 2 -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk --progress --no-progress | FileCheck %s --check-prefix=PROGRESS
// PROGRESS: error: --progress and --no-progress contradict each other
// PROGRESS-NOT: check_compile.py: FAIL

// Outputs that cannot be written: a directory in the way, a file where a
// directory should be, the output being a directory.
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/good.mlir -o %t/out/kept.vmpk/x.vmpk | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: error: cannot create the output '{{.*}}kept.vmpk/x.vmpk': '{{.*}}kept.vmpk' is not a directory
// NOTDIR-NOT: check_compile.py: FAIL
// RUN: mkdir -p %t/out/adir.vmpk
// RUN: %python %S/Inputs/check_compile.py -- vmpack-compile %t/good.mlir -o %t/out/adir.vmpk | FileCheck %s --check-prefix=ISDIR
// ISDIR: error: output '{{.*}}adir.vmpk' is a directory, not a regular file: outputs are written to a temporary file renamed into place, which would replace it
// ISDIR-NOT: check_compile.py: FAIL

// The good input compiles, and replaces the precious bytes.
// RUN: vmpack-compile %t/good.mlir -o %t/out/kept.vmpk
// RUN: vmpack-dump --verify %t/out/kept.vmpk | FileCheck %s --check-prefix=GOOD
// GOOD: OK (1 segments

//--- long-blob.mlir
ml_program.global private @r(dense_resource<blob> : tensor<4xi4>) : tensor<4xi4>
{-# dialect_resources: { builtin: { blob: "0x040000000102030405" } } #-}
//--- missing-resource.mlir
ml_program.global private @r(dense_resource<nowhere> : tensor<4xi4>) : tensor<4xi4>
//--- unknown-dialect.mlir
module {
  nosuch.op
}
//--- unknown-op.mlir
module {
  ml_program.nosuch @x
}
//--- good.mlir
ml_program.global private @w(dense<[1, 2, 3, 4]> : tensor<4xi4>) : tensor<4xi4>
