#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks entries of an IREE parameter archive byte for byte, reading the
file with this script's own minimal parser (not vmpack's): the header, the
entry table, names, and data or splat patterns (docs/irpa.md, section 2).

usage: check_irpa_bytes.py [--iree TOOLS_DIR] FILE KEY=HEX...
Each KEY's bytes (a splat expanded) must be HEX exactly. With --iree, the
bytes of data entries come from IREE's `iree-dump-parameters --extract`
instead (IREE cannot extract splats, and refuses zero-length entries:
those are still read by this script).
"""

import os
import struct
import subprocess
import sys
import tempfile


def entries(data):
    magic, major, minor, header_size = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0x41505249 and (major, minor) == (0, 0), "not .irpa 0.0"
    count = struct.unpack_from("<Q", data, 32)[0]
    table, _ = struct.unpack_from("<QQ", data, 40)
    meta, _ = struct.unpack_from("<QQ", data, 56)
    storage, _ = struct.unpack_from("<QQ", data, 72)
    at = table
    out = {}
    for _ in range(count):
        size, kind = struct.unpack_from("<QI", data, at)
        name_off, name_len = struct.unpack_from("<QQ", data, at + 20)
        name = data[meta + name_off:meta + name_off + name_len].decode()
        if kind == 1:
            length = struct.unpack_from("<Q", data, at + 60)[0]
            plen = data[at + 84]
            pattern = data[at + 68:at + 68 + plen]
            out[name] = pattern * (length // plen)
        elif kind == 2:
            off, length = struct.unpack_from("<QQ", data, at + 60)
            out[name] = data[storage + off:storage + off + length]
        at += (size + 15) // 16 * 16
    return out


def iree_extract(tools, path, key):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "entry.bin")
        subprocess.run([os.path.join(tools, "iree-dump-parameters"),
                        "--parameters=" + path, "--parameter_mode=preload",
                        "--extract=%s=%s" % (key, out)],
                       check=True, stdout=subprocess.DEVNULL)
        return open(out, "rb").read()


def entry_kinds(data):
    count = struct.unpack_from("<Q", data, 32)[0]
    at = struct.unpack_from("<Q", data, 40)[0]
    meta = struct.unpack_from("<Q", data, 56)[0]
    kinds = {}
    for _ in range(count):
        size, kind = struct.unpack_from("<QI", data, at)
        name_off, name_len = struct.unpack_from("<QQ", data, at + 20)
        kinds[data[meta + name_off:meta + name_off + name_len].decode()] = kind
        at += (size + 15) // 16 * 16
    return kinds


def main():
    argv = sys.argv[1:]
    tools = None
    if argv[:1] == ["--iree"]:
        tools, argv = argv[1], argv[2:]
    data = open(argv[0], "rb").read()
    found = entries(data)
    kinds = entry_kinds(data)
    bad = 0
    for spec in argv[1:]:
        key, want = spec.split("=")
        got = found.get(key)
        if tools and kinds.get(key) == 2 and got:
            got = iree_extract(tools, argv[0], key)
        if got is None or got.hex() != want:
            print("%s: expected %s, got %s" % (key, want,
                                               None if got is None else got.hex()))
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
