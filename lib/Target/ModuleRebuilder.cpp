//===- ModuleRebuilder.cpp - Module archive back to MLIR ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/ModuleRebuilder.h"

#include "vmpack/Pack/Convert.h"
#include "vmpack/Target/ConstantCollector.h"
#include "vmpack/Target/ModuleSerializer.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

static std::string typeToString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;
namespace archive = vmpack::archive;

namespace {

/// Rebuilds constants, giving each shared resource one blob: every use of
/// a resource key in the input refers to the same blob again.
class ConstantRebuilder {
public:
  explicit ConstantRebuilder(const archive::ArchiveReader &reader)
      : reader(reader) {}

  /// The attribute segment `index` was compiled from, of type `type`, or
  /// null with `error` set.
  Attribute rebuild(size_t index, ShapedType type, std::string &error);

private:
  const archive::ArchiveReader &reader;
  /// Resources rebuilt so far, by key. Their blobs hold the bytes; no
  /// second copy is kept.
  std::map<std::string, DenseResourceElementsHandle, std::less<>> resources;
};

} // namespace

Attribute ConstantRebuilder::rebuild(size_t index, ShapedType type,
                                     std::string &error) {
  const archive::SegmentInfo &info = reader.constant(index);
  uint32_t bitWidth = info.elementType.scalarBits();
  uint64_t numScalars = archive::numScalars(info);
  Encoding target = mlir::vmpack_compiler::getOriginEncoding(
      mlir::vmpack_compiler::ConstantOrigin(info.sourceKind), info.elementType);
  std::optional<uint64_t> size =
      vmpack::encodedSize(target, bitWidth, numScalars);
  if (!size) {
    error = "is too large to rebuild";
    return {};
  }
  std::vector<char> bytes(*size);
  vmpack::convert(info.encoding, target, bitWidth, reader.constantData(index),
                  bytes.data(), numScalars);

  if (info.sourceKind == archive::SourceKind::Dense &&
      isa<quant::QuantizedType>(type.getElementType())) {
    // As MLIR does for numbers, a tensor of equal elements is written as
    // its one element.
    uint64_t elementSize = vmpack::mlirSplatStorageSize(bitWidth, false);
    bool allSame = bytes.size() > elementSize;
    for (size_t i = elementSize; i < bytes.size() && allSame; ++i)
      allSame = bytes[i] == bytes[i % elementSize];
    if (allSame)
      bytes.resize(elementSize);
    return encodeQuantizedHex(type, bytes);
  }
  if (info.sourceKind == archive::SourceKind::Dense) {
    bool detectedSplat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, bytes, detectedSplat)) {
      error = "does not match its use as " + typeToString(type);
      return {};
    }
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  }

  // A resource key used again: the blob is the one already rebuilt, and
  // its bytes must be the same.
  auto found = resources.find(info.sourceKey);
  if (found != resources.end()) {
    ArrayRef<char> existing = found->second.getBlob()->getData();
    if (existing != ArrayRef<char>(bytes)) {
      error = "and another segment rebuild resource '" + info.sourceKey +
              "' with different bytes";
      return {};
    }
    return DenseResourceElementsAttr::get(type, found->second);
  }
  uint32_t alignment = info.sourceAlignment ? info.sourceAlignment : 8;
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignment);
  auto &manager =
      DenseResourceElementsHandle::getManagerInterface(type.getContext());
  DenseResourceElementsHandle handle =
      manager.insert(info.sourceKey, std::move(blob));
  if (handle.getKey() != info.sourceKey) {
    error = "needs resource key '" + info.sourceKey +
            "', which the program already uses";
    return {};
  }
  resources.emplace(info.sourceKey, handle);
  return DenseResourceElementsAttr::get(type, handle);
}

OwningOpRef<ModuleOp>
mlir::vmpack_compiler::rebuildModule(const archive::ArchiveReader &reader,
                                     MLIRContext *context) {
  StringRef program(reinterpret_cast<const char *>(reader.programData()),
                    reader.program().length);
  // The program is verified once its constants are back: an op's verifier
  // may read a constant's values, which a segment reference does not have.
  ParserConfig config(context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(program, config, "program");
  if (!module)
    return {};

  ConstantRebuilder rebuilder(reader);
  bool ok = true;
  module->walk([&](Operation *op) {
    replaceNestedAttributes(op, [&](Attribute attr) -> Attribute {
      auto reference = dyn_cast<DenseResourceElementsAttr>(attr);
      if (!reference)
        return {};
      StringRef segment =
          getReferencedSegment(reference.getRawHandle().getKey());
      if (segment.empty())
        return {};
      std::optional<size_t> index = reader.findConstant(segment);
      if (!index) {
        op->emitError() << "the program refers to segment '" << segment
                        << "', which the archive does not contain";
        ok = false;
        return {};
      }
      std::string error;
      Attribute rebuilt = rebuilder.rebuild(*index, reference.getType(), error);
      if (!rebuilt) {
        op->emitError() << "segment '" << segment << "' " << error;
        ok = false;
      }
      return rebuilt;
    });
  });
  if (!ok || failed(verify(*module)))
    return {};
  return module;
}
