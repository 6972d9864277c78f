# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack.convert is vmpack-convert (the same tools::convertFiles): for the
same inputs and options it writes the same bytes, compared with cmp; the
output is the format its name says; options that do not apply are
refused and nothing is written."""

import filecmp
import subprocess

import numpy as np
import pytest

import vmpack
from conftest import BUILD_DIR, SOURCE_DIR

CORPUS = SOURCE_DIR / "fuzz" / "corpus"
GGUF = CORPUS / "gguf" / "all-types.gguf"
SAFETENSORS = CORPUS / "unpack" / "samples.safetensors"

MAGIC = {".gguf": b"GGUF", ".vmpk": b"PK\3\4", ".irpa": b"IRPA"}


def tool():
    path = BUILD_DIR / "bin" / "vmpack-convert" if BUILD_DIR else None
    if path is None or not path.exists():
        pytest.skip(f"vmpack-convert is not built (VMPACK_BUILD_DIR="
                    f"{BUILD_DIR})")
    return path


def both(tmp_path, source, suffix, flags=(), **options):
    """Converts with Python and with the tool, to the same file name in
    two directories (a .vmpk is named after its file); returns the two
    outputs and Python's result."""
    (tmp_path / "py").mkdir(exist_ok=True)
    (tmp_path / "cli").mkdir(exist_ok=True)
    ours = tmp_path / "py" / ("out" + suffix)
    theirs = tmp_path / "cli" / ("out" + suffix)
    result = vmpack.convert(source, ours, **options)
    subprocess.run([str(tool()), "-q", str(source), "-o", str(theirs),
                    *flags], check=True)
    assert result["files"] == [str(ours)]
    return ours, theirs, result


@pytest.mark.parametrize("source,suffix,flags,options", [
    (GGUF, ".vmpk", [], {}),
    (GGUF, ".gguf", ["--alignment=64"], {"alignment": 64}),
    (GGUF, ".vmpk", ["--alignment=128", "--module-name=m"],
     {"alignment": 128, "module_name": "m"}),
    (SAFETENSORS, ".gguf", [], {}),
    (SAFETENSORS, ".vmpk", ["--encoding=byte"], {"encoding": "byte"}),
    (SAFETENSORS, ".irpa", [], {}),
    (SAFETENSORS, ".safetensors", [], {}),
], ids=["gguf-vmpk", "gguf-gguf-64", "gguf-vmpk-named", "st-gguf",
        "st-vmpk-byte", "st-irpa", "st-st"])
def test_same_bytes_as_vmpack_convert(tmp_path, source, suffix, flags,
                                      options):
    ours, theirs, result = both(tmp_path, source, suffix, flags, **options)
    assert filecmp.cmp(ours, theirs, shallow=False)
    if suffix in MAGIC:
        assert ours.read_bytes()[:4] == MAGIC[suffix]
    assert result["format"] == suffix[1:] and result["tensors"] > 0
    with vmpack.open(ours) as m:
        assert m.container == suffix[1:]


def test_format_and_shards(tmp_path):
    ours, theirs, result = both(tmp_path, SAFETENSORS, ".bin",
                                ["--format=gguf"], format="gguf")
    assert ours.read_bytes() == theirs.read_bytes()
    assert ours.read_bytes()[:4] == b"GGUF" and result["format"] == "gguf"
    (tmp_path / "p").mkdir()
    (tmp_path / "c").mkdir()
    result = vmpack.convert([SAFETENSORS], tmp_path / "p" / "s.gguf",
                            max_shard_size=500)
    subprocess.run([str(tool()), "-q", str(SAFETENSORS), "-o",
                    str(tmp_path / "c" / "s.gguf"), "--max-shard-size=500"],
                   check=True)
    written = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len(written) > 1 and len(result["files"]) == len(written)
    for name in written:
        assert (tmp_path / "p" / name).read_bytes() == \
            (tmp_path / "c" / name).read_bytes()


