//===- FileIO.cpp - Small POSIX helpers with readable errors ----------------===//

#include "FileIO.h"

#include <cerrno>
#include <system_error>
#include <unistd.h>

using namespace vmpack::archive;

std::string vmpack::archive::detail::errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

Status vmpack::archive::detail::pwriteAll(int fd, const void *data,
                                          size_t size, uint64_t offset,
                                          const std::string &what) {
  const auto *p = static_cast<const char *>(data);
  while (size > 0) {
    // Linux writes at most ~2 GiB per call anyway.
    size_t step = size < (size_t(1) << 30) ? size : (size_t(1) << 30);
    ssize_t n = ::pwrite(fd, p, step, off_t(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::error(what + " at file offset " + std::to_string(offset) +
                           ": " + errnoText(errno));
    }
    if (n == 0)
      return Status::error(what + " at file offset " + std::to_string(offset) +
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
