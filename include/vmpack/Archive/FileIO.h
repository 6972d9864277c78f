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
#include <functional>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace vmpack::archive::detail {

/// strerror, but thread-safe.
std::string errnoText(int err);

/// pwrite all of [data, data + size) at `offset`, retrying short writes and
/// EINTR. `what` names the write in the error message.
Status pwriteAll(int fd, const void *data, size_t size, uint64_t offset,
                 const std::string &what);

/// The directory part of `path` ("." when there is none).
std::string parentDirectory(const std::string &path);

//===----------------------------------------------------------------------===//
// Inputs are never outputs
//===----------------------------------------------------------------------===//

/// Registers a file as an input of this process for the guard's lifetime.
/// While any guard for a file exists, no writer of the project creates,
/// replaces or removes that file under any of its names (a symlink, a hard
/// link, another spelling of the path): createTempFileBeside and
/// checkNotAnInput refuse it before anything is written. The file is known
/// by its device and inode, so the guard holds for every name it has.
/// Readers that map or read a file (MappedFile, LoadedFile, the MLIR input)
/// hold one; guards for the same file nest.
class InputFileGuard {
public:
  InputFileGuard() = default;
  /// Guards the file open as `fd` (fstat); `path` names it in messages.
  /// A descriptor that cannot be stat'ed guards nothing.
  static InputFileGuard forDescriptor(int fd, const std::string &path);
  /// Guards the file `path` names (stat, following symlinks); nothing if
  /// it does not exist.
  static InputFileGuard forPath(const std::string &path);
  InputFileGuard(InputFileGuard &&other) noexcept;
  InputFileGuard &operator=(InputFileGuard &&other) noexcept;
  InputFileGuard(const InputFileGuard &) = delete;
  InputFileGuard &operator=(const InputFileGuard &) = delete;
  ~InputFileGuard();

  bool active() const { return isActive; }

private:
  void release();
  dev_t device = 0;
  ino_t inode = 0;
  bool isActive = false;
};

/// Fails with an invalid-argument status naming both paths when `path`
/// (after resolving symlinks) is a file guarded by an InputFileGuard:
/// "output 'x' is the input 'y' (the same file); nothing was written".
/// `role` says what the path is for ("output", "file to replace", ...);
/// `advice` what to do instead (default "choose another ROLE name").
Status checkNotAnInput(const std::string &path,
                       const std::string &role = "output",
                       const std::string &advice = "");

/// The file that writing `path` replaces: `path` itself, or, when `path`
/// is a symbolic link, the file it finally points to (relative links are
/// resolved against their own directory), which may not exist yet. Writers
/// write through symlinks as `cp` does: the link stays a link and its
/// target gets the new contents. At most 40 links are followed.
StatusOr<std::string> resolveOutputPath(const std::string &path);

/// True when writing `a` and writing `b` would replace the same file: the
/// same file after resolveOutputPath (device and inode when it exists), or
/// the same name in the same directory when it does not exist yet ("x",
/// "./x", "d/../x" and a symlink to x are one destination).
bool sameDestination(const std::string &a, const std::string &b);

/// Creates the missing directories of `directory` (mode 0777 minus the
/// umask), like `mkdir -p`. The error names the first one that could not be
/// created.
Status createDirectories(const std::string &directory);

/// Renames the finished `tempPath` over `destination`, written through a
/// symlink as by resolveOutputPath, after checking again that the file it
/// replaces is no input. Every writer renames through this.
Status renameIntoPlace(const std::string &tempPath,
                       const std::string &destination);

/// Creates a new, empty file `path`.tmp.PID.N beside the file that writing
/// `path` replaces (resolveOutputPath), creating missing parent
/// directories, and returns its descriptor and name. Refused before
/// anything is created when that file is an input of this process
/// (checkNotAnInput) or exists and is not a regular file. When it exists,
/// the new file takes its permission bits and, where the process may give
/// them, its owner and group, so that replacing a file keeps what is the
/// user's; a new file gets 0666 minus the umask. Also sets SIGXFSZ to
/// SIG_IGN for the process, so that exceeding a file-size limit is an EFBIG
/// error instead of a kill.
Status createTempFileBeside(const std::string &path, int &fd,
                            std::string &tempPath);

/// Reserves `size` bytes for the file (posix_fallocate, or ftruncate where
/// the file system cannot allocate), so that a full disk or a file-size
/// limit is reported before any data is written. New bytes read as zero.
Status reserveFileSpace(int fd, uint64_t size, const std::string &path);

/// Optionally fsyncs `fd`, closes it (always), renames `tempPath` over
/// `path` (renameIntoPlace) and, with `fsync`, fsyncs the directory so the
/// rename is durable. `renamed` tells whether the rename happened (a later
/// fsync of the directory may still fail).
Status commitTempFile(int fd, const std::string &tempPath,
                      const std::string &path, bool fsync, bool &renamed);

/// Writes the file `path` as every sequential writer does: a temporary file
/// beside it (createTempFileBeside: never an input, through symlinks, the
/// replaced file's mode and owner kept), filled by `fill` (given the
/// descriptor and the temporary file's name), then commitTempFile. A failed
/// `fill` removes the temporary file and leaves `path` as it was.
Status writeFileAtomically(
    const std::string &path,
    const std::function<Status(int fd, const std::string &tempPath)> &fill,
    bool fsync = false);

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
