//===- MlirFormatUnavailable.cpp - vmpack-convert built without MLIR ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "MlirFormat.h"

using namespace vmpack;
using namespace vmpack::convert;
using formats::Status;

static Status unavailable(const std::string &path) {
  return Status::unsupported(
      "'" + path +
      "': this vmpack-convert was built without MLIR "
      "(VMPACK_ENABLE_MLIR=OFF), so it cannot read or write "
      ".mlir and .mlirbc files; rebuild with "
      "-DVMPACK_ENABLE_MLIR=ON");
}

formats::StatusOr<std::unique_ptr<MlirInput>>
vmpack::convert::openMlirInput(const std::string &path) {
  return unavailable(path);
}

Status vmpack::convert::writeMlirOutput(
    const std::string &path, const std::vector<formats::TensorSource> &,
    const formats::StringMetadata &, const MlirOutputOptions &) {
  return unavailable(path);
}
