#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs vmpack's build and test dependencies from Debian 12's archive.
# Run as root (or with sudo). docs/building.md ("Dependencies") explains what
# each package is for.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libflatbuffers-dev flatbuffers-compiler
  zlib1g-dev libisal-dev libdeflate-dev
  googletest libgtest-dev libbenchmark-dev
  unzip
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  nlohmann-json3-dev python3-numpy python3-jsonschema
  clang-format-22 clang-22 libclang-rt-22-dev
  libprotobuf-dev python3-onnx python3-sentencepiece
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm packages used as independent readers and engines by the tests
# (llama.cpp's libggml-base, ONNX Runtime, @huggingface/gguf):
# scripts/install-npm-deps.sh says which and why.
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends npm
fi
bash "$(dirname "$0")/install-npm-deps.sh"
