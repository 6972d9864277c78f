#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs a command and reports its peak anonymous memory.

`/usr/bin/time`'s maximum resident set counts file-backed pages too: a
tool that maps a 30 GB input shows up to 30 GB "resident" although those
pages belong to the page cache and cost no memory of the process's own.
This script samples RssAnon (anonymous pages: heap, stacks, private
copies) and VmRSS from /proc/PID/status every few milliseconds while the
command runs, and reports the peaks with the wall time, the kernel's
maximum RSS (ru_maxrss, what /usr/bin/time prints) and the peak address
space (VmPeak, what `ulimit -v` bounds).

  python3 bench/peak_anon.py [--interval-ms 2] [--limit-as BYTES]
      [--max-anon-mib N] [--json] -- COMMAND ARGS...

--limit-as sets RLIMIT_AS (what `ulimit -v` sets) for the command only.
--max-anon-mib makes the script fail (exit 3) when the sampled peak
RssAnon exceeds N MiB. Otherwise it exits with the command's status.
Sampling can miss a spike shorter than the interval: a copy of hundreds of
MB lasts far longer than that, so it cannot hide.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def read_status(pid):
    """Returns {field: kB} of the Vm*/Rss* lines, or None once gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = {}
            for line in f:
                key, _, value = line.partition(":")
                if key.startswith(("Vm", "Rss")):
                    fields[key] = int(value.split()[0])
            return fields
    except (FileNotFoundError, ProcessLookupError):
        return None


def run(command, interval_ms=2.0, limit_as=0, env=None):
    """Runs `command`; returns its exit code, wall time and memory peaks."""

    def limit():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    start = time.monotonic()
    proc = subprocess.Popen(command, preexec_fn=limit, env=env)
    peak = {"RssAnon": 0, "VmHWM": 0, "VmPeak": 0}
    samples = 0
    while True:
        fields = read_status(proc.pid)
        if fields and "RssAnon" in fields:
            samples += 1
            for key in peak:
                peak[key] = max(peak[key], fields.get(key, 0))
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(interval_ms / 1000)
    wall = time.monotonic() - start
    return {
        "command": command,
        "exit": os.waitstatus_to_exitcode(status),
        "wall_s": round(wall, 3),
        "max_rss_mib": round(rusage.ru_maxrss / 1024, 1),
        "peak_rss_anon_mib": round(peak["RssAnon"] / 1024, 1),
        "peak_vm_mib": round(peak["VmPeak"] / 1024, 1),
        "samples": samples,
    }


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interval-ms", type=float, default=2.0)
    parser.add_argument("--limit-as", type=int, default=0,
                        help="RLIMIT_AS of the command, in bytes")
    parser.add_argument("--max-anon-mib", type=float, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")

    result = run(command, args.interval_ms, args.limit_as)
    if args.json:
        print(json.dumps(result), file=sys.stderr)
    else:
        print(f"peak_anon: exit {result['exit']}, wall {result['wall_s']:.2f} s, "
              f"max RSS {result['max_rss_mib']} MiB, "
              f"peak RssAnon {result['peak_rss_anon_mib']} MiB, "
              f"peak VmPeak {result['peak_vm_mib']} MiB "
              f"({result['samples']} samples)", file=sys.stderr)
    code = result["exit"]
    if code != 0:
        return code if code > 0 else 128 - code
    if args.max_anon_mib and result["peak_rss_anon_mib"] > args.max_anon_mib:
        print(f"peak_anon: peak RssAnon {result['peak_rss_anon_mib']} MiB "
              f"exceeds {args.max_anon_mib} MiB", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
