# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Damaged modules through Python: every single-byte change and every
truncation of a small real module raises a vmpack exception (at open, or
at the latest from verify()), and reading the segments of a module that
opened but is damaged never crashes the interpreter."""

import random

import numpy as np
import pytest

import vmpack
from conftest import SOURCE_DIR

SMALL = SOURCE_DIR / "fuzz" / "corpus" / "unpack" / "small"


@pytest.fixture(scope="module")
def good():
    if not SMALL.exists():
        pytest.skip(f"{SMALL} is missing (fuzz corpus of the source tree)")
    return SMALL.read_bytes()


def read_everything(m):
    """Lists, reads and unpacks every constant in every way; the values of
    a damaged module are arbitrary, only errors and crashes matter."""
    for s in m.values():
        bytes(s.raw)
        for dtype in (None, "int8", "int16", "int32", "float32"):
            try:
                s.numpy(dtype)
            except vmpack.UnsupportedError:
                pass


def test_the_undamaged_module_verifies(good):
    with vmpack.load(good) as m:
        m.verify()
        read_everything(m)


def test_every_single_byte_change_raises(good):
    at_open = at_verify = 0
    for i in range(len(good)):
        for delta in (1, 0x80, 0xFF):
            bad = bytearray(good)
            bad[i] = (bad[i] + delta) & 0xFF
            # Damaged structure is a format error; an index that fails its
            # CRC a checksum error; a changed format version unsupported.
            try:
                m = vmpack.load(bad)
            except (vmpack.FormatError, vmpack.ChecksumError,
                    vmpack.UnsupportedError) as e:
                assert str(e), i
                at_open += 1
                continue
            with m:
                read_everything(m)
                with pytest.raises(vmpack.ChecksumError) as e:
                    m.verify(threads=1)
                assert str(e.value), i
                at_verify += 1
    # Metadata damage is found by opening, data damage by verification.
    assert at_open > 0 and at_verify > 0


def test_every_truncation_raises(good, tmp_path):
    for n in range(len(good)):
        with pytest.raises(vmpack.FormatError):
            vmpack.load(good[:n])
    path = tmp_path / "cut.vmpk"
    path.write_bytes(good[:len(good) // 2])
    with pytest.raises(vmpack.FormatError, match="cut.vmpk"):
        vmpack.open(path)


def test_random_bytes_raise():
    rng = random.Random(7)
    for n in (1, 22, 64, 100, 1000, 5000):
        with pytest.raises(vmpack.FormatError):
            vmpack.load(bytes(rng.getrandbits(8) for _ in range(n)))


def test_appended_bytes_raise(good):
    with pytest.raises(vmpack.FormatError):
        vmpack.load(good + b"\0")


def test_a_non_contiguous_buffer_is_refused(good):
    strided = np.frombuffer(good * 2, np.uint8)[::2]
    with pytest.raises(vmpack.InvalidArgumentError, match="contiguous"):
        vmpack.load(strided)
