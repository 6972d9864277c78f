#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Whole-process comparison of vmpack-compile against the alternatives.

Generates a llama2-shaped int4 model with vmpack-gen (dense bytecode and
bytecode already packed), then runs, interleaved round-robin so that machine
noise hits every step alike:

  (a) vmpack-compile on the dense .mlirbc
  (b) vmpack-compile on the packed .mlirbc
  (c) vmpack-baseline-apint on the dense .mlirbc: the per-element APInt
      serializer vmpack replaces
  (d) mlir-opt --emit-bytecode on the dense .mlirbc: what MLIR alone costs to
      read (and re-write) the model
  (e) cp of a file of vmpack's output size: the floor for writing it
  (f) vmpack-compile on the same model as MLIR text (dense<"0x..."> hex)
  (g) mlir-opt --emit-bytecode on that text: MLIR's own text parse
  (h) vmpack-dump --verify --load=mmap of (a)'s module
  (i) vmpack-dump --verify --load=read of it (CRCs computed while reading)
  (j) cat of that module to /dev/null: the floor for reading it
  (k) vmpack-compile on the text with --no-text-fast-path: the hex left to
      MLIR's parser (its module must equal (f)'s byte for byte)

and prints a markdown table of median wall time and peak RSS (the child's
rusage ru_maxrss), with ratios and a description of the machine, then the
CRC-32 libraries' throughput from vmpack-checksum-bench (Google Benchmark)
when it is built. --no-text leaves out (f), (g) and (k), the slowest steps.

    bench/compare.py --build build --layers 1 --runs 3 [--workdir DIR]
    bench/compare.py --build build --smoke

--smoke runs a tiny model once and fails (exit status 1) if any tool is
missing, exits non-zero, or leaves no output: a test that the benchmark
still works, not a measurement.

Python 3 standard library only.
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MLIR_OPT_CANDIDATES = ["/usr/lib/llvm-22/bin/mlir-opt", "mlir-opt-22"]


def find_mlir_opt():
    for candidate in MLIR_OPT_CANDIDATES:
        path = shutil.which(candidate)
        if path:
            return path
    return None


class Step:
    """One command measured in every round."""

    def __init__(self, key, title, argv, output=None, missing=None):
        self.key = key
        self.title = title
        self.argv = argv
        self.output = output  # a file the command must produce, or None
        self.missing = missing  # why the step cannot run, or None
        self.walls = []
        self.rss_kib = []
        self.failure = None
        self.output_bytes = None

    @property
    def runnable(self):
        return self.missing is None and self.failure is None


