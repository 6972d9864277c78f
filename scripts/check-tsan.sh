#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ThreadSanitizer: builds vmpack with clang-22 and -fsanitize=thread
# (-DVMPACK_TSAN=ON) into ${BUILD_DIR:-build-tsan} and runs what uses
# threads: every unit test binary (parallel compile and verify, the read
# path's chunked CRC, the text fast path's threaded decode, --dedup=content
# hashing, the conversions, the dequantize kernels) and the tools on a
# generated model with several threads. Any report fails the run
# (halt_on_error). scripts/tsan.supp says what is suppressed and why.
# The build has only the portable kernels (-DVMPACK_DISPATCH=portable: no
# vector code compiled in), so it is also the check that the portable
# path builds and passes on its own: the packing tests and the unpacking
# corpus run in it too. The vector kernels are pure functions of the
# ranges their callers give them; the threads, chunking and hand-offs
# ThreadSanitizer looks at are the same code at every dispatch level.
# Then the Python tests that use threads (concurrent compiles from Python
# threads, threaded verify, dequantize and conversions, save_file) run in
# Debian's python3 with the same shared TSan runtime preloaded (the build
# links it shared, so the tools the tests start use that one too). The
# programs vmpack does not build (node for npm's @huggingface/gguf,
# IREE's tools, mlir-opt) are not instrumented: the tests start them
# without the preload (conftest.foreign_env).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-tsan}
cc=${TSAN_CC:-clang-22}
cxx=${TSAN_CXX:-clang++-22}
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "check-tsan: $cxx not found (scripts/install-deps.sh installs clang-22)" >&2
  exit 1
fi
# -O1 with line tables: ThreadSanitizer's documented minimum optimization
# (reports name the file and line), built faster than at -O2 -g.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DVMPACK_TSAN=ON \
  -DVMPACK_DISPATCH=portable \
  -DVMPACK_BUILD_BENCHMARKS=OFF -DVMPACK_ENABLE_PYTHON=ON "$@" >/dev/null
tests=(VmpackPackTests VmpackArchiveTests VmpackFormatsTests VmpackQuantTests
  VmpackDequantizeTests VmpackRuntimeTests VmpackTargetTests)
# vmpack-formats-testgen writes the GGUF blocks test_dequantize.py decodes
# on several threads.
tools=(vmpack-gen vmpack-compile vmpack-convert vmpack-dump vmpack-formats-testgen)
cmake --build "$build" --target "${tests[@]}" "${tools[@]}" _vmpack \
  vmpack-fuzz-unpack-replay

export TSAN_OPTIONS="halt_on_error=1 abort_on_error=0 exitcode=66 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"
status=0
# TSan must be able to speak: a known race is reported (exit code 66).
"$cxx" -std=c++17 -g -O1 -fsanitize=thread "$root/test/tsan/Race.cpp" \
  -o "$build/tsan-race-check"
if "$build/tsan-race-check" >/dev/null 2>&1 || [ $? -ne 66 ]; then
  echo "check-tsan: ThreadSanitizer did not report the race in test/tsan/Race.cpp" >&2
  exit 1
fi
for t in "${tests[@]}"; do
  bin=$build/unittests/$t
  echo "== TSan: $t"
  if ! "$bin" --gtest_brief=1; then
    echo "check-tsan: $t failed or ThreadSanitizer reported a race" >&2
    status=1
  fi
done

echo "== TSan: the unpacking corpus (portable kernels)"
if ! "$build/fuzz/vmpack-fuzz-unpack-replay" "$root/fuzz/corpus/unpack" >/dev/null; then
  echo "check-tsan: the unpacking corpus failed" >&2
  status=1
fi

echo "== TSan: the tools with several threads"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$build/bin
run() {
  if ! "$@" >"$work/out.txt" 2>&1; then
    cat "$work/out.txt" >&2
    echo "check-tsan: failed: $*" >&2
    status=1
  fi
}
run "$bin/vmpack-gen" --layers 2 --dim 256 --hidden 688 --seed 5 -o "$work/m.mlirbc"
run "$bin/vmpack-gen" --layers 1 --dim 256 --hidden 688 --seed 5 --format=mlir -o "$work/m.mlir"
run "$bin/vmpack-compile" "$work/m.mlirbc" -o "$work/m.vmpk" --threads=4 --dedup=content
run "$bin/vmpack-compile" "$work/m.mlir" -o "$work/t.vmpk" --threads=4
run "$bin/vmpack-compile" "$work/m.mlirbc" -o "$work/m.irpa" --threads=4
run "$bin/vmpack-dump" --verify --threads 4 "$work/m.vmpk"
run "$bin/vmpack-convert" "$work/m.vmpk" -o "$work/m.gguf"
run "$bin/vmpack-convert" "$work/m.gguf" -o "$work/s.safetensors" --max-shard-size=1MiB
echo "== TSan: the Python tests that use threads"
runtime=$("$cxx" -print-file-name=libclang_rt.tsan-x86_64.so)
if ! /usr/bin/python3 -c "import numpy, pytest" 2>/dev/null; then
  echo "check-tsan: /usr/bin/python3 has no numpy or pytest (python3-numpy, python3-pytest)" >&2
  status=1
elif ! LD_PRELOAD="$runtime" /usr/bin/python3 -c \
    "import ctypes; ctypes.CDLL(None).__tsan_init" 2>/dev/null; then
  echo "check-tsan: python3 with $runtime preloaded has no TSan runtime" >&2
  status=1
elif ! (cd "$root/python/tests" &&
  LD_PRELOAD="$runtime" PYTHONPATH="$build/python" VMPACK_BUILD_DIR="$build" \
    VMPACK_SOURCE_DIR="$root" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    test_compile.py test_dequantize.py test_foreign.py test_hostile.py \
    test_module.py test_convert.py test_save_file.py test_shards.py); then
  echo "check-tsan: a Python test failed or ThreadSanitizer reported a race" >&2
  status=1
fi
echo "check-tsan: $( ((status)) && echo FAILED || echo clean)"
exit $status
