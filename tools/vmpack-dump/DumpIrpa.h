//===- DumpIrpa.h - vmpack-dump on IREE parameter archives ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPIRPA_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPIRPA_H

#include "DumpOptions.h"

#include <cstddef>
#include <cstdint>

namespace vmpack::dump {

/// Lists, verifies or extracts the entries of the .irpa in
/// [data, data + size) as `options` ask. Returns the process exit code.
int dumpIrpa(const uint8_t *data, size_t size, const DumpOptions &options);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPIRPA_H
