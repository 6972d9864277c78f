//===- PackElements.cpp - Packing constant payloads -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Transforms/PackElements.h"

#include "vmpack/Dialect/VMPack/PackedLayout.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Pack/Encoding.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::vmpack_compiler;

/// Elements expanded at a time from a splat. A multiple of 8, so that every
/// chunk of this many elements ends on a byte boundary in `packed` whatever
/// W is, and all full chunks pack to the same bytes.
static constexpr uint64_t kSplatChunkElements = 4096;

bool mlir::vmpack_compiler::isPackableElementsAttr(Attribute value) {
  if (!isa_and_nonnull<DenseIntOrFPElementsAttr, DenseResourceElementsAttr>(
          value))
    return false;
  auto type = dyn_cast<ShapedType>(cast<TypedAttr>(value).getType());
  return type && getPackedByteSize(type).has_value();
}

/// Packs a splat: expands `element` (one element in MLIR storage) into a
/// chunk, packs the chunk once and repeats its bytes, so memory stays
/// bounded by the chunk whatever the tensor's size.
static void packSplat(ArrayRef<char> element, vmpack::ElementType layout,
                      uint64_t numElements, MutableArrayRef<char> out) {
  uint32_t width = layout.scalarBits();
  uint64_t chunk = std::min(numElements, kSplatChunkElements);
  uint64_t chunkScalars = chunk * layout.scalarsPerElement();

  // The chunk's scalars in `byte` layout; a chunk holds whole elements, so
  // it starts with a real part.
  std::vector<uint8_t> source(chunkScalars * ((width + 7) / 8));
  vmpack::expandMlirSplat(reinterpret_cast<const uint8_t *>(element.data()),
                          width, layout.isComplex, 0, chunkScalars,
                          source.data());
  constexpr vmpack::Encoding storage = vmpack::Encoding::Byte;

  uint64_t fullChunks = numElements / chunk;
  uint64_t chunkBytes = chunkScalars * width / 8;
  vmpack::convert(storage, vmpack::Encoding::Packed, width, source.data(),
                  out.data(), chunkScalars);
  for (uint64_t k = 1; k < fullChunks; ++k)
    std::memcpy(out.data() + k * chunkBytes, out.data(), chunkBytes);
  if (uint64_t tail = numElements - fullChunks * chunk)
    vmpack::convert(storage, vmpack::Encoding::Packed, width, source.data(),
                    out.data() + fullChunks * chunkBytes,
                    tail * layout.scalarsPerElement());
}

FailureOr<AsmResourceBlob>
mlir::vmpack_compiler::packElements(ElementsAttr value, Location loc) {
  auto type = cast<ShapedType>(value.getType());
  std::optional<vmpack::ElementType> layout =
      getPackedElement(type.getElementType());
  std::optional<uint64_t> numScalars = getNumScalars(type);
  std::optional<int64_t> packedBytes = getPackedByteSize(type);
  if (!layout || !numScalars || !packedBytes)
    return emitError(loc) << "cannot pack constant of type " << type;
  uint32_t width = layout->scalarBits();
  vmpack::Encoding storage = getMlirStorageEncoding(*layout);
  uint64_t storageBytes = *vmpack::encodedSize(storage, width, *numScalars);

  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(*packedBytes, kPackedBlobAlignment);
  MutableArrayRef<char> out = blob.getMutableData();
  if (out.empty())
    return blob;

  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      packSplat(raw, *layout, type.getNumElements(), out);
      return blob;
    }
    if (raw.size() != storageBytes)
      return emitError(loc)
             << "dense constant of type " << type << " holds " << raw.size()
             << " bytes, expected " << storageBytes;
    vmpack::convert(storage, vmpack::Encoding::Packed, width, raw.data(),
                    out.data(), *numScalars);
    return blob;
  }

  auto resource = cast<DenseResourceElementsAttr>(value);
  DenseResourceElementsHandle handle = resource.getRawHandle();
  const AsmResourceBlob *source = handle.getBlob();
  if (!source)
    return emitError(loc) << "dense_resource '" << handle.getKey()
                          << "' has no data (elided or missing from the "
                             "module's dialect_resources); cannot pack it";
  ArrayRef<char> data = source->getData();
  if (data.size() == storageBytes) {
    vmpack::convert(storage, vmpack::Encoding::Packed, width, data.data(),
                    out.data(), *numScalars);
    return blob;
  }
  // MLIR's DenseResourceElementsAttr<bool> writes i1 one byte per element.
  if (width == 1 && data.size() == *numScalars) {
    vmpack::convert(vmpack::Encoding::Byte, vmpack::Encoding::Packed, width,
                    data.data(), out.data(), *numScalars);
    return blob;
  }
  return emitError(loc) << "dense_resource '" << handle.getKey() << "' holds "
                        << data.size() << " bytes, but " << type << " takes "
                        << storageBytes << " bytes in MLIR's storage layout";
}
