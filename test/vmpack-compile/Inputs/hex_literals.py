#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes an MLIR text module whose constants are large hex literals of many
element types, in the contexts the text fast path must handle or leave
alone: arith.constant and ml_program.global, an attribute alias, builtin
dialect_resources, a splat, small literals, a literal in a string and one in
a comment.

    hex_literals.py SEED > module.mlir
"""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)


def hexdigits(n, upper=True, masks=(0xFF,)):
    """n random bytes as hex; byte i is masked with masks[i % len(masks)]
    (sub-byte elements keep their unused high bits zero)."""
    data = bytes(rng.getrandbits(8) & masks[i % len(masks)] for i in range(n))
    text = data.hex()
    return text.upper() if upper else text


# Masks of the storage bytes of element types narrower than their storage.
MASKS = {"i4": (0x0F,), "f4E2M1FN": (0x0F,), "i12": (0xFF, 0x0F)}

# (type, MLIR storage bytes per element; 0 = i1 bitmask), element count.
KINDS = [
    ("i1", 0, 65536),
    ("i4", 1, 8192),
    ("i8", 1, 5000),
    ("i12", 2, 4096),
    ("i16", 2, 3000),
    ("bf16", 2, 4096),
    ("f16", 2, 2500),
    ("f32", 4, 1500),
    ("f64", 8, 1024),
    ("f8E4M3FN", 1, 4500),
    ("f8E5M2", 1, 4500),
    ("f4E2M1FN", 1, 6000),
    ("complex<f32>", 8, 700),
    ("complex<i16>", 4, 1100),
]


def literal(kind, per, count, upper):
    size = (count + 7) // 8 if per == 0 else count * per
    digits = hexdigits(size, upper, MASKS.get(kind, (0xFF,)))
    return 'dense<"0x%s"> : tensor<%dx%s>' % (digits, count, kind)


lines = []
aliases = []
for i, (kind, per, count) in enumerate(KINDS):
    value = literal(kind, per, count, upper=i % 2 == 0)
    ty = "tensor<%dx%s>" % (count, kind)
    if i % 3 == 0:
        lines.append("ml_program.global private @g%d(%s) : %s" % (i, value, ty))
    elif i % 3 == 1:
        aliases.append("#alias%d = %s" % (i, value))
        lines.append("ml_program.global private @g%d(#alias%d) : %s" %
                     (i, i, ty))
    else:
        lines.append("func.func @f%d() -> %s {" % (i, ty))
        lines.append("  %%0 = arith.constant %s" % value)
        lines.append("  return %%0 : %s" % ty)
        lines.append("}")

# Two ops on one line: the second one's location is after a literal.
lines.append("func.func @one_line() -> (tensor<4096xi8>, tensor<4096xi8>) { "
             "%%0 = arith.constant %s %%1 = arith.constant %s "
             "return %%0, %%1 : tensor<4096xi8>, tensor<4096xi8> }" %
             (literal("i8", 1, 4096, True), literal("i8", 1, 4096, False)))
# A quantized element type: MLIR reads its hex as a string; left to MLIR.
lines.append('ml_program.global private @quant(dense<"0x%s"> : '
             'tensor<4096x!quant.uniform<i8:f32, 5.000000e-01>>) : '
             'tensor<4096x!quant.uniform<i8:f32, 5.000000e-01>>' %
             hexdigits(4096))
# A splat: one element standing for all of them (MLIR's parser does it).
lines.append('ml_program.global private @splat(dense<"0x%s"> : '
             'tensor<4096xi32>) : tensor<4096xi32>' % hexdigits(4))
# Small literals stay with MLIR.
lines.append('ml_program.global private @small(dense<"0x%s"> : '
             'tensor<64xi8>) : tensor<64xi8>' % hexdigits(64))
# Resources: two referenced, with different alignments.
lines.append("ml_program.global private @r0(dense_resource<blob0> : "
             "tensor<3000xi16>) : tensor<3000xi16>")
lines.append("ml_program.global private @r1(dense_resource<blob1> : "
             "tensor<9000xi4>) : tensor<9000xi4>")
# A literal in a string attribute and one in a comment: not constants.
lines.append('ml_program.global private @s(dense<1> : tensor<2xi8>) : '
             'tensor<2xi8> {note = "dense<\\"0x%s\\"> : tensor<4096xi8>"}' %
             hexdigits(4096))
lines.append('// dense<"0x%s"> : tensor<4096xi8>' % hexdigits(4096))
lines.append("{-#")
lines.append("  dialect_resources: {")
lines.append("    builtin: {")
lines.append('      blob0: "0x08000000%s",' % hexdigits(6000))
lines.append('      blob1: "0x40000000%s"' % hexdigits(9000, masks=(0x0F,)))
lines.append("    }")
lines.append("  }")
lines.append("#-}")
print("\n".join(aliases + lines))
