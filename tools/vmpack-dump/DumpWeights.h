//===- DumpWeights.h - vmpack-dump on safetensors and GGUF files -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPWEIGHTS_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPWEIGHTS_H

#include "DumpOptions.h"
#include "DumpOutput.h"

#include "vmpack/Formats/WeightFile.h"

namespace vmpack::dump {

/// Lists, verifies or extracts the tensors of the safetensors or GGUF file
/// (or the set it starts: a safetensors index or first shard, the first
/// file of a GGUF split) at options.modulePath, as `options` ask. Returns
/// the process exit code.
int dumpWeights(formats::FileFormat format, const DumpOptions &options);

/// Tensor `t` of safetensors or GGUF file `f`, the `file`th shown, as
/// --json lists it (docs/dump-json.md): a ggml block tensor as its stored
/// bytes (tensor<LENGTHxui8>, byte encoding), its ggml type and logical
/// shape, as the .vmpk segment vmpack-convert makes of it; GGUF's
/// alignment; no checksum (neither format has one).
JsonTensor weightTensorJson(const formats::WeightFile &f,
                            const formats::TensorInfo &t, size_t file);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPWEIGHTS_H
