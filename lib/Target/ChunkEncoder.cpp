//===- ChunkEncoder.cpp - A constant's stored bytes, chunk by chunk -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "ChunkEncoder.h"

#include "vmpack/Pack/Convert.h"

#include <cstring>

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;

SmallVector<EncodedPiece, 2> mlir::vmpack_compiler::encodeChunk(
    const ConstantInfo &c, Encoding encoding, uint64_t first, uint64_t count,
    ScratchBuffer &scratch, ScratchBuffer &expanded) {
  uint32_t bitWidth = c.elementType.scalarBits();
  Encoding from = c.sourceEncoding;
  uint64_t outSize = *vmpack::encodedSize(encoding, bitWidth, count);
  const auto *source = reinterpret_cast<const uint8_t *>(c.data.data());

  if (c.isZeroFill) {
    uint8_t *out = scratch.get(outSize);
    std::memset(out, 0, outSize);
    return {{out, outSize}};
  }
  if (c.isSplat) {
    // Expand the splat into `byte` layout, then encode like any tensor.
    uint8_t *bytes = expanded.get(count * ((bitWidth + 7) / 8));
    vmpack::expandMlirSplat(source, bitWidth, c.elementType.isComplex, first,
                            count, bytes);
    uint8_t *out = scratch.get(outSize);
    vmpack::convert(Encoding::Byte, encoding, bitWidth, bytes, out, count);
    return {{out, outSize}};
  }

  const uint8_t *in = source + vmpack::granuleByteOffset(from, bitWidth, first);
  // Same layout and no bits to clean: straight from the source.
  if (from == encoding && bitWidth % 8 == 0)
    return {{in, outSize}};
  // In `packed`, only the last byte of a constant has bits outside
  // elements.
  if (from == Encoding::Packed && encoding == Encoding::Packed) {
    bool lastChunk = first + count == c.numScalars;
    uint64_t usedBits = (count * bitWidth) % 8;
    if (!lastChunk || !usedBits || !outSize)
      return {{in, outSize}};
    uint8_t *last = scratch.get(1);
    *last = in[outSize - 1] & uint8_t((1u << usedBits) - 1);
    if (outSize == 1)
      return {{last, 1}};
    return {{in, outSize - 1}, {last, 1}};
  }
  uint8_t *out = scratch.get(outSize);
  vmpack::convert(from, encoding, bitWidth, in, out, count);
  return {{out, outSize}};
}
