#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads a module archive with the Python package: verify, list, and print
the first weights of a segment (unpacked) and of the f16 norms (zero-copy).

    PYTHONPATH=build/python python3 examples/python/vmpack_example.py \\
        llama.vmpk layers.0.attention.wq
"""

import sys

import numpy as np

import vmpack


def main():
    path, name = sys.argv[1], sys.argv[2]
    with vmpack.open(path) as m:
        m.verify()
        print(f"module {m.name!r}: {len(m)} constants, all checksums OK")
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
                  f"{'a view of the mapped file' if zero_copy else 'a copy'}"
                  f", first values {n[:4].tolist()}")


if __name__ == "__main__":
    main()
