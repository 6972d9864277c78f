//===- DumpMlir.h - vmpack-dump --mlir --------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPMLIR_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPMLIR_H

#include "DumpOptions.h"

#include "vmpack/Archive/ArchiveReader.h"

namespace vmpack::dump {

/// Prints the module's program as MLIR (text, or bytecode with
/// --emit-bytecode) with every constant rebuilt as the attribute it was
/// compiled from, to stdout or, atomically, to options.outputPath. Returns
/// the process exit code. Only a vmpack-dump built with MLIR can do this;
/// otherwise it says so.
/// MLIR's version for --version, or nullptr without MLIR.
const char *dumpMlirVersion();

int printModuleAsMlir(const archive::ArchiveReader &reader,
                      const DumpOptions &options);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPMLIR_H
