#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs a command that writes `-o OUT` and checks that a failure lost nothing.

usage: check_compile.py [options] -- COMMAND...

Before running COMMAND, records OUT's bytes (if it exists) and the files of
its directory. Afterwards requires the expected exit (--exit N, default 1;
or --signal NAME: the process died of that signal), OUT unchanged byte for
byte (or still absent), and no new file in the directory (no temporary
`OUT.tmp.<pid>.<n>` left behind). Prints COMMAND's stderr, for FileCheck.
Exits 0 if all holds, 1 with a message otherwise.

Options:
  --exit N            the expected exit status
  --signal NAME       the expected fatal signal (SIGINT, SIGTERM)
  --fsize BYTES       RLIMIT_FSIZE for COMMAND, with SIGXFSZ at its default
                      (the tool must ignore it itself)
  --env K=V           add to COMMAND's environment (repeatable); a value
                      `@PATH-N` stands for PATH's size minus N bytes
  --preload LIB       LD_PRELOAD LIB into COMMAND
  --interrupt NAME --marker PATH
                      wait until PATH exists (the fault shim creates it
                      while a write is in progress), then send signal NAME
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time


def snapshot(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, default=None)
    parser.add_argument("--signal", default=None)
    parser.add_argument("--fsize", type=int, default=None)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--preload", default=None)
    parser.add_argument("--interrupt", default=None)
    parser.add_argument("--marker", default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if "-o" not in command:
        sys.exit("check_compile.py: the command has no -o OUT")
    out = os.path.abspath(command[command.index("-o") + 1])
    directory = os.path.dirname(out)

    before = snapshot(out)
    listing = set(os.listdir(directory)) if os.path.isdir(directory) else set()

    env = dict(os.environ)
    for item in args.env:
        key, _, value = item.partition("=")
        if value.startswith("@"):
            path, _, minus = value[1:].rpartition("-")
            value = str(os.path.getsize(path) - int(minus))
        env[key] = value
    if args.preload:
        env["LD_PRELOAD"] = args.preload
        # A sanitized tool wants its runtime first; the shim comes first.
        env["ASAN_OPTIONS"] = ":".join(
            filter(None, [env.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))

    def limits():
        if args.fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (args.fsize, args.fsize))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        # Python ignores SIGPIPE and leaves SIGINT to its handler; the tool
        # gets the defaults a shell would give it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    if args.marker and os.path.exists(args.marker):
        os.unlink(args.marker)
    proc = subprocess.Popen(command, env=env, preexec_fn=limits,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if args.interrupt:
        # Not a timed check: the shim holds the write until the signal has
        # been handled, however long this takes.
        while not os.path.exists(args.marker):
            if proc.poll() is not None:
                sys.stderr.write(proc.stderr.read().decode(errors="replace"))
                sys.exit("check_compile.py: the command ended before the "
                         "write it was to be interrupted in")
            time.sleep(0.01)
        temps = [f for f in os.listdir(directory) if ".tmp." in f]
        if not temps:
            sys.exit("check_compile.py: no temporary file while writing")
        proc.send_signal(getattr(signal, args.interrupt))
    _, err = proc.communicate()
    sys.stdout.write(err.decode(errors="replace"))
    if args.marker and os.path.exists(args.marker):
        os.unlink(args.marker)

    problems = []
    if args.signal:
        want = -getattr(signal, args.signal)
        if proc.returncode != want:
            problems.append("exit status %d, expected death by %s"
                            % (proc.returncode, args.signal))
    else:
        want = 1 if args.exit is None else args.exit
        if proc.returncode != want:
            problems.append("exit status %d, expected %d"
                            % (proc.returncode, want))
    after = snapshot(out)
    if after != before:
        problems.append("%s was %s" % (
            out, "created" if before is None else
            "removed" if after is None else "changed"))
    if os.path.isdir(directory):
        new = sorted(set(os.listdir(directory)) - listing)
        if new:
            problems.append("left behind: " + ", ".join(new))
    for problem in problems:
        print("check_compile.py: FAIL: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
