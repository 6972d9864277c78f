//===- MappedFile.h - A read-only memory map of a whole file -------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_ARCHIVE_MAPPEDFILE_H
#define VMPACK_ARCHIVE_MAPPEDFILE_H

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vmpack::archive {

/// Maps a file read-only for its lifetime. If another process truncates the
/// file while it is mapped, touching the lost pages raises SIGBUS: modules
/// are meant to be immutable once written (the writer never rewrites one in
/// place; it renames a new file over it). While mapped, the file is an input
/// of the process that no writer of the project replaces
/// (detail::InputFileGuard).
class MappedFile {
public:
  static StatusOr<std::unique_ptr<MappedFile>> open(const std::string &path);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const uint8_t *data() const { return base; }
  size_t size() const { return length; }

private:
  MappedFile(const uint8_t *base, size_t length) : base(base), length(length) {}
  const uint8_t *base;
  size_t length;
  detail::InputFileGuard guard;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_MAPPEDFILE_H
