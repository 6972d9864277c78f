//===- TypeMapping.cpp - MLIR types to vmpack element types ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The packing library names element types exactly as MLIR prints them
// (i4, si3, index, f8E4M3FN, bf16, complex<f16>, ...), so the mapping goes
// through that spelling and the list of types lives in one place,
// lib/Pack/ElementType.cpp. Quantized types are stored as their storage
// type.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/TypeMapping.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

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
  if (!elementType.isIntOrIndexOrFloat() && !isa<ComplexType>(elementType))
    return std::nullopt;
  std::string spelling;
  llvm::raw_string_ostream os(spelling);
  elementType.print(os);
  return vmpack::parseElementType(os.str());
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
