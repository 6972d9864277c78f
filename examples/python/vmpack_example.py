#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads a weight file with the Python package: a .vmpk module archive, an
.irpa, a safetensors or a GGUF file. Verifies it, lists it, and prints the
first weights of a segment (unpacked) and of the f16 norms (zero-copy),
the file's metadata and any ggml block tensors.

    PYTHONPATH=build/python python3 examples/python/vmpack_example.py \\
        llama.vmpk layers.0.attention.wq
    PYTHONPATH=build/python python3 examples/python/vmpack_example.py \\
        llama.safetensors layers.0.attention.wq
"""

import sys

import numpy as np

import vmpack


def main():
    path, name = sys.argv[1], sys.argv[2]
    with vmpack.open(path) as m:
        m.verify()
        checked = "all checksums OK" if m.container == "vmpk" else \
            "layout OK (the format has no checksums)"
        print(f"{m.container} {m.name!r}: {len(m)} constants, {checked}")
        for key, value in list(m.metadata.items())[:4]:
            print(f"  metadata {key} = {value[:60]!r}")
        s = m[name]
        w = m.get_tensor(name)
        print(f"{name}: {s.mlir_type}, {s.encoding}, {s.nbytes} bytes at "
              f"offset {s.offset}")
        print(f"  as numpy: {w.dtype} {w.shape}, first row starts "
              f"{w.reshape(-1)[:8].tolist()}")
        norms = [k for k in m.keys() if m[k].element_type == "f16"]
        if norms:
            n = m.get_tensor(norms[0])
            zero_copy = np.shares_memory(n, np.frombuffer(m[norms[0]].raw,
                                                          np.uint8))
            print(f"{norms[0]}: {n.dtype} {n.shape}, "
                  f"{'a view of the file' if zero_copy else 'a copy'}"
                  f", first values {n[:4].tolist()}")
        for s in m.values():
            if s.foreign_type:
                print(f"{s.name}: {s.foreign_type} {s.foreign_shape}, "
                      f"{s.nbytes} bytes of ggml blocks")


if __name__ == "__main__":
    main()
