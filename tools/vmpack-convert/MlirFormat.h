//===- MlirFormat.h - MLIR files in vmpack-convert ----------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// .mlir / .mlirbc inputs and outputs of vmpack-convert. In builds with MLIR
// (VMPACK_ENABLE_MLIR=ON) an input goes through the compiler's reader and
// constant collector (lib/Target) and an output is written by
// lib/Target/WeightsModule.cpp; without MLIR both are clear errors
// (MlirFormatUnavailable.cpp) and every other format still works.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACK_CONVERT_MLIRFORMAT_H
#define VMPACK_TOOLS_VMPACK_CONVERT_MLIRFORMAT_H

#include "vmpack/Formats/Safetensors.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmpack::convert {

enum class MlirFormat { Text, Bytecode };

/// "mlir" (text) or "mlirbc" (bytecode).
std::optional<MlirFormat> parseMlirFormatName(std::string_view name);
/// From the extension: .mlir or .mlirbc.
std::optional<MlirFormat> mlirFormatFromPath(std::string_view path);

/// A parsed MLIR file: its constants as tensors (pointing into the parsed
/// module, which this object keeps alive) and its vmpack.metadata.
class MlirInput {
public:
  virtual ~MlirInput() = default;
  std::vector<formats::TensorSource> tensors;
  formats::StringMetadata metadata;
};

/// Parses `path` (text or bytecode, told apart by content) as vmpack-compile
/// does; MLIR's diagnostics go to stderr with their locations.
formats::StatusOr<std::unique_ptr<MlirInput>>
openMlirInput(const std::string &path);

struct MlirOutputOptions {
  MlirFormat format = MlirFormat::Bytecode;
  bool dense = false;
  uint32_t alignment = 16;
  std::string moduleName;
};

formats::Status writeMlirOutput(
    const std::string &path, const std::vector<formats::TensorSource> &tensors,
    const formats::StringMetadata &metadata, const MlirOutputOptions &options);

} // namespace vmpack::convert

#endif // VMPACK_TOOLS_VMPACK_CONVERT_MLIRFORMAT_H
