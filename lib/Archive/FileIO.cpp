//===- FileIO.cpp - Small POSIX helpers with readable errors --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/FileIO.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <limits>
#include <system_error>
#include <unistd.h>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

std::string vmpack::archive::detail::errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

Status vmpack::archive::detail::pwriteAll(int fd, const void *data, size_t size,
                                          uint64_t offset,
                                          const std::string &what) {
  const auto *p = static_cast<const char *>(data);
  while (size > 0) {
    // Linux writes at most ~2 GiB per call anyway.
    size_t step = size < (size_t(1) << 30) ? size : (size_t(1) << 30);
    ssize_t n = ::pwrite(fd, p, step, off_t(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::ioError(what + " at file offset " +
                             std::to_string(offset) + ": " + errnoText(errno));
    }
    if (n == 0)
      return Status::ioError(what + " at file offset " +
                             std::to_string(offset) +
                             ": the write made no progress");
    p += n;
    size -= size_t(n);
    offset += uint64_t(n);
  }
  return Status::ok();
}

std::string vmpack::archive::detail::parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

Status vmpack::archive::detail::createTempFileBeside(const std::string &path,
                                                     int &fd,
                                                     std::string &tempPath) {
  if (path.empty())
    return Status::ioError("empty output path");
  // A file-size limit must surface as EFBIG from pwrite, not kill us.
  std::signal(SIGXFSZ, SIG_IGN);
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0;; ++attempt) {
    std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." +
                       std::to_string(counter++);
    // 0666 minus the umask, like any file the user creates.
    int f = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f >= 0) {
      fd = f;
      tempPath = std::move(temp);
      return Status::ok();
    }
    if (errno != EEXIST || attempt > 100)
      return Status::ioError("cannot create a temporary file in '" +
                             parentDirectory(path) + "' for '" + path +
                             "': " + errnoText(errno));
  }
}

Status vmpack::archive::detail::reserveFileSpace(int fd, uint64_t size,
                                                 const std::string &path) {
  if (size > uint64_t(std::numeric_limits<off_t>::max()))
    return Status::ioError("cannot reserve " + std::to_string(size) +
                           " bytes for '" + path + "': too large a file");
  int err = ::posix_fallocate(fd, 0, off_t(size));
  if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) {
    if (::ftruncate(fd, off_t(size)) != 0)
      err = errno;
    else
      err = 0;
  }
  if (err != 0)
    return Status::ioError("cannot reserve " + std::to_string(size) +
                           " bytes for '" + path + "': " + errnoText(err));
  return Status::ok();
}

Status vmpack::archive::detail::commitTempFile(int fd,
                                               const std::string &tempPath,
                                               const std::string &path,
                                               bool fsync, bool &renamed) {
  renamed = false;
  if (fsync && ::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return Status::ioError("fsync of '" + tempPath + "': " + errnoText(err));
  }
  if (::close(fd) != 0)
    return Status::ioError("closing '" + tempPath + "': " + errnoText(errno));
  if (::rename(tempPath.c_str(), path.c_str()) != 0)
    return Status::ioError("renaming '" + tempPath + "' to '" + path +
                           "': " + errnoText(errno));
  renamed = true;
  if (!fsync)
    return Status::ok();
  // Make the rename itself durable.
  std::string dir = parentDirectory(path);
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    return Status::ioError("opening directory '" + dir +
                           "' to fsync it: " + errnoText(errno));
  int rc = ::fsync(dirFd);
  int err = errno;
  ::close(dirFd);
  if (rc != 0)
    return Status::ioError("fsync of directory '" + dir +
                           "': " + errnoText(err));
  return Status::ok();
}

TempOutput::~TempOutput() {
  if (fileFd >= 0)
    ::close(fileFd);
  if (!renamed) {
    std::lock_guard<std::mutex> lock(mutex);
    removeTempLocked();
  }
}

Status TempOutput::create(const std::string &path) {
  destination = path;
  return createTempFileBeside(path, fileFd, tempPath);
}

Status TempOutput::fail(Status status) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!failedFlag.exchange(true)) {
    error = std::move(status);
    removeTempLocked();
  }
  return error;
}

Status TempOutput::firstError() {
  std::lock_guard<std::mutex> lock(mutex);
  return error;
}

Status TempOutput::commit(bool fsync) {
  int fd = fileFd;
  fileFd = -1;
  Status committed = commitTempFile(fd, tempPath, destination, fsync, renamed);
  if (!renamed && !committed)
    return fail(committed);
  return committed;
}

void TempOutput::removeTempLocked() {
  if (!tempRemoved && !tempPath.empty()) {
    ::unlink(tempPath.c_str());
    tempRemoved = true;
  }
}
