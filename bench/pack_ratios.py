#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks vmpack-pack-bench's kernel/memcpy ratios against the targets.

A report, not a test: it lists every cell below its target and exits 0.

  python3 bench/pack_ratios.py --bench build/bin/vmpack-pack-bench
  python3 bench/pack_ratios.py --input saved-output.txt --markdown

The targets (ratio to a memcpy of the larger side, same run, one core):
  MLIR storage <-> packed           W 1-8: 0.8    (moonshot: 1.0 for W 1-16)
  packed -> int8/uint8/int16/uint16  W 1-8: 0.8
  MLIR storage -> word, word <-> packed  W 1-8: 0.5
  float32 from f4, f6, f8 and bf16: 0.5
  every other width (9-64) and direction: 0.3
With --markdown it also prints the tables docs/performance.md's packing section
is made of.
"""

import argparse
import statistics
import subprocess
import sys

WORD_DIRECTIONS = ("mlir->word", "word->packed", "packed->word")
INT_DIRECTIONS = ("packed->int8", "packed->uint8", "packed->int16",
                  "packed->uint16")
FLOAT_TARGETS = ("f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "bf16")


def target(direction, width):
    if direction.startswith("packed->f32:"):
        kind = direction.split(":", 1)[1]
        return 0.5 if kind in FLOAT_TARGETS or kind.startswith("f8") else 0.3
    if width > 8:
        return 0.3
    if direction in WORD_DIRECTIONS:
        return 0.5
    return 0.8


def parse(lines):
    header, cells = [], []
    for line in lines:
        if line.startswith("#"):
            header.append(line.rstrip())
            continue
        f = line.split()
        if len(f) != 8:
            continue
        cells.append({
            "direction": f[0], "W": int(f[1]), "elements": int(f[2]),
            "in": int(f[3]), "out": int(f[4]), "gbps": float(f[5]),
            "memcpy": float(f[6]), "ratio": float(f[7]),
        })
    return header, cells


def markdown(cells):
    by = {(c["direction"], c["W"]): c for c in cells}
    cols = ["mlir->packed", "packed->mlir", *INT_DIRECTIONS,
            *WORD_DIRECTIONS]
    names = {"mlir->packed": "MLIR → packed", "packed->mlir": "packed → MLIR",
             "packed->int8": "→ int8", "packed->uint8": "→ uint8",
             "packed->int16": "→ int16", "packed->uint16": "→ uint16",
             "mlir->word": "MLIR → word", "word->packed": "word → packed",
             "packed->word": "packed → word"}
    out = ["| W | " + " | ".join(names[c] for c in cols) + " |",
           "|---:|" + "---:|" * len(cols)]
    for w in range(1, 9):
        row = []
        for c in cols:
            cell = by.get((c, w))
            row.append(f"{cell['ratio']:.2f}" if cell else "–")
        out.append(f"| {w} | " + " | ".join(row) + " |")
    out.append("")
    # Wider widths: the spread over W = 9 ... 64 of each direction.
    out.append("| direction, W 9–64 | widths | min ratio | median | "
               "below 0.3 |")
    out.append("|---|---:|---:|---:|---|")
    for c in ["mlir->packed", "packed->mlir", "packed->int16",
              "packed->uint16", *WORD_DIRECTIONS]:
        wide = [x for x in cells if x["direction"] == c and x["W"] > 8]
        if not wide:
            continue
        ratios = [x["ratio"] for x in wide]
        low = [str(x["W"]) for x in wide if x["ratio"] < 0.3]
        out.append(f"| {names[c]} | {len(wide)} | {min(ratios):.2f} | "
                   f"{statistics.median(ratios):.2f} | "
                   f"{', '.join(low) if low else 'none'} |")
    out.append("")
    out.append("| float32 from `packed` | GB/s (output) | memcpy GB/s | "
               "ratio |")
    out.append("|---|---:|---:|---:|")
    for x in cells:
        if x["direction"].startswith("packed->f32:"):
            out.append(f"| {x['direction'].split(':', 1)[1]} | "
                       f"{x['gbps']:.1f} | {x['memcpy']:.1f} | "
                       f"{x['ratio']:.2f} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--bench", help="path of vmpack-pack-bench to run")
    src.add_argument("--input", help="a saved vmpack-pack-bench output")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the docs/performance.md tables")
    args = ap.parse_args()
    if args.bench:
        text = subprocess.run([args.bench], check=True, capture_output=True,
                              text=True).stdout
    else:
        with open(args.input) as f:
            text = f.read()
    header, cells = parse(text.splitlines())
    if not cells:
        sys.exit("no measurements found")
    for line in header:
        print(line)
    below = [c for c in cells if c["ratio"] < target(c["direction"], c["W"])]
    print(f"{len(cells)} cells, {len(below)} below target:")
    for c in below:
        print(f"  {c['direction']:<26} W={c['W']:<2}  ratio {c['ratio']:.2f}"
              f" < {target(c['direction'], c['W'])}  ({c['gbps']:.2f} GB/s,"
              f" memcpy {c['memcpy']:.2f})")
    if args.markdown:
        print()
        print(markdown(cells))


if __name__ == "__main__":
    main()
