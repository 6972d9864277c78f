#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fails if any C or C++ source in the tree is not formatted with the
# checked-in .clang-format, or if a source, build or script file lacks its
# SPDX line. The formatter is LLVM 22's (Debian's clang-format-22), the same
# release as the MLIR vmpack builds against, so that its output does not
# change with the machine. `scripts/check-format.sh --fix` reformats.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

fmt=${CLANG_FORMAT:-}
if [ -z "$fmt" ]; then
  for c in clang-format-22 /usr/lib/llvm-22/bin/clang-format; do
    if command -v "$c" >/dev/null 2>&1; then fmt=$c; break; fi
  done
fi
if [ -z "$fmt" ]; then
  echo "check-format: clang-format-22 not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

mapfile -t sources < <(git ls-files '*.c' '*.h' '*.cpp')
if [ "${1:-}" = "--fix" ]; then
  "$fmt" -i "${sources[@]}"
  exit 0
fi

status=0
if ! "$fmt" --dry-run --Werror "${sources[@]}" 2>/tmp/vmpack-format.$$; then
  echo "check-format: these files are not formatted (run scripts/check-format.sh --fix):" >&2
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/vmpack-format.$$ | cut -d: -f1 | sort -u >&2
  status=1
fi
rm -f /tmp/vmpack-format.$$

tag='SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception'
mapfile -t licensed < <(git ls-files '*.c' '*.h' '*.cpp' '*.td' '*.py' '*.sh' \
  '*.cmake' '*CMakeLists.txt' '.ci/run' ':!test/corpus/cases/**')
missing=()
for f in "${licensed[@]}"; do
  head -c 2000 "$f" | grep -qF "$tag" || missing+=("$f")
done
if ((${#missing[@]})); then
  echo "check-format: these files lack the line '$tag':" >&2
  printf '  %s\n' "${missing[@]}" >&2
  status=1
fi
[ $status -eq 0 ] && echo "check-format: ${#sources[@]} sources formatted, ${#licensed[@]} files licensed"
exit $status
