# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Edits a safetensors file for the hostile planar-set tests of quant.test
and test/vmpack-dump/planar.test,
with the standard library only (independent of vmpack's reader and writer).

  planar_edit.py drop IN OUT NAME         remove tensor NAME
  planar_edit.py meta IN OUT KEY VALUE    set __metadata__[KEY] = VALUE
  planar_edit.py unmeta IN OUT KEY        remove __metadata__[KEY]
  planar_edit.py shape IN OUT NAME DIMS   give NAME the shape DIMS (1x2x3),
                                          in its vmpack.type record if any
"""
import json
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    return header, data[8 + n:]


def write(path, header, buf):
    meta = header.pop("__metadata__", None)
    names = sorted(header, key=lambda k: header[k]["data_offsets"][0])
    out, blob = {}, bytearray()
    if meta is not None:
        out["__metadata__"] = meta
    for name in names:
        info = dict(header[name])
        begin, end = info["data_offsets"]
        info["data_offsets"] = [len(blob), len(blob) + end - begin]
        blob += buf[begin:end]
        out[name] = info
    text = json.dumps(out, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + bytes(blob))


def main():
    op, src, dst = sys.argv[1:4]
    header, buf = read(src)
    meta = header.setdefault("__metadata__", {})
    if op == "drop":
        del header[sys.argv[4]]
        meta.pop("vmpack.type." + sys.argv[4], None)
    elif op == "meta":
        meta[sys.argv[4]] = sys.argv[5]
    elif op == "unmeta":
        del meta[sys.argv[4]]
    elif op == "shape":
        name, dims = sys.argv[4], sys.argv[5]
        record = meta.get("vmpack.type." + name)
        if record is None:
            header[name]["shape"] = [int(d) for d in dims.split("x")]
        else:
            element = record[record.rindex("x") + 1:-1]
            meta["vmpack.type." + name] = "tensor<%sx%s>" % (dims, element)
    else:
        sys.exit("unknown operation " + op)
    write(dst, header, buf)


main()
