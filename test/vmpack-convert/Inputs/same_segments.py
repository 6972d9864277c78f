# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""same_segments.py A.vmpk B.vmpk: fails unless the two modules hold the
same segments (name, type, encoding, offset, length, alignment, CRC-32),
as vmpack-dump --json shows them; prints how many."""
import json
import subprocess
import sys

KEYS = ("name", "type", "element_type", "encoding", "offset", "length",
        "alignment", "checksum")


def segments(path):
    out = subprocess.run(["vmpack-dump", "--json", path], check=True,
                         capture_output=True, text=True).stdout
    return [{k: t[k] for k in KEYS} for t in json.loads(out)["tensors"]]


a, b = segments(sys.argv[1]), segments(sys.argv[2])
if a != b:
    for x, y in zip(a, b):
        if x != y:
            print(f"differ:\n  {x}\n  {y}", file=sys.stderr)
    sys.exit(f"{sys.argv[1]}: {len(a)} segments, {sys.argv[2]}: {len(b)}")
print(f"{len(a)} segments alike")
