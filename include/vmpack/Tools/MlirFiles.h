//===- MlirFiles.h - MLIR files for the tools layer ----------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The tools layer's core has no MLIR: reading and writing .mlir / .mlirbc
// files goes through this interface. VmpackToolsMlir (lib/Tools/Mlir*.cpp,
// built with VMPACK_ENABLE_MLIR) implements it with the compiler's reader
// and constant collector and lib/Target/WeightsModule.cpp, and gives
// MLIR's version for --version. Without it, MLIR files are refused.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_MLIRFILES_H
#define VMPACK_TOOLS_MLIRFILES_H

#include "vmpack/Formats/Safetensors.h"

#include <memory>
#include <string>
#include <vector>

namespace vmpack::tools {

/// A parsed MLIR file: its constants as tensors (pointing into the parsed
/// module, which this object keeps alive) and its vmpack.metadata.
class MlirInput {
public:
  virtual ~MlirInput() = default;
  std::vector<formats::TensorSource> tensors;
  formats::StringMetadata metadata;
};

struct MlirOutputOptions {
  bool bytecode = true;
  /// dense<...> values instead of dense_resource blobs.
  bool dense = false;
  uint32_t alignment = 16;
  std::string moduleName;
  std::string producer = "vmpack";
};

class MlirFiles {
public:
  virtual ~MlirFiles() = default;
  /// Parses `path` (text or bytecode, told apart by content) as
  /// vmpack-compile does; MLIR's diagnostics go to stderr with their
  /// locations.
  virtual archive::StatusOr<std::unique_ptr<MlirInput>>
  open(const std::string &path) const = 0;
  virtual archive::Status
  write(const std::string &path,
        const std::vector<formats::TensorSource> &tensors,
        const formats::StringMetadata &metadata,
        const MlirOutputOptions &options) const = 0;
};

/// Defined in VmpackToolsMlir only.
const MlirFiles &mlirFiles();
/// "22.1.8": the MLIR (LLVM) release the tools link. VmpackToolsMlir only.
const char *mlirVersion();

} // namespace vmpack::tools

#endif // VMPACK_TOOLS_MLIRFILES_H
