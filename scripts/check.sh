#!/usr/bin/env bash
# README command (b): installs the dependencies, builds vmpack, and runs the
# whole test suite (GoogleTest unit tests and the lit suite through CTest),
# then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

bash "$root/scripts/install-deps.sh"

echo "== Sanitizer build (ASan + UBSan) of the MLIR-free layers"
BUILD_DIR="$root/build-asan" bash "$root/scripts/build.sh" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVMPACK_SANITIZE=ON \
  -DVMPACK_ENABLE_MLIR=OFF -DVMPACK_BUILD_BENCHMARKS=OFF
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$root/build-asan" \
  --output-on-failure -j "$jobs"

echo "== Release build and the whole test suite"
BUILD_DIR="$root/build" bash "$root/scripts/build.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"
