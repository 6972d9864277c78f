//===- StreamedBlobs.h - Blobs produced while they are written ---*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Lets vmpack-gen write a model larger than memory. MLIR's bytecode writer
// emits a resource blob by reference: EncodingEmitter::emitOwnedBlob keeps
// the blob's ArrayRef, and the final writeTo() passes it to the output
// stream's write() unchanged (mlir/lib/Bytecode/Writer/BytecodeWriter.cpp,
// MLIR 22). No byte of a blob is read before that write.
//
// So a blob's bytes need not exist while the module is built. Each blob
// handed to MLIR is a reserved, inaccessible range of address space
// (PROT_NONE, no memory behind it); BlobFillingStream, the stream the
// writer writes to, recognises a write from such a range and produces the
// bytes then, one bounded chunk at a time, into the real output. Anonymous
// memory stays at the chunk size whatever the model's size, and the weights
// are written to disk once. Were MLIR ever to read a blob itself, it would
// fault at once instead of writing wrong bytes.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACKGEN_STREAMEDBLOBS_H
#define VMPACK_TOOLS_VMPACKGEN_STREAMEDBLOBS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace vmpack::gen {

class StreamedBlobs {
public:
  /// Produces bytes [offset, offset + size) of a blob into `out`; `offset`
  /// is always a multiple of kChunkBytes.
  using Fill =
      std::function<void(uint64_t offset, uint8_t *out, uint64_t size)>;

  /// The most bytes produced at once (and the memory that takes).
  static constexpr uint64_t kChunkBytes = uint64_t(8) << 20;

  StreamedBlobs() = default;
  StreamedBlobs(const StreamedBlobs &) = delete;
  StreamedBlobs &operator=(const StreamedBlobs &) = delete;
  ~StreamedBlobs();

  /// Reserves a blob of `size` bytes whose contents `fill` produces. The
  /// range is page-aligned, stays reserved until this object dies, and
  /// must not be read.
  llvm::ArrayRef<char> add(uint64_t size, Fill fill);

  /// Writes [data, data + size) to `os`, producing the parts that lie in
  /// a blob.
  void write(const char *data, size_t size, llvm::raw_ostream &os);

private:
  struct Blob {
    uint64_t size;
    uint64_t reserved;
    Fill fill;
  };
  /// By start address.
  std::map<const char *, Blob> blobs;
  std::vector<uint8_t> chunk;
};

/// A stream that writes to `out`, producing the blobs of `blobs` as they
/// pass. Unbuffered, so that raw_ostream hands write_impl each blob's range
/// whole instead of first copying part of it into a buffer; `out` does the
/// buffering of the small writes.
class BlobFillingStream : public llvm::raw_ostream {
public:
  BlobFillingStream(StreamedBlobs &blobs, llvm::raw_ostream &out)
      : blobs(blobs), out(out) {
    SetUnbuffered();
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    blobs.write(ptr, size, out);
  }
  uint64_t current_pos() const override { return out.tell(); }

  StreamedBlobs &blobs;
  llvm::raw_ostream &out;
};

} // namespace vmpack::gen

#endif // VMPACK_TOOLS_VMPACKGEN_STREAMEDBLOBS_H