def test_refusals_write_nothing(tmp_path):
    out = tmp_path / "out.gguf"
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.convert(SAFETENSORS, out, dense=True)  # MLIR outputs only
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.convert(SAFETENSORS, out, format="zip")
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.convert(SAFETENSORS, out, alignment=3)
    with pytest.raises(vmpack.Error) as e:
        vmpack.convert(tmp_path / "absent.safetensors", out)
    assert "absent.safetensors" in str(e.value)
    with pytest.raises(vmpack.Error):
        vmpack.convert(GGUF, tmp_path / "x.safetensors")  # block tensors
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_one_input_or_many(tmp_path):
    """A path or a list: several inputs go into one file, in order."""
    one, _, _ = both(tmp_path, SAFETENSORS, ".gguf")
    many = tmp_path / "many.gguf"
    extra = tmp_path / "extra.gguf"
    vmpack.convert(CORPUS / "gguf" / "golden.gguf", extra)
    result = vmpack.convert([one, extra], many)
    assert result["input_files"] == 2
    with vmpack.open(one) as a, vmpack.open(extra) as b, \
            vmpack.open(many) as m:
        assert list(m.keys()) == list(a.keys()) + list(b.keys())


def test_quant_planar_and_rounding(tmp_path):
    """--quant=planar, --quant=ggml and --allow-rounding: the same bytes
    and the same rounding report as the tool."""
    ours, theirs, result = both(tmp_path, GGUF, ".vmpk", ["--quant=planar"],
                                quant="planar")
    assert filecmp.cmp(ours, theirs, shallow=False)
    back = tmp_path / "back.gguf"
    vmpack.convert(ours, back, quant="ggml")
    direct = tmp_path / "direct.gguf"
    vmpack.convert(GGUF, direct)
    assert filecmp.cmp(back, direct, shallow=False)
    q8 = tmp_path / "q8.gguf"
    vmpack.convert(GGUF, q8, quant="q8_0", allow_rounding=True)
    cli = subprocess.run([str(tool()), str(GGUF), "-o", str(tmp_path / "c8.gguf"),
                          "--quant=q8_0", "--allow-rounding"], check=True,
                         capture_output=True, text=True)
    assert filecmp.cmp(q8, tmp_path / "c8.gguf", shallow=False)
    result = vmpack.convert(GGUF, q8, quant="q8_0", allow_rounding=True)
    assert result["warnings"] and all(
        " -> Q8_0 rounded " in w for w in result["warnings"])
    assert [f"vmpack-convert: warning: {w}" for w in result["warnings"]] == \
        cli.stderr.splitlines()
    with pytest.raises(vmpack.Error) as e:
        vmpack.convert(GGUF, tmp_path / "x.gguf", quant="q4_0")
    assert "--allow-rounding" in str(e.value)
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.convert(GGUF, tmp_path / "x.gguf", allow_rounding=True)
    assert not (tmp_path / "x.gguf").exists()


def test_convert_threads_decode_dequantize_the_same(tmp_path):
    """threads= (vmpack-convert --threads): the threads that decode
    dequantize's blocks, 0 (all cores) to 1024, the same bytes for any
    number; each chunk the writer asks for (2^16 f32 values) is decoded
    by several threads (at least 2^14 elements each). Out of range, or
    without dequantize, it is refused and nothing is written."""
    rng = np.random.default_rng(7)
    codes = rng.integers(-128, 128, size=(512, 2048), dtype=np.int8)
    scales = (rng.random((512, 64)) + 0.5).astype(np.float16)
    source = tmp_path / "q8.gguf"
    vmpack.save_file({"w": vmpack.PlanarWeight("Q8_0", q=codes, d=scales)},
                     source)
    outputs = {}
    for threads in (None, 1, 0, 4, 1024):
        out = tmp_path / ("t%s.safetensors" % threads)
        vmpack.convert(source, out, dequantize="f32", threads=threads)
        outputs[threads] = out.read_bytes()
    assert len(set(outputs.values())) == 1
    with vmpack.open(tmp_path / "tNone.safetensors") as m:
        values = m["w"].numpy()
    expected = codes.astype(np.float32) * np.repeat(
        scales.astype(np.float32), 32, axis=1)
    assert np.array_equal(values, expected)
    before = sorted(p.name for p in tmp_path.iterdir())
    for bad in (-1, 1025):
        with pytest.raises(vmpack.InvalidArgumentError,
                           match="threads=%d is not from 0" % bad):
            vmpack.convert(source, tmp_path / "x.safetensors",
                           dequantize="f16", threads=bad)
    with pytest.raises(vmpack.InvalidArgumentError,
                       match="without --dequantize"):
        vmpack.convert(source, tmp_path / "x.safetensors", threads=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
