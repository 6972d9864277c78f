//===- MappedFile.cpp - A read-only memory map of a whole file
//---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/MappedFile.h"

#include "vmpack/Archive/FileIO.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

StatusOr<std::unique_ptr<MappedFile>>
MappedFile::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::ioError("cannot open '" + path + "': " + errnoText(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::ioError("cannot stat '" + path + "': " + errnoText(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::ioError("'" + path + "' is not a regular file");
  }
  if (st.st_size == 0) {
    // mmap refuses length 0. An empty view lets the reader say what is
    // wrong with the file (a format error), as for any other short file.
    InputFileGuard guard = InputFileGuard::forDescriptor(fd, path);
    ::close(fd);
    alignas(64) static const uint8_t kEmpty[1] = {0};
    std::unique_ptr<MappedFile> file(new MappedFile(kEmpty, 0));
    file->guard = std::move(guard);
    return file;
  }
  size_t size = size_t(st.st_size);
  void *p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  int err = errno;
  InputFileGuard guard = InputFileGuard::forDescriptor(fd, path);
  ::close(fd); // the mapping keeps the file alive
  if (p == MAP_FAILED)
    return Status::ioError("cannot map '" + path + "': " + errnoText(err));
  std::unique_ptr<MappedFile> file(
      new MappedFile(static_cast<const uint8_t *>(p), size));
  file->guard = std::move(guard);
  return file;
}

MappedFile::~MappedFile() {
  if (length)
    ::munmap(const_cast<uint8_t *>(base), length);
}
