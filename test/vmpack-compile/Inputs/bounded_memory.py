# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compiles a model in bounded memory: the CI-sized check that vmpack-compile
streams its input through the page cache (docs/performance.md, "A model larger than
memory").

  bounded_memory.py SRC_ROOT TINY.mlirbc MODEL.mlirbc OUT.vmpk SLACK_MIB

The address-space limit (RLIMIT_AS, what `ulimit -v` sets) is derived, not
guessed:
- the tool's fixed need: the smallest limit under which it compiles TINY
  (found by bisection to 4 MiB; the libraries, thread stacks, heap);
- plus the input's mapping, MODEL's size (the output is written with
  pwrite, never mapped);
- plus SLACK_MIB.
Peak RssAnon (sampled by bench/peak_anon.py) must also stay within
SLACK_MIB. The caller sizes MODEL larger than the slack, so a compile that
copied its input into anonymous memory would break both bounds. A control
run whose limit leaves out the input's mapping must fail, showing that the
limit is in force.

Every compile runs with --threads=2 and MALLOC_ARENA_MAX=1, so the address
space does not depend on the machine's cores or on when glibc reserves a
64 MiB arena for a thread (address space, not memory, but ulimit -v counts
it).
"""
import os
import sys

src_root, tiny, model, out, slack_mib = sys.argv[1:6]
sys.path.insert(0, os.path.join(src_root, "bench"))
import peak_anon  # noqa: E402

MIB = 1 << 20
COMPILE = ["vmpack-compile", "--threads=2"]
ENV = dict(os.environ, MALLOC_ARENA_MAX="1")
slack = int(slack_mib) * MIB
size = os.path.getsize(model)
if size <= slack:
    sys.exit(f"the model ({size} bytes) must be larger than the slack "
             f"({slack} bytes), or a copy of it could hide in the slack")


def compile_under(source, output, limit):
    return peak_anon.run(COMPILE + [source, "-o", output], limit_as=limit,
                         env=ENV)


low, high = 0, 16 << 30
if compile_under(tiny, out[:-len(".vmpk")] + ".tiny.vmpk", high)["exit"] != 0:
    sys.exit(f"compiling {tiny} failed even with {high} bytes")
while high - low > 4 * MIB:
    middle = (low + high) // 2
    if compile_under(tiny, out[:-len(".vmpk")] + ".tiny.vmpk", middle)["exit"] == 0:
        high = middle
    else:
        low = middle
fixed = high
limit = fixed + size + slack

control = compile_under(model, out + ".control", fixed + slack)
print(f"control without room for the input's mapping: "
      f"{'failed' if control['exit'] != 0 else 'succeeded'}")

run = compile_under(model, out, limit)
print(f"fixed {fixed / MIB:.1f} MiB, model {size / MIB:.1f} MiB, "
      f"limit {limit / MIB:.1f} MiB: {run}", file=sys.stderr)
print(f"compile under the limit: exit {run['exit']}")
anon = run["peak_rss_anon_mib"]
print(f"peak RssAnon within {slack_mib} MiB: {anon <= int(slack_mib)}")
