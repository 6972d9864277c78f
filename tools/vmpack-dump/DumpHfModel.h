//===- DumpHfModel.h - vmpack-dump on Hugging Face model dirs ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPHFMODEL_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPHFMODEL_H

#include "DumpOptions.h"

namespace vmpack::dump {

/// Lists the weights of the Hugging Face quantized model directory at
/// options.modulePath (formats/HfQuant.h): each quantized linear as
/// MODULE.weight with its logical shape and scheme, then the tensors that
/// pass through. Returns the process exit code.
int dumpHfModel(const DumpOptions &options);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPHFMODEL_H
