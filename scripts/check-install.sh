#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs a configured build (argument: its directory) into a temporary
# prefix and builds test/install/consumer.c against the installed package
# twice: through find_package(vmpack) (shared and static runtime) and
# through pkg-config. Each consumer opens a module made by the installed
# vmpack-convert and unpacks a float32 segment; the count and sum must
# match the source .safetensors file read here with Python. When the build
# has MLIR, test/install/compiler/ is built against vmpack::compiler too:
# it packs and writes an i4 constant and reads it back.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: check-install.sh BUILD_DIR}
work=$(mktemp -d)
trap 'status=$?; [ $status = 0 ] || tail -n 30 "$work"/*.log >&2; rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/vmpack-dump bin/vmpack-convert include/vmpack/vmpack.h; do
  test -e "$prefix/$f" || { echo "check-install: missing $f" >&2; exit 1; }
done
ls "$prefix"/lib*/libvmpack.so "$prefix"/lib*/libvmpack.a \
  "$prefix"/lib*/pkgconfig/vmpack.pc \
  "$prefix"/lib*/cmake/vmpack/vmpackConfig.cmake > /dev/null

input=$root/fuzz/corpus/safetensors/samples.safetensors
segment=t16.f32
"$prefix/bin/vmpack-convert" -q "$input" -o "$work/m.vmpk"
expected=$(python3 - "$input" "$segment" <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack_from('<Q', data)
entry = json.loads(data[8:8 + n])[sys.argv[2]]
begin, end = entry['data_offsets']
values = struct.unpack_from('<%df' % ((end - begin) // 4), data, 8 + n + begin)
print('%s: %d elements, sum %g' % (sys.argv[2], len(values), sum(values)))
PY
)

check() {
  local got
  got=$("$@" "$work/m.vmpk" "$segment")
  if [ "$got" != "$expected" ]; then
    echo "check-install: $1 printed '$got', expected '$expected'" >&2
    exit 1
  fi
  echo "check-install: $(basename "$1"): $got"
}

# CMake package.
cmake -G Ninja -S "$root/test/install" -B "$work/cmake" \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/cmake.log"
cmake --build "$work/cmake" > "$work/cmake-build.log"
check "$work/cmake/vmpack-consumer"
check "$work/cmake/vmpack-consumer-static"

# pkg-config, shared then static.
export PKG_CONFIG_PATH=$(dirname "$(ls "$prefix"/lib*/pkgconfig/vmpack.pc)")
cc=${CC:-cc}
$cc -std=c11 -o "$work/pc-consumer" "$root/test/install/consumer.c" \
  $(pkg-config --cflags --libs vmpack) \
  -Wl,-rpath,"$(pkg-config --variable=libdir vmpack)"
check "$work/pc-consumer"
$cc -std=c11 -o "$work/pc-consumer-static" "$root/test/install/consumer.c" \
  $(pkg-config --cflags vmpack) -Wl,-Bstatic \
  $(pkg-config --libs-only-L vmpack) -lvmpack -Wl,-Bdynamic \
  $(pkg-config --static --libs-only-l vmpack | sed 's/-lvmpack//')
ldd "$work/pc-consumer-static" | grep -q libvmpack &&
  { echo "check-install: static consumer loads libvmpack.so" >&2; exit 1; }
check "$work/pc-consumer-static"

# The compiler library, when installed.
if [ -e "$prefix/include/vmpack/Target/ModuleSerializer.h" ]; then
  cmake -G Ninja -S "$root/test/install/compiler" -B "$work/compiler" \
    -DCMAKE_PREFIX_PATH="$prefix" > "$work/compiler.log"
  cmake --build "$work/compiler" > "$work/compiler-build.log"
  got=$("$work/compiler/vmpack-compiler-consumer" "$work/c.vmpk")
  if [ "$got" != "1 -2 3 -4 5 -6 7 " ]; then
    echo "check-install: vmpack-compiler-consumer printed '$got'" >&2
    exit 1
  fi
  "$prefix/bin/vmpack-dump" "$work/c.vmpk" > "$work/c.dump"
  grep -q weights "$work/c.dump" ||
    { echo "check-install: vmpack-dump does not list weights" >&2; exit 1; }
  echo "check-install: vmpack-compiler-consumer: $got"
fi
