#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the dialect and pass references from TableGen and copies them into
# docs/generated/, where the `generated-docs-*` tests compare them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target vmpack-doc
mkdir -p "$root/docs/generated"
cp "$build"/docs/VMPack/VMPackDialect.md "$build"/docs/VMPack/VMPackPasses.md \
  "$root/docs/generated/"
