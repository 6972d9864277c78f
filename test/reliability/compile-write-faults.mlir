// REQUIRES: mlir
// Write faults and signals while vmpack-compile writes: a clear message,
// no output created, the existing output kept byte for byte, and no
// temporary file left behind (check_compile.py checks the last three).
// Faults come from an LD_PRELOAD shim (FaultInject.c) that plays a disk of
// VMPACK_FAULT_LIMIT bytes, or holds a write until a signal was handled.
// RUN: rm -rf %t && mkdir -p %t/out %t/marker
// RUN: vmpack-gen --layers 1 --dim 64 --hidden 128 --format=mlir -o %t/model.mlir
// RUN: vmpack-compile %t/model.mlir -o %t/ref.vmpk --threads=2
// RUN: echo precious > %t/out/kept.vmpk

// A full disk when the space is reserved up front.
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=1000 -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=RESERVE
// RESERVE: error: cannot reserve {{[0-9]+}} bytes for '{{.*}}kept.vmpk': No space left on device
// RESERVE-NOT: check_compile.py: FAIL

// No fallocate (the writer falls back to ftruncate): the disk fills up
// while segments are written, with a short write first.
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=3001 \
// RUN:   --env VMPACK_FAULT_FALLOCATE=unsupported -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk --threads=2 | FileCheck %s --check-prefix=DATA
// DATA: error: writing segment '{{.*}}' to '{{.*}}kept.vmpk' at file offset {{[0-9]+}}: No space left on device
// DATA-NOT: check_compile.py: FAIL

// An I/O error instead, into a new output.
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=3001 \
// RUN:   --env VMPACK_FAULT_FALLOCATE=unsupported --env VMPACK_FAULT_ERRNO=EIO -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/new.vmpk --threads=1 | FileCheck %s --check-prefix=EIO
// EIO: error: writing segment '{{.*}}' to '{{.*}}new.vmpk' at file offset {{[0-9]+}}: Input/output error
// EIO-NOT: check_compile.py: FAIL

// Every segment written, then no room for the last bytes of the central
// directory: the file lacks one byte of what the reference holds.
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=@%t/ref.vmpk-1 \
// RUN:   --env VMPACK_FAULT_FALLOCATE=unsupported -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=TAIL
// TAIL: error: writing the central directory to '{{.*}}kept.vmpk' at file offset {{[0-9]+}}: No space left on device
// TAIL-NOT: check_compile.py: FAIL
// With exactly enough room, the same run succeeds.
// RUN: env LD_PRELOAD=%fault_inject VMPACK_FAULT_FALLOCATE=unsupported ASAN_OPTIONS=verify_asan_link_order=0 \
// RUN:   %python -c "import os, subprocess, sys; os.environ['VMPACK_FAULT_LIMIT'] = str(os.path.getsize(r'%t/ref.vmpk')); sys.exit(subprocess.call(['vmpack-compile', r'%t/model.mlir', '-o', r'%t/exact.vmpk']))"
// RUN: cmp %t/exact.vmpk %t/ref.vmpk

// A file-size limit (ulimit -f): EFBIG, not death by SIGXFSZ.
// RUN: %python %S/Inputs/check_compile.py --fsize 4096 -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=FSIZE
// FSIZE: error: cannot reserve {{[0-9]+}} bytes for '{{.*}}kept.vmpk': File too large
// FSIZE-NOT: check_compile.py: FAIL
// RUN: %python %S/Inputs/check_compile.py --fsize 4096 --preload %fault_inject --env VMPACK_FAULT_LIMIT=100000000 \
// RUN:   --env VMPACK_FAULT_FALLOCATE=unsupported -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk | FileCheck %s --check-prefix=FSIZE

// SIGINT and SIGTERM while a write is in progress (the shim holds the
// first write until the signal was handled): the writers stop, the
// temporary file goes, and the process dies of the signal.
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=0 \
// RUN:   --env VMPACK_FAULT_PAUSE_FILE=%t/marker/paused --interrupt SIGINT --marker %t/marker/paused --signal SIGINT -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk --threads=1 | FileCheck %s --check-prefix=SIGNAL
// RUN: %python %S/Inputs/check_compile.py --preload %fault_inject --env VMPACK_FAULT_LIMIT=0 \
// RUN:   --env VMPACK_FAULT_PAUSE_FILE=%t/marker/paused --interrupt SIGTERM --marker %t/marker/paused --signal SIGTERM -- \
// RUN:   vmpack-compile %t/model.mlir -o %t/out/kept.vmpk --threads=2 | FileCheck %s --check-prefix=SIGNAL
// SIGNAL: error: interrupted; '{{.*}}kept.vmpk' was not written
// SIGNAL-NOT: check_compile.py: FAIL

// RUN: FileCheck %s --check-prefix=KEPT --input-file %t/out/kept.vmpk
// KEPT: precious
