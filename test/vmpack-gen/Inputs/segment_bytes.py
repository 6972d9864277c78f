# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints how many stored segment bytes the first module has more than the
second, from vmpack-dump --json (aliases store no bytes)."""
import json
import subprocess
import sys


def stored_bytes(path):
    out = subprocess.run(["vmpack-dump", "--json", path], check=True,
                         capture_output=True, text=True).stdout
    return sum(s["length"] for s in json.loads(out)["tensors"])


print(stored_bytes(sys.argv[1]) - stored_bytes(sys.argv[2]))
