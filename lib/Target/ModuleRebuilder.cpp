//===- ModuleRebuilder.cpp - Module archive back to MLIR ------------------===//

#include "vmpack/Target/ModuleRebuilder.h"

#include "vmpack/Pack/Convert.h"
#include "vmpack/Target/ConstantCollector.h"
#include "vmpack/Target/ModuleSerializer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using ::vmpack::Encoding;
namespace archive = ::vmpack::archive;

/// The attribute segment `info` was compiled from, of type `type`.
static Attribute rebuildConstant(const archive::ArchiveReader &reader,
                                 size_t index, ShapedType type) {
  const archive::SegmentInfo &info = reader.segment(index);
  uint32_t bitWidth = info.elementType.scalarBits();
  uint64_t numScalars = archive::numScalars(info);
  Encoding target = mlir::vmpack::getOriginEncoding(
      mlir::vmpack::ConstantOrigin(info.sourceKind), info.elementType);
  std::optional<uint64_t> size =
      ::vmpack::encodedSize(target, bitWidth, numScalars);
  if (!size)
    return {};
  std::vector<char> bytes(*size);
  ::vmpack::convert(info.encoding, target, bitWidth, reader.segmentData(index),
                    bytes.data(), numScalars);

  if (info.sourceKind == archive::SourceKind::Dense) {
    bool detectedSplat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, bytes, detectedSplat))
      return {};
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  }
  uint32_t alignment = info.sourceAlignment ? info.sourceAlignment : 8;
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignment);
  return DenseResourceElementsAttr::get(type, info.sourceKey, std::move(blob));
}

OwningOpRef<ModuleOp>
mlir::vmpack::rebuildModule(const archive::ArchiveReader &reader,
                            MLIRContext *context) {
  StringRef program(reinterpret_cast<const char *>(reader.programData()),
                    reader.program().length);
  ParserConfig config(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(program, config, "program");
  if (!module)
    return {};

  bool ok = true;
  module->walk([&](Operation *op) {
    // getAttrs() includes inherent attributes held as properties; collect
    // first, then replace.
    SmallVector<NamedAttribute> replacements;
    for (NamedAttribute attr : op->getAttrs()) {
      auto reference = dyn_cast<DenseResourceElementsAttr>(attr.getValue());
      if (!reference)
        continue;
      StringRef segment =
          getReferencedSegment(reference.getRawHandle().getKey());
      if (segment.empty())
        continue;
      std::optional<size_t> index = reader.findSegment(segment);
      if (!index) {
        op->emitError() << "the program refers to segment '" << segment
                        << "', which the archive does not contain";
        ok = false;
        continue;
      }
      Attribute rebuilt = rebuildConstant(reader, *index, reference.getType());
      if (!rebuilt) {
        op->emitError() << "segment '" << segment
                        << "' does not match its use as "
                        << reference.getType();
        ok = false;
        continue;
      }
      replacements.emplace_back(attr.getName(), rebuilt);
    }
    for (NamedAttribute replacement : replacements)
      op->setAttr(replacement.getName(), replacement.getValue());
  });
  if (!ok)
    return {};
  return module;
}
