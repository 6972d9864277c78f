#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a large sub-byte constant and the packed bytes it must become.

An independent, bit-at-a-time model of docs/packing.md (`packed`) and of
MLIR 22's storage (i1 a bitmask, other widths one element per byte with
random garbage in the unused high bits), used to cross-check the pass's fast
kernels on sizes and splats too long to write by hand.

usage: gen_packed_case.py KIND WIDTH COUNT SEED INPUT.mlir CHECKS.txt
  KIND: dense (hex DenseElementsAttr), splat (one-element hex splat) or
        resource (dense_resource blob in MLIR storage)
"""
import random
import sys


def pack(values, width):
    """docs/packing.md 2.1: element k at stream bits [k*W, (k+1)*W)."""
    out = bytearray((len(values) * width + 7) // 8)
    for k, value in enumerate(values):
        for b in range(width):
            if (value >> b) & 1:
                bit = k * width + b
                out[bit // 8] |= 1 << (bit % 8)
    return bytes(out)


def mlir_storage(values, width, rng):
    """MLIR 22 in memory: i1 packed bitmask; W <= 8 one byte, dirty bits."""
    if width == 1:
        return pack(values, 1)
    assert width < 8
    return bytes(v | (rng.randrange(256) & ~((1 << width) - 1) & 0xFF)
                 for v in values)


def main():
    kind, width, count, seed, input_path, checks_path = sys.argv[1:]
    width, count = int(width), int(count)
    rng = random.Random(int(seed))
    type_ = f"tensor<{count}xi{width}>"
    if kind == "splat":
        value = rng.randrange(1, 1 << width)  # not 0: zeroes prove little
        values = [value] * count
        if width == 1:
            payload = b"\xff" if value else b"\x00"
        else:
            payload = mlir_storage([value], width, rng)
    else:
        values = [rng.randrange(1 << width) for _ in range(count)]
        payload = mlir_storage(values, width, rng)

    if kind == "resource":
        attr = "dense_resource<big>"
        resources = ('{-#\n  dialect_resources: {\n    builtin: {\n'
                     f'      big: "0x08000000{payload.hex().upper()}"\n'
                     '    }\n  }\n#-}\n')
    else:
        attr = f'dense<"0x{payload.hex().upper()}">'
        resources = ""

    with open(input_path, "w") as f:
        f.write(f"func.func @big() -> {type_} {{\n"
                f"  %0 = arith.constant {attr} : {type_}\n"
                f"  return %0 : {type_}\n}}\n{resources}")

    packed = pack(values, width)
    with open(checks_path, "w") as f:
        f.write(f"CHECK: arith.constant {{vmpack.logical_type = {type_}}} "
                f"dense_resource<big.cst0> : tensor<{len(packed)}xi8>\n")
        f.write(f'CHECK: big.cst0: "0x10000000{packed.hex().upper()}"\n')


if __name__ == "__main__":
    main()
