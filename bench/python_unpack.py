#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Unpacking from Python against the C runtime, on a 100 MB segment.

Generates a module with one large int4 matrix (vmpack-gen --vocab: the
tok_embeddings table, 51200 x 4096 i4 = 100 MiB stored `packed`), then
unpacks the whole segment to int8 (200 MiB out), interleaving rounds of:

  (c) bench/UnpackTime.c (vmpack-unpack-time): vmpack_segment_unpack into
      one reused buffer, from C
  (p) Python, reused buffer: seg.unpack(dtype="int8", out=buf)
  (f) Python, fresh array: m.get_tensor(name) (allocates and faults in
      200 MiB each call)
  (t) Python, two threads each unpacking half into buf (the GIL is released
      during the unpack, so they run at once)

and prints best and median seconds and GB/s of output, and the ratios to C.
A report, not a test: run it on a quiet machine.

--format safetensors|gguf converts the module with vmpack-convert first and
times the same segment opened from that file (the int4 weights stored as
U8/I8 bytes with a vmpack.type record, unpacked in place). --file PATH
--name NAME times any file's segment instead (no MLIR needed).

    PYTHONPATH=build/python python3 bench/python_unpack.py --build build
    PYTHONPATH=build/python python3 bench/python_unpack.py --format gguf
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", type=pathlib.Path)
    parser.add_argument("--vocab", type=int, default=51200)
    parser.add_argument("--dim", type=int, default=4096)
    parser.add_argument("--format", default="vmpk",
                        choices=["vmpk", "safetensors", "gguf"])
    parser.add_argument("--file", type=pathlib.Path,
                        help="time a segment of this file instead")
    parser.add_argument("--name", default="tok_embeddings")
    args = parser.parse_args()
    sys.path.insert(0, str(args.build / "python"))
    import numpy as np
    import vmpack

    work = args.workdir or pathlib.Path(tempfile.mkdtemp(prefix="vmpack-py-"))
    work.mkdir(parents=True, exist_ok=True)
    model, module = work / "embed.mlirbc", work / "embed.vmpk"
    if args.file:
        module = args.file
    elif not module.exists():
        subprocess.run([args.build / "bin" / "vmpack-gen", "--layers", "1",
                        "--dim", str(args.dim), "--hidden", "64",
                        "--vocab", str(args.vocab), "-o", model], check=True)
        vmpack.compile(model, module)
        model.unlink()
    if not args.file and args.format != "vmpk":
        converted = module.with_suffix("." + args.format)
        if not converted.exists():
            subprocess.run([args.build / "bin" / "vmpack-convert", module,
                            "-o", converted], check=True)
        module = converted
    name = args.name
    m = vmpack.open(module)
    seg = m[name]
    out_bytes = seg.size
    buf = np.empty(seg.size, np.int8)
    seg.unpack(dtype="int8", out=buf)  # fault in buf and the mapping
    check = subprocess.run([args.build / "bin" / "vmpack-unpack-time",
                            module, name, "int8", "1"], check=True,
                           capture_output=True, text=True)

    def timed(fn):
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return times

    def halves():
        mid = seg.size // 2
        threads = [
            threading.Thread(target=seg.unpack,
                             kwargs=dict(first=0, count=mid, dtype="int8",
                                         out=buf[:mid])),
            threading.Thread(target=seg.unpack,
                             kwargs=dict(first=mid, count=seg.size - mid,
                                         dtype="int8", out=buf[mid:]))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    results = {"c": [], "p": [], "f": [], "t": []}
    for _ in range(args.rounds):
        line = subprocess.run([args.build / "bin" / "vmpack-unpack-time",
                               module, name, "int8", str(args.runs)],
                              check=True, capture_output=True,
                              text=True).stdout
        # "... best 0.0123 s (...), median 0.0130 s ..."
        words = line.split()
        results["c"].append(float(words[words.index("best") + 1]))
        results["c"].append(float(words[words.index("median") + 1]))
        results["p"] += timed(lambda: seg.unpack(dtype="int8", out=buf))
        results["f"] += timed(lambda: m.get_tensor(name))
        results["t"] += timed(halves)
    # The threads wrote the same bytes as one call.
    whole = seg.unpack(dtype="int8")
    assert np.array_equal(whole, buf)
    m.close()

    load = os.getloadavg()[0]
    print(f"{module.name}, segment {name}: "
          f"{seg.mlir_type}, {seg.nbytes / 2**20:.0f} MiB "
          f"stored, {out_bytes / 2**20:.0f} MiB of int8 out; "
          f"{os.cpu_count()} cores, load average {load:.1f}")
    print()
    print("| path | best (s) | median (s) | GB/s out (median) | median / C |")
    print("|---|---:|---:|---:|---:|")
    c_median = statistics.median(results["c"])
    labels = {"c": "C: vmpack_segment_unpack, reused buffer (UnpackTime.c)",
              "p": "Python: seg.unpack(dtype='int8', out=buf)",
              "f": "Python: m.get_tensor(name), new array each call",
              "t": "Python: two threads, half each, out=buf"}
    for key, label in labels.items():
        t = results[key]
        med = statistics.median(t)
        print(f"| {label} | {min(t):.4f} | {med:.4f} | "
              f"{out_bytes / med / 1e9:.2f} | {med / c_median:.2f} |")


if __name__ == "__main__":
    main()
