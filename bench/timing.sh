# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by bench/onnx-convert.sh and bench/llama-convert.sh, with
# $work (a scratch folder), $python, $root and $rounds set:
#   bench_case NAME BASELINE COMMAND...
# runs COMMAND once as a warm-up, once under bench/peak_anon.py, then
# $rounds rounds of COMMAND and of cp of BASELINE (the file COMMAND
# writes), each into a new file after a sync, the order alternating from
# round to round, and prints the medians, ranges, the ratio of each round,
# the load average and the peak memory. Every file named $work/out.* is the
# command's output and is deleted before each run.

bench_case() {
  local name=$1 baseline=$2
  shift 2
  local out=$work/out
  "$@" # warm-up
  cp "$baseline" "$work/copy" && rm "$work/copy"
  rm -f "$out".*
  "$python" "$root/bench/peak_anon.py" -- "$@" > "$work/peak.txt" 2>&1
  mv "$baseline" "$work/kept" # what cp copies
  rm -f "$out".*
  local times=$work/times.txt round t0 t1
  : > "$times"
  time_one() { # $1 vmpack|cp, then the command
    local who=$1
    shift
    rm -f "$out".* "$work/copy"
    sync
    t0=$(date +%s.%N)
    "$@"
    t1=$(date +%s.%N)
    echo "$who $t0 $t1" >> "$times"
  }
  for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then
      time_one vmpack "$@"
      time_one cp cp "$work/kept" "$work/copy"
    else
      time_one cp cp "$work/kept" "$work/copy"
      time_one vmpack "$@"
    fi
  done
  "$python" - "$name" "$(stat -c %s "$work/kept")" "$times" "$work/peak.txt" <<'PY'
import statistics, sys
name, size = sys.argv[1], int(sys.argv[2])
runs = {"vmpack": [], "cp": []}
for line in open(sys.argv[3]):
    who, t0, t1 = line.split()
    runs[who].append(float(t1) - float(t0))
peak = open(sys.argv[4]).read().strip().replace("\n", "; ")
v, c = runs["vmpack"], runs["cp"]
ratios = [a / b for a, b in zip(v, c)]
def span(x):
    return f"median {statistics.median(x):.2f} s, {min(x):.2f}-{max(x):.2f}"
print(f"{name}: {size / 1e9:.2f} GB written, {len(v)} rounds; "
      f"vmpack-convert {span(v)}; cp of the output {span(c)}; vmpack/cp of "
      f"the same round: median {statistics.median(ratios):.2f}x, "
      f"{min(ratios):.2f}-{max(ratios):.2f}x; load average "
      f"{open('/proc/loadavg').read().split()[0]}; {peak}")
PY
  rm -f "$work/kept" "$work/copy" "$out".*
}

