//===- DumpMlirUnavailable.cpp - vmpack-dump --mlir without MLIR ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpMlir.h"

#include <cstdio>

const char *vmpack::dump::dumpMlirVersion() { return nullptr; }

int vmpack::dump::printModuleAsMlir(const archive::ArchiveReader &,
                                    const DumpOptions &) {
  std::fprintf(stderr, "vmpack-dump: error: --mlir needs a vmpack-dump built "
                       "with MLIR (configure with -DVMPACK_ENABLE_MLIR=ON)\n");
  return 1;
}
