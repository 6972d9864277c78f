//===- VMPackAttrs.cpp - vmpack attributes --------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Dialect/VMPack/VMPackAttrs.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Pack/Encoding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

#include "vmpack/Dialect/VMPack/VMPackEnums.cpp.inc"

// #vmpack.encoding's cases are vmpack::Encoding's values.
static_assert(int(EncodingKind::Packed) == int(vmpack::Encoding::Packed) &&
                  int(EncodingKind::Word) == int(vmpack::Encoding::Word) &&
                  int(EncodingKind::Byte) == int(vmpack::Encoding::Byte),
              "EncodingKind follows vmpack::Encoding");

#define GET_ATTRDEF_CLASSES
#include "vmpack/Dialect/VMPack/VMPackAttrs.cpp.inc"

void VMPackDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "vmpack/Dialect/VMPack/VMPackAttrs.cpp.inc"
      >();
}
