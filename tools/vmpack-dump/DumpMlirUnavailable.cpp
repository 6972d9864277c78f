//===- DumpMlirUnavailable.cpp - vmpack-dump --mlir without MLIR ----------===//

#include "DumpMlir.h"

#include <cstdio>

int vmpack::dump::printModuleAsMlir(const archive::ArchiveReader &,
                                    const DumpOptions &) {
  std::fprintf(stderr, "vmpack-dump: error: --mlir needs a vmpack-dump built "
                       "with MLIR (configure with -DVMPACK_ENABLE_MLIR=ON)\n");
  return 1;
}
