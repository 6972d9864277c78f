//===- ChunkEncoder.h - A constant's stored bytes, chunk by chunk -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Private to lib/Target: both writers (module archives and IREE parameter
// archives) turn a range of a constant's scalars into the bytes of the
// chosen encoding the same way, straight from the source where the layout
// already matches.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_TARGET_CHUNKENCODER_H
#define VMPACK_LIB_TARGET_CHUNKENCODER_H

#include "vmpack/Target/ConstantCollector.h"

#include <cstdint>
#include <memory>

namespace mlir::vmpack_compiler {

/// A growable buffer that is not zero-filled: every byte handed out is
/// written before it is read. One per thread and purpose.
class ScratchBuffer {
public:
  uint8_t *get(size_t size) {
    if (size > capacity) {
      data.reset(new uint8_t[size]);
      capacity = size;
    }
    return data.get();
  }

private:
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
};

/// Bytes to write at consecutive offsets.
struct EncodedPiece {
  const uint8_t *data;
  uint64_t size;
};

/// The stored bytes of scalars [first, first + count) of `c` in `encoding`
/// (first a multiple of the element granule), which start at
/// vmpack::granuleByteOffset(encoding, W, first): at most two pieces,
/// pointing into the source where its layout is the stored one, else into
/// `scratch` (and `expanded` for splats).
SmallVector<EncodedPiece, 2>
encodeChunk(const ConstantInfo &c, vmpack::Encoding encoding, uint64_t first,
            uint64_t count, ScratchBuffer &scratch, ScratchBuffer &expanded);

} // namespace mlir::vmpack_compiler

#endif // VMPACK_LIB_TARGET_CHUNKENCODER_H