def run_measured(argv):
    """Runs argv; returns (exit status, wall seconds, peak RSS KiB, stderr)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    # Linux reports ru_maxrss in KiB.
    return child.returncode, wall, usage.ru_maxrss, stderr


def run_checked(argv, what):
    result = subprocess.run(argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"compare.py: {what} failed (exit {result.returncode}):\n"
                 f"  {' '.join(argv)}\n{result.stderr}")


def remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def int4_weights_agree(args, baseline_path, module_paths):
    """Whether every int4 weight the baseline wrote appears byte for byte in
    each module. For int4, IREE's `word` layout (the baseline's) and vmpack's
    `packed` encoding are the same bytes, so both must hold them verbatim."""
    dim, hidden = args.dim, args.hidden
    sizes = ([dim * dim // 2] * 4 + [hidden * dim // 2] * 3) * args.layers
    norms = 2 * dim * 2
    with open(baseline_path, "rb") as f:
        baseline = f.read()
    modules = []
    for path in module_paths:
        with open(path, "rb") as f:
            modules.append(f.read())
    offset = 0
    for index, size in enumerate(sizes):
        weight = baseline[offset:offset + size]
        for module in modules:
            at = module.find(weight[:4096])
            if at < 0 or module[at:at + size] != weight:
                return False
        offset = -(-(offset + size) // 16) * 16
        if index % 7 == 6:  # after w3 come the layer's two f16 norms
            offset = -(-(offset + norms // 2) // 16) * 16
            offset = -(-(offset + norms // 2) // 16) * 16
    return True


def dim_is_even(args):
    """Whole bytes per tensor, so weights can be found by their bytes."""
    return args.dim % 2 == 0 and args.hidden % 2 == 0


def machine_description(args):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    memory = f"{int(line.split()[1]) / 1048576:.1f} GiB RAM"
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    threads = args.threads if args.threads else "vmpack-compile's default"
    return (f"{cpu}; {cores} cores available; {memory}; "
            f"Linux {platform.release()}; vmpack-compile threads: {threads}")


def fmt_seconds(values):
    return f"{statistics.median(values):.3f}" if values else "–"


def fmt_mib(kib_values):
    if not kib_values:
        return "–"
    return f"{statistics.median(kib_values) / 1024:.0f}"


def ratio(numerator, denominator, values):
    """Median of numerator's values over median of denominator's."""
    a, b = values(numerator), values(denominator)
    if not a or not b or statistics.median(b) == 0:
        return "n/a"
    return f"{statistics.median(a) / statistics.median(b):.2f}×"


def print_report(steps, args, model, inputs):
    by_key = {s.key: s for s in steps}
    print(f"### vmpack-compile vs. alternatives: {model}\n")
    print(f"Machine: {machine_description(args)}  ")
    text = (f", text .mlir {inputs['text'] / 1e6:.1f} MB"
            if inputs.get("text") else "")
    print(f"Inputs: dense .mlirbc {inputs['dense'] / 1e6:.1f} MB, "
          f"packed .mlirbc {inputs['packed'] / 1e6:.1f} MB{text}; "
          f"{args.runs} run(s) per step, round-robin; medians.\n")
    print("| step | command | wall (s) | min–max (s) | peak RSS (MiB) "
          "| output (MB) |")
    print("|---|---|---:|---:|---:|---:|")
    for s in steps:
        # Tools and files in the work directory by their base names.
        command = " ".join(os.path.basename(a) if i == 0 or
                           a.startswith(args.workdir_path) else a
                           for i, a in enumerate(s.argv))
        if s.missing:
            print(f"| ({s.key}) {s.title} | – | not built | | | |")
            continue
        if s.failure:
            print(f"| ({s.key}) {s.title} | `{command}` | FAILED: "
                  f"{s.failure} | | | |")
            continue
        spread = (f"{min(s.walls):.3f}–{max(s.walls):.3f}"
                  if s.walls else "–")
        out = (f"{s.output_bytes / 1e6:.1f}"
               if s.output_bytes is not None else "–")
        print(f"| ({s.key}) {s.title} | `{command}` | {fmt_seconds(s.walls)} "
              f"| {spread} | {fmt_mib(s.rss_kib)} | {out} |")

    def walls(key):
        s = by_key.get(key)
        return s.walls if s and s.runnable else []

    def rss(key):
        s = by_key.get(key)
        return s.rss_kib if s and s.runnable else []

    print("\n| ratio | wall | peak RSS |")
    print("|---|---:|---:|")
    rows = [
        ("APInt baseline / vmpack-compile (dense input)", "c", "a"),
        ("APInt baseline / vmpack-compile (packed input)", "c", "b"),
        ("vmpack-compile (dense) / mlir-opt parse+emit", "a", "d"),
        ("vmpack-compile (packed) / mlir-opt parse+emit", "b", "d"),
        ("vmpack-compile (dense) / cp of the output", "a", "e"),
        ("vmpack-compile (packed) / cp of the output", "b", "e"),
        ("vmpack-compile (text) / mlir-opt parse+emit (text)", "f", "g"),
        ("vmpack-compile (text) / vmpack-compile (dense .mlirbc)", "f", "a"),
        ("vmpack-compile (text) / same, --no-text-fast-path", "f", "k"),
        ("vmpack-dump --verify, read / cat of the module", "i", "j"),
        ("vmpack-dump --verify, mapped / cat of the module", "h", "j"),
    ]
    for label, num, den in rows:
        print(f"| {label} | {ratio(num, den, walls)} "
              f"| {ratio(num, den, rss)} |")
    if getattr(args, "agreement", None):
        print(f"\n{args.agreement}")
    if getattr(args, "crc_rows", None):
        print(f"\nCRC-32 of {args.crc_size}, one core, "
              "vmpack-checksum-bench:\n")
        print("| implementation | GB/s |")
        print("|---|---:|")
        for name, rate in args.crc_rows:
            print(f"| {name} | {rate / 1e9:.1f} |")


def crc_library_rates(bin_dir, smoke):
    """[(name, bytes/s)] from vmpack-checksum-bench's 256 MiB runs, or []
    when it is not built."""
    bench = os.path.join(bin_dir, "vmpack-checksum-bench")
    if not os.access(bench, os.X_OK):
        return []
    size = 256 << 10 if smoke else 256 << 20
    result = subprocess.run(
        [bench, f"--benchmark_filter=/{size}$",
         "--benchmark_repetitions=1" if smoke else
         "--benchmark_repetitions=3",
         "--benchmark_format=json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if result.returncode != 0:
        sys.exit(f"compare.py: {bench} failed (exit {result.returncode})")
    rows = []
    for b in json.loads(result.stdout)["benchmarks"]:
        if smoke or b.get("aggregate_name") == "median":
            name = b["run_name"].rsplit("/", 1)[0].replace("BM_", "")
            rows.append((name, b["bytes_per_second"]))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build",
                        help="build directory holding bin/ (default: build)")
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--dim", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=11008)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3,
                        help="runs per step (at least 3 for medians)")
    parser.add_argument("--threads", type=int, default=0,
                        help="pass --threads N to vmpack-compile")
    parser.add_argument("--encoding", choices=["packed", "word", "byte"],
                        help="pass --encoding to vmpack-compile")
    parser.add_argument("--workdir",
                        help="keep inputs and outputs here (default: a "
                             "temporary directory, removed afterwards)")
    parser.add_argument("--no-text", action="store_true",
                        help="leave out the text-input steps (f), (g), (k)")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny model, one run; fail if anything fails")
    args = parser.parse_args()

    if args.smoke:
        args.layers, args.dim, args.hidden, args.runs = 2, 64, 160, 1
    elif args.runs < 3:
        parser.error("--runs must be at least 3 (medians); use --smoke for "
                     "a single quick run")

    bin_dir = os.path.join(args.build, "bin")
    tool = {name: os.path.join(bin_dir, name) for name in
            ("vmpack-gen", "vmpack-compile", "vmpack-baseline-apint",
             "vmpack-dump")}
    # The same tool without MLIR, when built: loading libMLIR alone costs
    # ~0.1 s, which would swamp reading a small module.
    archive_only = os.path.join(bin_dir, "vmpack-dump-archive-only")
    if os.access(archive_only, os.X_OK):
        tool["vmpack-dump"] = archive_only
    present = {name: os.access(path, os.X_OK) for name, path in tool.items()}
    mlir_opt = find_mlir_opt()

    missing = [n for n, ok in present.items() if not ok]
    if not mlir_opt:
        missing.append("mlir-opt (LLVM 22)")
    if not present["vmpack-gen"] or (args.smoke and missing):
        sys.exit(f"compare.py: not built: {', '.join(missing)} "
                 f"(looked in {bin_dir})")

    workdir = args.workdir or tempfile.mkdtemp(prefix="vmpack-compare-")
    os.makedirs(workdir, exist_ok=True)
    args.workdir_path = workdir
    path = lambda name: os.path.join(workdir, name)
    try:
        shape = ["--layers", str(args.layers), "--dim", str(args.dim),
                 "--hidden", str(args.hidden), "--seed", str(args.seed)]
        dense, packed = path("model.dense.mlirbc"), path("model.packed.mlirbc")
        run_checked([tool["vmpack-gen"], *shape, "--format=mlirbc-dense",
                     "-o", dense], "vmpack-gen (dense)")
        run_checked([tool["vmpack-gen"], *shape, "--format=mlirbc-packed",
                     "-o", packed], "vmpack-gen (packed)")
        text = path("model.mlir")
        if not args.no_text:
            run_checked([tool["vmpack-gen"], *shape, "--format=mlir",
                         "-o", text], "vmpack-gen (text)")

        compile_flags = []
        if args.threads:
            compile_flags += ["--threads", str(args.threads)]
        if args.encoding:
            compile_flags += ["--encoding", args.encoding]
        not_built = lambda name: None if present[name] else f"{name} not built"

        steps = [
            Step("a", "vmpack-compile, dense input",
                 [tool["vmpack-compile"], dense, "-o", path("a.vmpk"),
                  *compile_flags], path("a.vmpk"),
                 not_built("vmpack-compile")),
            Step("b", "vmpack-compile, packed input",
                 [tool["vmpack-compile"], packed, "-o", path("b.vmpk"),
                  *compile_flags], path("b.vmpk"),
                 not_built("vmpack-compile")),
            Step("c", "APInt baseline, dense input",
                 [tool["vmpack-baseline-apint"], dense, "-o",
                  path("c.rodata")], path("c.rodata"),
                 not_built("vmpack-baseline-apint")),
            Step("d", "mlir-opt parse + emit bytecode, dense input",
                 [mlir_opt or "mlir-opt", dense, "--emit-bytecode", "-o",
                  "/dev/null"], None,
                 None if mlir_opt else "mlir-opt (LLVM 22) not found"),
        ]
        # (e) copies a file of vmpack's output size: vmpack's own output
        # once it exists, else the baseline's.
        copy_source = path("a.vmpk") if present["vmpack-compile"] \
            else path("c.rodata")
        steps.append(Step("e", "cp of a file of the output's size",
                          ["cp", copy_source, path("e.copy")], path("e.copy"),
                          None if steps[0].missing is None
                          or steps[2].missing is None
                          else "nothing to copy"))
        no_text = "left out (--no-text)" if args.no_text else None
        steps += [
            Step("f", "vmpack-compile, text input",
                 [tool["vmpack-compile"], text, "-o", path("f.vmpk"),
                  *compile_flags], path("f.vmpk"),
                 no_text or not_built("vmpack-compile")),
            Step("g", "mlir-opt parse + emit bytecode, text input",
                 [mlir_opt or "mlir-opt", text, "--emit-bytecode", "-o",
                  "/dev/null"], None,
                 no_text or (None if mlir_opt
                             else "mlir-opt (LLVM 22) not found")),
            Step("k", "vmpack-compile, text input, --no-text-fast-path",
                 [tool["vmpack-compile"], text, "-o", path("k.vmpk"),
                  "--no-text-fast-path", *compile_flags], path("k.vmpk"),
                 no_text or not_built("vmpack-compile")),
        ]
        # (h)-(j) read (a)'s module, written earlier in the same round.
        no_module = None if steps[0].missing is None else "no module"
        steps += [
            Step("h", "vmpack-dump --verify, mapped",
                 [tool["vmpack-dump"], "--verify", "--load=mmap",
                  path("a.vmpk")], None,
                 no_module or not_built("vmpack-dump")),
            Step("i", "vmpack-dump --verify, read",
                 [tool["vmpack-dump"], "--verify", "--load=read",
                  path("a.vmpk")], None,
                 no_module or not_built("vmpack-dump")),
            Step("j", "cat of the module to /dev/null",
                 ["cat", path("a.vmpk")], None, no_module),
        ]

        for _ in range(args.runs):
            for s in steps:
                if not s.runnable:
                    continue
                if s.output:
                    remove(s.output)
                rc, wall, rss, stderr = run_measured(s.argv)
                if rc != 0:
                    s.failure = f"exit {rc}"
                    sys.stderr.write(f"compare.py: ({s.key}) {s.title} "
                                     f"failed (exit {rc}):\n  "
                                     f"{' '.join(s.argv)}\n{stderr}\n")
                    continue
                if s.output and (not os.path.exists(s.output)
                                 or os.path.getsize(s.output) == 0):
                    s.failure = "no output"
                    sys.stderr.write(f"compare.py: ({s.key}) {s.title} left "
                                     f"no output at {s.output}\n")
                    continue
                s.walls.append(wall)
                s.rss_kib.append(rss)
                if s.output:
                    s.output_bytes = os.path.getsize(s.output)

        by_key = {s.key: s for s in steps}
        if (args.encoding in (None, "packed", "word") and dim_is_even(args)
                and all(by_key[k].runnable and by_key[k].walls
                        for k in "abc")):
            if not int4_weights_agree(args, path("c.rodata"),
                                      [path("a.vmpk"), path("b.vmpk")]):
                by_key["a"].failure = by_key["b"].failure = \
                    "int4 weights differ from the APInt baseline's"
                sys.stderr.write("compare.py: the modules do not hold the "
                                 "baseline's int4 weights byte for byte\n")
            else:
                args.agreement = ("Checked: every int4 weight in both "
                                  "modules is byte for byte the APInt "
                                  "baseline's.")

        if all(by_key[k].runnable and by_key[k].walls for k in "fk"):
            with open(path("f.vmpk"), "rb") as f, \
                    open(path("k.vmpk"), "rb") as k:
                same = f.read() == k.read()
            if not same:
                by_key["f"].failure = "module differs from (k)'s"
                sys.stderr.write("compare.py: text input with and without "
                                 "the fast path gives different modules\n")
            else:
                args.agreement = ((getattr(args, "agreement", None) or "") +
                                  " Checked: (f) and (k) wrote byte-identical "
                                  "modules.").strip()

        args.crc_rows = crc_library_rates(bin_dir, args.smoke)
        args.crc_size = ("256 KiB, one run (--smoke)" if args.smoke
                         else "256 MiB (memory-bound), median of 3")
        model = (f"{args.layers} llama2 layer(s), dim {args.dim}, hidden "
                 f"{args.hidden}, int4 weights")
        print_report(steps, args, model,
                     {"dense": os.path.getsize(dense),
                      "packed": os.path.getsize(packed),
                      "text": os.path.getsize(text)
                      if os.path.exists(text) else 0})
        failed = [s for s in steps if s.failure]
        if failed:
            sys.exit("compare.py: failed: " +
                     ", ".join(f"({s.key}) {s.title}" for s in failed))
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
