//===- ZeroCopyBytecode.cpp - Dense elements read in place ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/ZeroCopyBytecode.h"

#include "vmpack/Pack/Encoding.h"
#include "vmpack/Target/TypeMapping.h"

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;

/// The builtin dialect's bytecode numbers its attribute kinds; the number of
/// DenseIntOrFPElementsAttr is internal to MLIR. Rather than trusting a
/// constant, write a known dense attribute and watch which kind reads back
/// as exactly that type and those bytes.
static std::optional<uint64_t> probeDenseElementsKind() {
  MLIRContext writeContext;
  OpBuilder builder(&writeContext);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  auto type = RankedTensorType::get({3}, builder.getIntegerType(8));
  const char probeBytes[] = {0x11, 0x22, 0x33};
  ArrayRef<char> probe(probeBytes, 3);
  (*module)->setAttr("vmpack.probe",
                     DenseElementsAttr::getFromRawBuffer(type, probe));
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (failed(writeBytecodeToFile(*module, os)))
    return std::nullopt;
  os.flush();

  MLIRContext readContext;
  // Probing reads entries of other kinds as if they were dense elements;
  // the errors that produces are expected and stay quiet.
  ScopedDiagnosticHandler quiet(&readContext,
                                [](Diagnostic &) { return success(); });
  auto expectedType =
      RankedTensorType::get({3}, IntegerType::get(&readContext, 8));
  std::optional<uint64_t> found;
  bool ambiguous = false;
  ParserConfig config(&readContext);
  config.getBytecodeReaderConfig().attachAttributeCallback(
      [&](DialectBytecodeReader &reader, StringRef dialect,
          Attribute &entry) -> LogicalResult {
        if (dialect != "builtin")
          return success();
        uint64_t kind;
        Type readType;
        ArrayRef<char> blob;
        if (succeeded(reader.readVarInt(kind)) &&
            succeeded(reader.readType(readType)) && readType == expectedType &&
            succeeded(reader.readBlob(blob)) && blob == probe) {
          ambiguous |= found && *found != kind;
          found = kind;
        }
        return success(); // No entry: the builtin reader reads it normally.
      });
  Block block;
  if (failed(readBytecodeFile(llvm::MemoryBufferRef(bytecode, "probe"), &block,
                              config)) ||
      ambiguous)
    return std::nullopt;
  return found;
}

bool mlir::vmpack_compiler::canStandInForDense(ShapedType type, size_t size) {
  if (!type || !type.hasStaticShape())
    return false;
  auto elementType = getPackElementType(type.getElementType());
  if (!elementType)
    return false;
  uint32_t bitWidth = elementType->scalarBits();
  uint64_t numScalars =
      uint64_t(type.getNumElements()) * elementType->scalarsPerElement();
  // A splat's storage holds one element; leave those (and i1 tensors short
  // enough to be confused with one) to MLIR.
  std::optional<uint64_t> fullSize = vmpack::encodedSize(
      vmpack::mlirStorageEncoding(bitWidth, elementType->isComplex), bitWidth,
      numScalars);
  return fullSize && *fullSize == size &&
         !(bitWidth == 1 && !elementType->isComplex && numScalars <= 8);
}

bool mlir::vmpack_compiler::attachZeroCopyDenseElements(
    ParserConfig &config, ZeroCopyRegistry &registry, size_t minBytes) {
  static const std::optional<uint64_t> denseKind = probeDenseElementsKind();
  if (!denseKind)
    return false;
  uint64_t kind = *denseKind;
  config.getBytecodeReaderConfig().attachAttributeCallback(
      [&registry, kind, minBytes](DialectBytecodeReader &reader,
                                  StringRef dialect,
                                  Attribute &entry) -> LogicalResult {
        if (dialect != "builtin")
          return success();
        uint64_t entryKind;
        if (failed(reader.readVarInt(entryKind)) || entryKind != kind)
          return success();
        ShapedType type;
        ArrayRef<char> blob;
        if (failed(reader.readType(type)) || failed(reader.readBlob(blob)))
          return success();
        if (blob.size() < minBytes || !canStandInForDense(type, blob.size()))
          return success();
        auto &manager = DenseResourceElementsHandle::getManagerInterface(
            reader.getContext());
        DenseResourceElementsHandle handle = manager.insert(
            "vmpack_dense",
            UnmanagedAsmResourceBlob::allocateWithAlign(blob, /*align=*/1));
        registry.add(handle.getKey());
        entry = DenseResourceElementsAttr::get(type, handle);
        return success();
      });
  return true;
}
