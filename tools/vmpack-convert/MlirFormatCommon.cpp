//===- MlirFormatCommon.cpp - MLIR format names, with or without MLIR -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "MlirFormat.h"

using namespace vmpack;
using namespace vmpack::convert;

std::optional<MlirFormat>
vmpack::convert::parseMlirFormatName(std::string_view name) {
  if (name == "mlir")
    return MlirFormat::Text;
  if (name == "mlirbc")
    return MlirFormat::Bytecode;
  return std::nullopt;
}

std::optional<MlirFormat>
vmpack::convert::mlirFormatFromPath(std::string_view path) {
  size_t dot = path.find_last_of('.');
  size_t slash = path.find_last_of('/');
  if (dot == std::string_view::npos ||
      (slash != std::string_view::npos && dot < slash))
    return std::nullopt;
  return parseMlirFormatName(path.substr(dot + 1));
}
