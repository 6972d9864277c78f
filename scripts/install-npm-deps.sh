#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs the npm packages that the tests use as independent readers and
# engines into ${VMPACK_NPM_DIR:-<checkout>/third_party/npm}/node_modules:
#   @node-llama-cpp/linux-x64   llama.cpp's prebuilt libggml-base.so and libllama.so
#                               (ggml's own quantizers, dequantizers and GGUF reader)
#   @huggingface/gguf           Hugging Face's GGUF parser
#   onnxruntime-node            ONNX Runtime's libonnxruntime.so.1
# --ignore-scripts: the packages' install scripts would download binaries; the
# libraries are inside the packages. Tests that need a package skip, saying
# so, when it is absent; a failing install here is reported, not fatal.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${VMPACK_NPM_DIR:-$root/third_party/npm}
if ! command -v npm >/dev/null 2>&1; then
  echo "install-npm-deps: npm not found; the tests that use npm packages will skip" >&2
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"vmpack-test-deps","private":true}' > package.json
if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
    @node-llama-cpp/linux-x64@3.21.1 @huggingface/gguf onnxruntime-node@1.30.0; then
  echo "install-npm-deps: npm install failed; the tests that use npm packages will skip" >&2
fi
exit 0
