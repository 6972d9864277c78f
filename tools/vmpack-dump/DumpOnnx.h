//===- DumpOnnx.h - vmpack-dump on ONNX models ------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPONNX_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPONNX_H

#include "DumpOptions.h"

namespace vmpack::dump {

/// Lists, verifies or extracts the tensors of the ONNX model at
/// options.modulePath (and of the external data files it names) as
/// `options` ask. Returns the process exit code.
int dumpOnnx(const DumpOptions &options);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPONNX_H
