# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes INPUT as MLIR bytecode of every version MLIR 22 can write,
compiles each with vmpack-compile and checks that vmpack-dump --mlir gives
what mlir-opt reads from that file, in generic form."""
import subprocess
import sys

source, work = sys.argv[1], sys.argv[2]
OPT = ["mlir-opt", "--allow-unregistered-dialect"]


def run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kwargs).stdout


failures = []
for version in range(0, 7):
    bc = f"{work}/v{version}.mlirbc"
    vmpk = f"{work}/v{version}.vmpk"
    run(OPT + [source, "--emit-bytecode",
               f"--emit-bytecode-version={version}", "-o", bc])
    expected = run(OPT + ["--mlir-print-op-generic", bc])
    run(["vmpack-compile", bc, "-o", vmpk])
    run(["vmpack-dump", "--verify", vmpk])
    rebuilt = run(["vmpack-dump", "--mlir", vmpk])
    got = run(OPT + ["--mlir-print-op-generic", "-"], input=rebuilt)
    if got != expected:
        failures.append(version)
    print(f"version {version}: {'same' if got == expected else 'DIFFERENT'}")
if failures:
    sys.exit(f"bytecode versions {failures} did not round-trip")
