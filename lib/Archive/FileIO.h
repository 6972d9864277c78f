//===- FileIO.h - Small POSIX helpers with readable errors ---------*- C++ -*-===//

#ifndef VMPACK_LIB_ARCHIVE_FILEIO_H
#define VMPACK_LIB_ARCHIVE_FILEIO_H

#include "vmpack/Archive/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace vmpack::archive::detail {

/// strerror, but thread-safe.
std::string errnoText(int err);

/// pwrite all of [data, data + size) at `offset`, retrying short writes and
/// EINTR. `what` names the write in the error message.
Status pwriteAll(int fd, const void *data, size_t size, uint64_t offset,
                 const std::string &what);

/// The directory part of `path` ("." when there is none).
std::string parentDirectory(const std::string &path);

} // namespace vmpack::archive::detail

#endif // VMPACK_LIB_ARCHIVE_FILEIO_H
