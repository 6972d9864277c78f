//===- FileIO.h - Small POSIX helpers with readable errors ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by every writer of the project (module archives, parameter
// archives): a temporary file beside the destination, its space reserved up
// front, positioned writes, and an atomic rename over the destination at the
// end, so that a failure never leaves a half-written or overwritten output.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_FILEIO_H
#define VMPACK_ARCHIVE_FILEIO_H

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

/// Creates a new, empty file `path`.tmp.PID.N beside `path` (O_EXCL, mode
/// 0666 minus the umask) and returns its descriptor and name. Also sets
/// SIGXFSZ to SIG_IGN for the process, so that exceeding a file-size limit
/// is an EFBIG error instead of a kill.
Status createTempFileBeside(const std::string &path, int &fd,
                            std::string &tempPath);

/// Reserves `size` bytes for the file (posix_fallocate, or ftruncate where
/// the file system cannot allocate), so that a full disk or a file-size
/// limit is reported before any data is written. New bytes read as zero.
Status reserveFileSpace(int fd, uint64_t size, const std::string &path);

/// Optionally fsyncs `fd`, closes it (always), renames `tempPath` over
/// `path` and, with `fsync`, fsyncs the directory so the rename is durable.
/// `renamed` tells whether the rename happened (a later fsync of the
/// directory may still fail).
Status commitTempFile(int fd, const std::string &tempPath,
                      const std::string &path, bool fsync, bool &renamed);

} // namespace vmpack::archive::detail

#endif // VMPACK_ARCHIVE_FILEIO_H
