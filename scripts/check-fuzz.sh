#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds every libFuzzer target of fuzz/ with clang (-DVMPACK_FUZZ=ON:
# ASan + UBSan, coverage everywhere) into ${BUILD_DIR:-<checkout>/build-fuzz}
# and runs each for ${VMPACK_FUZZ_SECONDS:-15} seconds (one per core at a
# time; VMPACK_FUZZ_JOBS), starting from its
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
  for v in -22 "" -14; do
    if command -v "clang++$v" >/dev/null && command -v "clang$v" >/dev/null; then
      cc=clang$v cxx=clang++$v
      break
    fi
  done
fi
if [ -z "$cxx" ]; then
  echo "check-fuzz: error: no clang++ (scripts/install-deps.sh installs clang-22 and libclang-rt-22-dev)" >&2
  exit 1
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# A build directory already configured with -DVMPACK_FUZZ=ON (scripts/check.sh
# runs the whole test suite in one first) is used as it is.
if ! grep -qs '^VMPACK_FUZZ:BOOL=ON$' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
    -DVMPACK_FUZZ=ON -DVMPACK_ENABLE_MLIR="$mlir" \
    -DVMPACK_BUILD_BENCHMARKS=OFF >/dev/null
fi

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

# run_target TARGET ATTEMPT: one libFuzzer run; prints its outcome and
# returns 0 (ran long enough, no failure), 1 (libFuzzer stopped: a crash, a
# failed check, a leak, a report) or 2 (no failure, but too few inputs).
run_target() {
  local t=$1 dir=$work/$1/run$2
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: 2 GiB.
  if ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/vmpack-fuzz-$t" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
      "$dir/corpus" "$root/fuzz/corpus/$t" >"$dir/log" 2>&1; then
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    if [ -z "$runs" ] || [ "$runs" -lt "$min_runs" ]; then
      echo "check-fuzz: $t: only ${runs:-no} inputs in ${seconds} s (at least $min_runs expected); from its log ($dir/log):"
      grep -E '^(INFO: libFuzzer disabled|stat::|Slowest unit)' "$dir/log" | awk '!seen[$0]++' || true
      tail -n 5 "$dir/log"
      # The largest inputs it kept, for a look at what made it slow.
      ls -S "$dir/corpus" | head -n 3 | sed "s|^|  $dir/corpus/|"
      return 2
    fi
    echo "check-fuzz: $t: $runs inputs in ${seconds} s, no failure"
    return 0
  fi
  echo "check-fuzz: $t FAILED; the end of its log ($dir/log):"
  tail -n 40 "$dir/log"
  ls "$dir/artifacts"
  return 1
}

# fuzz_target TARGET: its run, and the second run described below.
fuzz_target() {
  local t=$1 status=0
  run_target "$t" 1 || status=$?
  # Too few inputs, with nothing wrong found, can be a run that wandered
  # into large inputs (a JSON header of several kilobytes costs
  # milliseconds under full instrumentation): it is run once more, from
  # the checked-in corpus with a new seed, and fails if that run is short
  # too. A failure libFuzzer reports is never run again.
  if ((status == 2)); then
    echo "check-fuzz: $t: running it once more"
    status=0
    run_target "$t" 2 || status=$?
  fi
  return $status
}

# The targets run ${VMPACK_FUZZ_JOBS:-one per core} at a time, each with
# its own output, printed in order when all are done.
parallel=${VMPACK_FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do
    wait -n || true
  done
  (
    s=0
    fuzz_target "$t" >"$work/$t.out" 2>&1 || s=$?
    echo "$s" >"$work/$t.status"
  ) &
done
wait
failed=()
for t in "${targets[@]}"; do
  cat "$work/$t.out"
  [ "$(cat "$work/$t.status" 2>/dev/null)" = 0 ] || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "check-fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; inputs and logs in $work" >&2
  exit 1
fi
rm -rf "$work"
