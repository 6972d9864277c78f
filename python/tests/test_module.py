# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The module API: facts, the mapping of names to segments, aliases,
errors, zero-copy views and what closing does while views exist. Most
tests read the real modules of fuzz/corpus (no MLIR needed)."""

import gc
import os
import pathlib
import shutil

import numpy as np
import pytest

import vmpack
from conftest import SOURCE_DIR, compile_text, needs_compiler
from reference import FLOAT_FORMATS, decode_float, patterns, same_floats, widen

CORPUS = SOURCE_DIR / "fuzz" / "corpus" / "unpack"
MODULES = ["sample", "small", "tiny-llama", "types-packed", "types-word",
           "types-byte", "types-align1", "wide-packed"]


def corpus(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is missing (fuzz corpus of the source tree)")
    return path


def scalar_of(segment):
    t = segment.element_type
    return t[8:-1] if t.startswith("complex<") else t


@pytest.mark.parametrize("name", MODULES)
def test_corpus_modules_unpack_as_the_reference_reads_them(name):
    """Every constant of the checked-in modules: the C runtime's unpack
    equals the numpy reference reading of the stored bytes."""
    with vmpack.open(corpus(name)) as m:
        m.verify()
        assert len(m) > 0
        for s in m.values():
            scalar = scalar_of(s)
            per = 2 if s.is_complex else 1
            if s.scalar_bits > 64 and s.scalar_bits % 8:
                continue  # no 64-bit pattern; unpack refuses (tested below)
            values = patterns(s.raw, s.encoding, s.scalar_bits, s.size * per)
            if scalar in FLOAT_FORMATS:
                got = s.unpack(dtype="float32")
                assert same_floats(got, decode_float(values, scalar)), s.name
                continue
            if scalar in ("f64", "f80", "f128"):
                continue
            signed = not scalar.startswith("ui")
            expected = widen(values, s.scalar_bits, signed)
            for dtype, bits in (("int8", 8), ("int16", 16), ("int32", 32)):
                if s.scalar_bits < bits or (s.scalar_bits == bits and signed):
                    assert s.unpack(dtype=dtype).tolist() == expected, s.name
                else:
                    with pytest.raises(vmpack.UnsupportedError):
                        s.unpack(dtype=dtype)
            if s.natural_dtype == np.bool_:
                # i1: numpy.bool_ by default, the integers on request.
                assert s.numpy().ravel().tolist() == \
                    [v != 0 for v in expected], s.name
                assert s.numpy(dtype="int8").ravel().tolist() == expected
            elif s.natural_dtype is not None:
                assert s.numpy().ravel().tolist() == expected, s.name


def test_facts_keys_and_aliases():
    with vmpack.open(corpus("small")) as m:
        assert m.format_version == 2
        assert m.name == "small" and m.container == "vmpk"
        # The sample module has no key/value metadata.
        assert m.metadata == {} and m.metadata_types == {}
        keys = list(m.keys())
        assert keys == list(m) and len(keys) == len(m)
        stored = [s for s in m.values() if not s.is_alias]
        aliases = [s for s in m.values() if s.is_alias]
        assert len(aliases) == 2
        # Stored segments first, in file order, then the aliases.
        assert keys == [s.name for s in stored] + [s.name for s in aliases]
        assert [s.offset for s in stored] == sorted(s.offset for s in stored)
        for a in aliases:
            target = m[a.alias_of]
            assert not target.is_alias and a.alias_of in m
            assert (a.offset, a.nbytes, a.checksum) == \
                (target.offset, target.nbytes, target.checksum)
            # The same bytes, not a copy of them.
            assert np.shares_memory(np.frombuffer(a.raw, np.uint8),
                                    np.frombuffer(target.raw, np.uint8))
            assert a.mlir_type != target.mlir_type or a.name != target.name
        for s in m.values():
            assert m[s.name] is s and s.name in m
            assert repr(s).startswith("<vmpack.Segment")


def test_program_is_mlir_bytecode():
    with vmpack.open(corpus("types-packed")) as m:
        assert bytes(m.program[:4]) == b"ML\xefR"
        assert m.program.readonly


def test_missing_names_raise_not_found_which_is_a_key_error():
    with vmpack.open(corpus("small")) as m:
        with pytest.raises(vmpack.NotFoundError, match="no segment named"):
            m["no such constant"]
        with pytest.raises(KeyError):
            m.get_tensor("no such constant")
        assert "no such constant" not in m


def test_one_exception_class_per_status():
    classes = vmpack._vmpack.STATUS_CLASSES
    assert sorted(classes) == list(range(1, 11))
    names = set()
    for status, cls in classes.items():
        assert issubclass(cls, vmpack.Error)
        assert cls.status == status
        assert cls.status_name == vmpack._vmpack.status_name(status)
        assert getattr(vmpack, cls.__name__) is cls
        names.add(cls.__name__)
    assert len(names) == 10
    assert issubclass(vmpack.IOError, OSError)
    assert issubclass(vmpack.NotFoundError, KeyError)
    assert issubclass(vmpack.OutOfRangeError, IndexError)
    assert issubclass(vmpack.CompileError, vmpack.Error)


def test_open_errors(tmp_path):
    with pytest.raises(vmpack.IOError) as e:
        vmpack.open(tmp_path / "absent.vmpk")
    assert "absent.vmpk" in str(e.value) and e.value.status == 2
    with pytest.raises(vmpack.IOError):
        vmpack.open(tmp_path)  # a directory
    for name in ("empty", "plain.zip", "eocd-only"):
        with pytest.raises(vmpack.FormatError) as e:
            vmpack.open(corpus(name))
        assert str(e.value)


def test_checksum_error_names_the_damaged_segment(tmp_path):
    data = bytearray(corpus("types-packed").read_bytes())
    with vmpack.load(data) as m:
        s = m["i4"]
        data[s.offset] ^= 0x10
    path = tmp_path / "damaged.vmpk"
    path.write_bytes(data)
    with vmpack.open(path) as m:  # structure intact: opens
        with pytest.raises(vmpack.ChecksumError, match="i4") as e:
            m.verify()
        assert isinstance(e.value, ValueError) and e.value.status == 4
        assert m["i4"].numpy().shape == (7,)


def test_load_equals_open():
    path = corpus("types-word")
    with vmpack.open(path) as a, vmpack.load(path.read_bytes()) as b:
        assert list(a.keys()) == list(b.keys())
        for name in a.keys():
            assert bytes(a[name].raw) == bytes(b[name].raw)
        b.verify()
    with pytest.raises(vmpack.FormatError):
        vmpack.load(b"")


def test_zero_copy_views_are_read_only():
    with vmpack.open(corpus("types-packed")) as m:
        a = m.get_tensor("f32")
        assert np.shares_memory(a, np.frombuffer(m["f32"].raw, np.uint8))
        with pytest.raises(ValueError):
            a[0] = 1
        with pytest.raises(TypeError):
            m["f32"].raw[0] = 1
        # dtype equal to the stored one: the same view.
        assert np.shares_memory(m["f32"].numpy("float32"), a)
        # Any other: a fresh array.
        b = m["f16"].numpy("float32")
        assert b.flags.writeable and b.dtype == np.float32


def mapped(path):
    maps = pathlib.Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("needs /proc/self/maps (Linux) to see the mapping")
    return str(pathlib.Path(path).resolve()) in maps.read_text()


def test_closing_while_views_exist(tmp_path, monkeypatch):
    """close() drops the module; the file stays mapped until the last view
    is gone, and the views keep their values."""
    # Mapped, not read into memory (the default on network file systems),
    # so that /proc/self/maps shows the file.
    monkeypatch.setenv("VMPACK_LOAD_MODE", "mmap")
    path = tmp_path / "m.vmpk"
    shutil.copy(corpus("types-packed"), path)
    m = vmpack.open(path)
    s = m["f32"]
    view = m.get_tensor("f32")
    raw = m["i4"].raw
    unpacked = m.get_tensor("i4")  # a copy: holds nothing
    expected = view.copy()
    raw_bytes = bytes(raw)
    assert m._raw._handle_use_count() == 3  # the module, view, raw
    m.close()
    assert m.closed and "closed" in repr(m)
    assert mapped(path)
    np.testing.assert_array_equal(view, expected)
    assert bytes(raw) == raw_bytes
    for call in (lambda: m["f32"], lambda: m.keys(), lambda: s.numpy(),
                 lambda: s.raw, lambda: m.verify(), lambda: m.name):
        with pytest.raises(ValueError, match="closed"):
            call()
    m.close()  # twice is fine
    del view, s
    gc.collect()
    assert mapped(path)  # `raw` still holds it
    raw.release()
    del raw
    gc.collect()
    assert not mapped(path)
    assert unpacked.tolist() == [1, -2, 3, -4, 5, 6, 7]


def test_the_module_outlives_its_python_object(tmp_path, monkeypatch):
    monkeypatch.setenv("VMPACK_LOAD_MODE", "mmap")
    path = tmp_path / "m.vmpk"
    shutil.copy(corpus("types-packed"), path)
    view = vmpack.open(path).get_tensor("f32")
    gc.collect()
    assert mapped(path)
    assert view.tolist() == [1.0, 2.0]
    del view
    gc.collect()
    assert not mapped(path)


@needs_compiler
def test_compiled_aliases(tmp_path):
    """Two globals with the same dense<...> attribute: one segment, one
    alias with its own name and type (format version 2)."""
    text = """module @tied {
  ml_program.global private @embed(dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi4>) : tensor<3x2xi4>
  ml_program.global private @output(dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi4>) : tensor<3x2xi4>
}
"""
    with vmpack.open(compile_text(tmp_path, text)) as m:
        assert list(m.keys()) == ["embed", "output"]
        out = m["output"]
        assert out.is_alias and out.alias_of == "embed"
        assert not m["embed"].is_alias and m["embed"].alias_of is None
        assert sum(s.is_alias for s in m.values()) == 1
        np.testing.assert_array_equal(m.get_tensor("output"),
                                      [[1, -2], [3, 4], [-5, 6]])
        np.testing.assert_array_equal(m.get_tensor("output"),
                                      m.get_tensor("embed"))


def test_unpack_into_a_buffer():
    with vmpack.open(corpus("types-packed")) as m:
        s = m["i4"]
        out = np.full(10, 99, np.int8)
        assert s.unpack(dtype="int8", out=out) is out
        assert out.tolist() == [1, -2, 3, -4, 5, 6, 7, 99, 99, 99]
        assert s.unpack(2, 3, "int16").tolist() == [3, -4, 5]
        with pytest.raises(vmpack.BufferTooSmallError, match="need"):
            s.unpack(dtype="int8", out=np.empty(6, np.int8))
        with pytest.raises(vmpack.InvalidArgumentError, match="dtype"):
            s.unpack(dtype="int8", out=np.empty(7, np.int16))
        with pytest.raises(vmpack.InvalidArgumentError, match="contiguous"):
            s.unpack(dtype="int8", out=np.empty(14, np.int8)[::2])
        with pytest.raises(vmpack.UnsupportedError, match="float64"):
            s.unpack(dtype="float64")


def test_the_example_script():
    import subprocess
    import sys
    script = SOURCE_DIR / "examples" / "python" / "vmpack_example.py"
    out = subprocess.run([sys.executable, script, corpus("tiny-llama"),
                          "layers.0.attention.wq"], check=True,
                         capture_output=True, text=True).stdout
    assert "all checksums OK" in out
    assert "as numpy: int8 (64, 64)" in out
    assert "float16 (64,), a view of the file" in out


def test_numpy_conversion_of_a_segment():
    with vmpack.open(corpus("types-packed")) as m:
        a = np.asarray(m["f32"])
        assert a.tolist() == [1.0, 2.0]
        assert np.shares_memory(a, np.frombuffer(m["f32"].raw, np.uint8))
        assert np.asarray(m["i4"], dtype=np.int32).tolist() == \
            [1, -2, 3, -4, 5, 6, 7]
        assert np.array(m["f32"]).flags.writeable  # np.array copies
