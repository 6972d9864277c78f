# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""expect_exit.py N COMMAND...: runs COMMAND with this process's standard
streams and fails unless it exits with status N (lit's `not` accepts any
non-zero status; the tools promise 1 for an error in the work and 2 for a
usage error)."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print(f"expect_exit: {' '.join(sys.argv[2:])} exited with {got}, "
          f"not {want}", file=sys.stderr)
    sys.exit(1)
