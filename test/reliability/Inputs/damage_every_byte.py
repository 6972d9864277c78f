#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Damages a module in every way a single byte can, and every truncation,
and requires a command to reject each damaged copy cleanly.

usage: damage_every_byte.py [--stride N] [--allow-ok] MODULE SCRATCH_DIR --
           COMMAND... {}

For every offset (its lowest bit flipped), and for every length from 0 to
size - 1, writes the damaged copy into SCRATCH_DIR and runs COMMAND with
`{}` replaced by its path; with --stride N, only every Nth offset and
length (for slow-starting tools). Each run
must exit with status 1 (not 0: a silent pass; not a signal: a crash; not
a timeout: a hang) and print an error message starting with the tool's
"error:" prefix to stderr. With --allow-ok (formats without checksums,
where damaged data cannot be detected), exit status 0 is accepted too: the
promise is then only no crash, no hang and a message on every rejection.
Runs in parallel; prints a one-line summary.
"""

import concurrent.futures
import os
import subprocess
import sys

# Generous: a run takes milliseconds; only a hang comes near this.
HANG_SECONDS = 120


def run(command, path, allow_ok=False):
    argv = [path if a == "{}" else a for a in command]
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        return "hung"
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0:
        return "killed by signal %d: %s" % (-p.returncode, err)
    if allow_ok and p.returncode == 0:
        return "ok"
    if p.returncode != 1:
        return "exit status %d: %s" % (p.returncode, err)
    if "error: " not in err:
        return "no error message: %r" % err
    return None


def main():
    argv = sys.argv[1:]
    stride = 1
    allow_ok = False
    while argv[:1] in (["--stride"], ["--allow-ok"]):
        if argv[0] == "--stride":
            stride, argv = int(argv[1]), argv[2:]
        else:
            allow_ok, argv = True, argv[1:]
    if len(argv) < 4 or argv[2] != "--" or "{}" not in argv[3:]:
        sys.exit(__doc__)
    module, scratch, command = argv[0], argv[1], argv[3:]
    with open(module, "rb") as f:
        good = f.read()
    os.makedirs(scratch, exist_ok=True)

    cases = []
    # One change per byte keeps this fast; the unit tests try several.
    for offset in range(0, len(good), stride):
        bad = bytearray(good)
        bad[offset] ^= 1
        cases.append(("byte %d flipped" % offset, bytes(bad)))
    for length in range(0, len(good), stride):
        cases.append(("truncated to %d" % length, good[:length]))

    def check(i):
        name, data = cases[i]
        path = os.path.join(scratch, "case%d.vmpk" % i)
        with open(path, "wb") as f:
            f.write(data)
        problem = run(command, path, allow_ok)
        os.unlink(path)
        return name, problem

    workers = max(2, os.cpu_count() or 2)
    failures = []
    accepted = 0
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for name, problem in pool.map(check, range(len(cases))):
            if problem == "ok":
                accepted += 1
            elif problem:
                failures.append("%s: %s" % (name, problem))
    for failure in failures[:20]:
        print("FAIL: " + failure)
    rejected = len(cases) - len(failures) - accepted
    if allow_ok:
        print("%d damaged copies of %d bytes: %d rejected cleanly, %d "
              "accepted, %d neither" % (len(cases), len(good), rejected,
                                        accepted, len(failures)))
    else:
        print("%d damaged copies of %d bytes: %d rejected cleanly, %d not"
              % (len(cases), len(good), rejected, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
