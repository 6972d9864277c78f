//===- OutputFile.h - Writing a file in place, then renaming it ---*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Every writer of the formats layer works the same way: the layout is
// computed first, a temporary file beside the destination is sized to it,
// bytes go straight to their final offsets (copied in the kernel with
// copy_file_range where possible, converted in bounded chunks otherwise),
// and commit() renames the temporary file over the destination. Until then
// the destination is untouched; a failure or destruction removes the
// temporary file.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_OUTPUTFILE_H
#define VMPACK_FORMATS_OUTPUTFILE_H

#include "vmpack/Formats/Tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace vmpack::formats {

/// Receives a tensor's bytes in `encoding`, chunk by chunk: `n` bytes that
/// belong at `offsetInTensor`.
using ChunkSink = std::function<Status(uint64_t offsetInTensor,
                                       const uint8_t *data, uint64_t n)>;

/// Hands `source`'s bytes in `encoding` to `sink` in chunks of about 4 MiB:
/// as they are when the layout matches (or the tensor is opaque), computed
/// by `produce`, or converted by the Pack layer. `alignFrom` is where the
/// tensor starts in the destination file: computed chunks are cut so that
/// every chunk after the first starts at a multiple of kProduceChunkBytes
/// there (the file system then gets whole pages instead of zeroing the
/// partly written ones).
Status forEachTensorChunk(const TensorSource &source, Encoding encoding,
                          const ChunkSink &sink, uint64_t alignFrom = 0);

class OutputFile;

/// Files that appear together or not at all (the shards of a set and their
/// index). A member's commit() only closes it; commitAll() renames every
/// member into place, and if one rename fails removes the members it had
/// already renamed. Until then, and if the group is destroyed first, the
/// temporary files are removed and the destinations are untouched.
class OutputGroup {
public:
  OutputGroup() = default;
  OutputGroup(const OutputGroup &) = delete;
  OutputGroup &operator=(const OutputGroup &) = delete;
  ~OutputGroup();
  Status commitAll();
  /// Destinations in the order their files were committed.
  std::vector<std::string> destinations() const;
  /// Takes a finished file written elsewhere (at `temp`, beside
  /// `destination`) as a committed member.
  void adopt(std::string temp, std::string destination) {
    pending.emplace_back(std::move(temp), std::move(destination));
  }
  /// A file of an older set that the new set replaces but does not have:
  /// commitAll() removes it once every member is in place (and refuses,
  /// before any rename, when it is an input of this process).
  void removeOnCommit(std::string path) {
    staleFiles.push_back(std::move(path));
  }

private:
  friend class OutputFile;
  /// (temporary file, destination) of each committed member.
  std::vector<std::pair<std::string, std::string>> pending;
  std::vector<std::string> staleFiles;
  bool done = false;
};

class OutputFile {
public:
  /// Creates `path`.tmp.<pid>.<n> with `size` bytes, all zero. With a
  /// group, commit() hands the file to the group instead of renaming it.
  static StatusOr<std::unique_ptr<OutputFile>>
  create(const std::string &path, uint64_t size, OutputGroup *group = nullptr);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// pwrite of [data, data + size) at `offset`, which must lie in the file.
  Status write(uint64_t offset, const void *data, uint64_t size);
  /// Copies `size` bytes to `offset`: from `srcFd` at `srcOffset` with
  /// copy_file_range when srcFd >= 0 and the kernel can, else from
  /// `srcData` with pwrite.
  Status copy(uint64_t offset, int srcFd, uint64_t srcOffset,
              const uint8_t *srcData, uint64_t size);
  /// Writes a tensor's elements at `offset` in `encoding`: verbatim when
  /// the source is already in that encoding (or opaque), else converted by
  /// the Pack layer in chunks of bounded size.
  Status writeTensor(uint64_t offset, const TensorSource &source,
                     Encoding encoding);
  /// Renames the temporary file to the destination (or, in a group, closes
  /// it and leaves the rename to OutputGroup::commitAll).
  Status commit();

  const std::string &path() const { return destination; }
  uint64_t size() const { return fileSize; }
  /// Bytes copied in the kernel so far (for tests and progress output).
  uint64_t kernelCopiedBytes() const { return kernelCopied; }

private:
  OutputFile() = default;
  std::string destination, temp;
  OutputGroup *group = nullptr;
  int fd = -1;
  uint64_t fileSize = 0;
  uint64_t kernelCopied = 0;
  bool committed = false;
};

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_OUTPUTFILE_H
