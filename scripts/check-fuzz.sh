#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds every libFuzzer target of fuzz/ with clang (-DVMPACK_FUZZ=ON:
# ASan + UBSan, coverage everywhere) into ${BUILD_DIR:-<checkout>/build-fuzz}
# and runs each for ${VMPACK_FUZZ_SECONDS:-15} seconds, starting from its
# checked-in corpus (fuzz/corpus/<target>, copied: new inputs stay out of
# the checkout). A target fails when libFuzzer stops early (a crash, a
# failed check, a leak, a sanitizer report, a timeout of one input, too
# much memory) or when it ran fewer than ${VMPACK_FUZZ_MIN_RUNS:-1000}
# inputs: a target that cannot fuzz fails. Crashing inputs are kept under
# the work directory it prints. The text-hex target needs MLIR
# (VMPACK_ENABLE_MLIR, default ON here); the others do not.
#
#   scripts/check-fuzz.sh [TARGET...]      # default: every target built
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
seconds=${VMPACK_FUZZ_SECONDS:-15}
min_runs=${VMPACK_FUZZ_MIN_RUNS:-1000}
mlir=${VMPACK_FUZZ_MLIR:-ON}

cc=${VMPACK_FUZZ_CC:-}
cxx=${VMPACK_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for v in "" -14; do
    if command -v "clang++$v" >/dev/null && command -v "clang$v" >/dev/null; then
      cc=clang$v cxx=clang++$v
      break
    fi
  done
fi
if [ -z "$cxx" ]; then
  echo "check-fuzz: error: no clang++ (scripts/install-deps.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
  -DVMPACK_FUZZ=ON -DVMPACK_ENABLE_MLIR="$mlir" \
  -DVMPACK_BUILD_BENCHMARKS=OFF >/dev/null

if (($#)); then
  targets=("$@")
else
  # Every fuzz target this configuration defines (text-hex only with MLIR).
  mapfile -t targets < <(ninja -C "$build" -t targets all |
    sed -n 's/^vmpack-fuzz-\([a-z-]*\): phony$/\1/p' | grep -v -- '-replay$' | sort -u)
fi
if ((${#targets[@]} == 0)); then
  echo "check-fuzz: error: the build defines no fuzz target" >&2
  exit 1
fi
ninja -C "$build" "${targets[@]/#/vmpack-fuzz-}"

work=$(mktemp -d "${TMPDIR:-/tmp}/vmpack-fuzz.XXXXXX")
failed=()
for t in "${targets[@]}"; do
  corpus=$work/$t/corpus
  mkdir -p "$corpus" "$work/$t/artifacts"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: 2 GiB.
  if ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/vmpack-fuzz-$t" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" \
      "$corpus" "$root/fuzz/corpus/$t" >"$work/$t/log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
    if [ -z "$runs" ] || [ "$runs" -lt "$min_runs" ]; then
      echo "check-fuzz: $t: only ${runs:-no} inputs in ${seconds} s (at least $min_runs expected)"
      failed+=("$t")
    else
      echo "check-fuzz: $t: $runs inputs in ${seconds} s, no failure"
    fi
  else
    echo "check-fuzz: $t FAILED; the end of its log ($work/$t/log):"
    tail -n 40 "$work/$t/log"
    ls "$work/$t/artifacts"
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "check-fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; inputs and logs in $work" >&2
  exit 1
fi
rm -rf "$work"
