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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
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

/// The output of a writer that many threads may write (module and
/// parameter archives): a temporary file beside the destination, and the
/// writer's first failure. A failure removes the temporary file at once, so
/// that no failure path leaves it behind; so does destroying the object
/// before commit() renamed the file into place.
class TempOutput {
public:
  TempOutput() = default;
  TempOutput(const TempOutput &) = delete;
  TempOutput &operator=(const TempOutput &) = delete;
  ~TempOutput();

  /// Creates the temporary file beside `path` (createTempFileBeside).
  Status create(const std::string &path);
  /// The temporary file's descriptor; -1 after commit().
  int fd() const { return fileFd; }

  /// Thread-safe. Records `status` unless a failure was recorded before,
  /// removes the temporary file, and returns the first failure.
  Status fail(Status status);
  /// Thread-safe. True once fail() was called.
  bool failed() const { return failedFlag; }
  /// Thread-safe. The first failure (ok if none).
  Status firstError();

  /// commitTempFile to the destination given to create(). A failure before
  /// the rename is recorded as by fail(); after the rename (a directory
  /// fsync) it is returned and the file stays in place.
  Status commit(bool fsync);
  /// True once commit() renamed the file into place.
  bool committed() const { return renamed; }

private:
  void removeTempLocked();

  std::string destination;
  std::string tempPath;
  int fileFd = -1;
  bool renamed = false;
  std::atomic<bool> failedFlag{false};
  std::mutex mutex;
  Status error = Status::ok(); // guarded by mutex
  bool tempRemoved = false;    // guarded by mutex
};

} // namespace vmpack::archive::detail

#endif // VMPACK_ARCHIVE_FILEIO_H
