#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# README command (b): installs the dependencies, checks that the sources are
# formatted and carry their SPDX line (scripts/check-format.sh), builds vmpack, and runs the
# whole test suite twice: first everything (unit tests, the fuzz corpus
# replay, the lit suite with the MLIR tools, the Python tests) built by
# clang-22 with AddressSanitizer + UndefinedBehaviorSanitizer, then the
# Release build and the same suite, whose summary is the last thing
# printed. The sanitizer build also has the libFuzzer targets, and each
# runs for 15 seconds from its corpus (scripts/check-fuzz.sh): a target
# that cannot fuzz fails. In between, a ThreadSanitizer build (clang-22)
# with only the portable kernels (-DVMPACK_DISPATCH=portable, no vector
# code compiled in) runs the unit tests, the packing tests and the
# unpacking corpus among them, and the tools with several threads
# (scripts/check-tsan.sh).
# The Release build is also installed into a temporary prefix and a small
# consumer (test/install/) is built against it through CMake and pkg-config.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
# Each step's heading also says how long the run has taken so far, in
# elapsed time and in the CPU time (user, system) of every command run.
cpu_file=$(mktemp)
stamp() {
  times >"$cpu_file"
  stamp="$((SECONDS / 60))m$((SECONDS % 60))s, CPU $(tail -n 1 "$cpu_file")"
}
step() { stamp; echo "== [$stamp] $*"; }
trap 'stamp; echo "== check: [$stamp] in all"; rm -f "$cpu_file"' EXIT

bash "$root/scripts/install-deps.sh"

step "Formatting and license lines"
bash "$root/scripts/check-format.sh"

step "Sanitizer build (clang, ASan + UBSan, fuzzing coverage) and the whole test suite"
# One clang-22 build serves the whole suite and the libFuzzer targets
# (-DVMPACK_FUZZ=ON: ASan + UBSan everywhere, coverage instrumentation for
# libFuzzer, which only the fuzz targets link). -O1 with line tables (-g1):
# the optimization level AddressSanitizer's documentation recommends; every
# report still names the file and line.
BUILD_DIR="$root/build-asan" bash "$root/scripts/build.sh" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMPACK_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DVMPACK_ENABLE_MLIR=ON -DVMPACK_ENABLE_PYTHON=ON \
  -DVMPACK_BUILD_BENCHMARKS=OFF
step "Sanitizer build: the tests"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$root/build-asan" \
  --output-on-failure -j "$jobs"

step "libFuzzer: every fuzz target for ${VMPACK_FUZZ_SECONDS:-15} s (the same build)"
BUILD_DIR="$root/build-asan" bash "$root/scripts/check-fuzz.sh"

step "ThreadSanitizer build, portable kernels only: the unit tests, the unpacking corpus and the threaded tools"
BUILD_DIR="$root/build-tsan" bash "$root/scripts/check-tsan.sh"

step "Release build and the whole test suite"
BUILD_DIR="$root/build" bash "$root/scripts/build.sh"
step "Install into a temporary prefix and build a consumer against it"
bash "$root/scripts/check-install.sh" "$root/build"
step "Release build: the tests"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"
