//===- TypeMapping.cpp - MLIR types to vmpack element types ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Quantized types are stored as their storage type; every builtin type
// goes through the dialect's getPackedElement, the one mapping from MLIR
// types to the element model (unittests/Target/TypeMappingTest.cpp checks
// it against MLIR's spelling of each type).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/TypeMapping.h"

#include "mlir/AsmParser/AsmParser.h"
#include "vmpack/Dialect/VMPack/PackedLayout.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

std::optional<vmpack::ElementType>
mlir::vmpack_compiler::getPackElementType(Type elementType) {
  if (auto quantized = dyn_cast<quant::QuantizedType>(elementType)) {
    Type storage = quantized.getStorageType();
    // !quant.uniform<i4:...> stores signed 4-bit integers, <u4:...>
    // unsigned ones; the storage type itself prints as signless i4.
    if (auto integer = dyn_cast<IntegerType>(storage))
      return vmpack::ElementType{{quantized.isSigned()
                                      ? vmpack::ScalarKind::SignedInt
                                      : vmpack::ScalarKind::UnsignedInt,
                                  integer.getWidth()},
                                 false};
    return getPackElementType(storage);
  }
  return getPackedElement(elementType);
}

Type mlir::vmpack_compiler::getMlirElementType(const vmpack::ElementType &type,
                                               MLIRContext *context) {
  // The same spelling both ways: parse what the packing library prints.
  std::string spelling = vmpack::toString(type);
  size_t read = 0;
  Type parsed = parseType(spelling, context, &read);
  if (!parsed || read != spelling.size())
    return {};
  return parsed;
}
