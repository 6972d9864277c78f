# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sharded sets through vmpack.open: one module from the first file.

The sets are written here by writers that use only json, struct and numpy:
a safetensors set as Hugging Face names it (NAME-0000K-of-0000N.safetensors
plus NAME.safetensors.index.json with "weight_map"), and a GGUF split as
llama.cpp's gguf-split writes it (split.no uint16, split.count uint16,
split.tensors.count int32 in every file; the first file has the other
key/value pairs). Every tensor read through vmpack is compared with the
numpy array it was written from; naming another file of a set, or giving
a split's bytes from memory, raises vmpack.UnsupportedError naming the
first file."""

import json

import numpy as np
import pytest

import vmpack
from test_foreign import (GGML_TYPES, GGUF_INT32, GGUF_STRING, GGUF_UINT16,
                          GGUF_UINT32, OPEN_WAYS, sample_arrays, write_gguf,
                          write_safetensors)


def shard_names(stem, count, ext):
    return [f"{stem}-{k:05d}-of-{count:05d}{ext}" for k in range(1, count + 1)]


def safetensors_set(tmp_path, count=3):
    """The sample arrays over `count` shards plus the index; returns
    (index path, shard paths, arrays)."""
    arrays = sample_arrays()
    names = list(arrays)
    files = shard_names("m", count, ".safetensors")
    weight_map, total = {}, 0
    for k, file in enumerate(files):
        part = {n: arrays[n] for n in names[k::count]}
        write_safetensors(tmp_path / file, part, {"format": "pt"})
        for n, a in part.items():
            weight_map[n] = file
            total += a.nbytes
    index = tmp_path / "m.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": total},
                                 "weight_map": weight_map}, indent=2))
    return index, [tmp_path / f for f in files], arrays


def gguf_set(tmp_path, count=3):
    """Plain-typed arrays over a `count`-file GGUF split."""
    rng = np.random.default_rng(5)
    arrays = {}
    for k, dtype in enumerate(GGML_TYPES):
        arrays[f"g{k}.{dtype.name}"] = (rng.standard_normal((3, 4)) * 50) \
            .astype(dtype)
    names = list(arrays)
    files = shard_names("m", count, ".gguf")
    for k, file in enumerate(files):
        split = [("split.no", GGUF_UINT16, k),
                 ("split.count", GGUF_UINT16, count),
                 ("split.tensors.count", GGUF_INT32, len(names))]
        kvs = [("general.architecture", GGUF_STRING, "llama"),
               ("general.alignment", GGUF_UINT32, 32)] if k == 0 else []
        tensors = {n: (GGML_TYPES[arrays[n].dtype], arrays[n].shape,
                       arrays[n].astype(arrays[n].dtype.newbyteorder("<"))
                       .tobytes())
                   for n in names[k::count]}
        write_gguf(tmp_path / file, tensors, kvs + split)
    return [tmp_path / f for f in files], arrays


def expect_arrays(m, arrays):
    assert sorted(m.keys()) == sorted(arrays)
    for name, want in arrays.items():
        got = m.get_tensor(name)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("options", OPEN_WAYS, ids=str)
def test_safetensors_set(tmp_path, options):
    index, shards, arrays = safetensors_set(tmp_path)
    for start in (index, shards[0]):
        with vmpack.open(start, **options) as m:
            assert m.container == "safetensors"
            assert m.metadata == {"format": "pt"}
            expect_arrays(m, arrays)
            m.verify()
            # Each tensor's bytes are in the shard the index names, at
            # its offset there.
            mapping = json.loads(index.read_text())["weight_map"]
            for name in arrays:
                data = (tmp_path / mapping[name]).read_bytes()
                s = m[name]
                assert bytes(s.raw) == data[s.offset:s.offset + len(s.raw)]


@pytest.mark.parametrize("options", OPEN_WAYS, ids=str)
def test_gguf_split(tmp_path, options):
    files, arrays = gguf_set(tmp_path)
    with vmpack.open(files[0], **options) as m:
        assert m.container == "gguf"
        # The split keys are the set's bookkeeping, not its metadata.
        assert m.metadata == {"general.architecture": "llama",
                              "general.alignment": "32"}
        expect_arrays(m, arrays)


def test_other_files_of_a_set_are_refused(tmp_path):
    _, shards, _ = safetensors_set(tmp_path)
    files, _ = gguf_set(tmp_path)
    for group in (shards, files):
        for later in group[1:]:
            with pytest.raises(vmpack.UnsupportedError,
                               match="open the set by its first file"):
                vmpack.open(later)
    # A split's bytes say what they are: refused from memory too.
    with pytest.raises(vmpack.UnsupportedError, match="path of its first"):
        vmpack.load(files[0].read_bytes())


def test_a_missing_shard_is_named(tmp_path):
    index, shards, _ = safetensors_set(tmp_path)
    shards[1].unlink()
    with pytest.raises(vmpack.FormatError, match=shards[1].name):
        vmpack.open(index)
    files, _ = gguf_set(tmp_path)
    files[2].unlink()
    with pytest.raises(vmpack.FormatError, match=files[2].name):
        vmpack.open(files[0])
