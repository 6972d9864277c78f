# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""IREE parameter archives (.irpa) open like modules: untyped entries as
bytes (zero-copy), splats as their pattern repeated. The archives are
written by IREE's own iree-create-parameters and their bytes checked
against IREE's iree-dump-parameters (../shared/iree-tools)."""

import re
import subprocess

import numpy as np
import pytest

import vmpack
from conftest import SOURCE_DIR

TOOLS = SOURCE_DIR.parent / "shared" / "iree-tools"


def iree(name):
    path = TOOLS / name
    if not path.exists():
        pytest.skip(f"IREE's tools are not at {TOOLS} (the repository's "
                    "parent directory holds shared/ in this project's CI)")
    return path


@pytest.fixture(scope="module")
def irpa(tmp_path_factory):
    d = tmp_path_factory.mktemp("irpa")
    path = d / "params.irpa"
    subprocess.run([iree("iree-create-parameters"), "--data=w=4x8xi8=7",
                    "--data=b=16xf32", "--data=h=6xi8=5",
                    "--splat=s=8xi16=3", f"--output={path}"], check=True,
                   stdout=subprocess.DEVNULL)
    listing = subprocess.run(
        [iree("iree-dump-parameters"), f"--parameters=x={path}",
         "--parameter_mode=preload"] +
        [f"--extract=x::{k}={d / k}.bin" for k in ("w", "b", "h")],
        check=True, capture_output=True, text=True).stdout
    # "   384 |   416 |   32 | `w`" (splats: "- | - | 16 | `s`")
    entries = {m.group(4): (m.group(1), int(m.group(3)))
               for m in re.finditer(r"^\s*(\S+) \|\s*(\S+) \|\s*(\d+) \| `(.*)`",
                                    listing, re.M)}
    extracted = {k: (d / f"{k}.bin").read_bytes() for k in ("w", "b", "h")}
    return path, entries, extracted


def test_entries_as_iree_reads_them(irpa):
    path, entries, extracted = irpa
    with vmpack.open(path) as m:
        assert m.container == "irpa" and m.metadata == {}
        m.verify()
        assert sorted(m.keys()) == sorted(entries)
        for name, (start, length) in entries.items():
            s = m[name]
            assert s.nbytes == length and s.shape == (length,)
            assert s.mlir_type is None and s.element_type is None
            assert s.checksum is None and s.encoding == "none"
            assert s.scalar_kind is None and s.scalar_bits is None
            assert s.source_kind is None and s.source_key is None
            if name in extracted:
                assert s.kind == "untyped" and s.offset == int(start)
                assert bytes(s.raw) == extracted[name]
                a = s.numpy()
                assert a.dtype == np.uint8 and not a.flags.writeable
                assert np.shares_memory(a, np.frombuffer(s.raw, np.uint8))
            else:
                assert s.kind == "splat" and start == "-"
        assert m.get_tensor("w").tolist() == [7] * 32
        assert m.get_tensor("h", dtype="int16").tolist() == [0x0505] * 3
        assert m.get_tensor("b", dtype=np.float32).tolist() == [0.0] * 16
        with pytest.raises(vmpack.InvalidArgumentError, match="whole number"):
            m.get_tensor("h", dtype="int32")


def test_splats_expand_their_pattern(irpa):
    path, entries, _ = irpa
    with vmpack.open(path) as m:
        s = m["s"]
        assert s.splat_pattern and s.nbytes % len(s.splat_pattern) == 0
        expanded = s.splat_pattern * (s.nbytes // len(s.splat_pattern))
        assert bytes(s.raw) == expanded and len(expanded) == entries["s"][1]
        assert s.numpy("int16").tolist() == [3] * 8


def test_what_an_irpa_does_not_have(irpa):
    path, _, _ = irpa
    with vmpack.open(path) as m:
        with pytest.raises(vmpack.UnsupportedError):
            m.program
        with pytest.raises(vmpack.UnsupportedError):
            m["w"].unpack(dtype="int8")
        # What the format has no value for is None.
        assert m.name is None and m.producer is None
        assert m.format_version == 0


def test_damaged_archives_raise_or_read_safely(irpa):
    """An .irpa has no checksums, so damage to data bytes goes unseen; any
    damage to its structure raises, and nothing crashes."""
    path, _, _ = irpa
    good = path.read_bytes()
    end = max(s.offset + s.nbytes for s in vmpack.open(path).values())
    for n in range(end):
        with pytest.raises(vmpack.FormatError):
            vmpack.load(good[:n])
    for i in range(end):
        bad = bytearray(good)
        bad[i] ^= 0xA5
        try:
            m = vmpack.load(bad)
        except vmpack.FormatError:
            continue
        with m:
            for s in m.values():
                if s.kind == "splat" and s.nbytes > 1 << 20:
                    continue  # expanding would only cost time and memory
                try:
                    s.numpy()
                except (MemoryError, vmpack.Error):
                    pass  # e.g. a splat too long to expand
            try:
                m.verify()
            except vmpack.FormatError:
                pass
