//===- LoadedFile.cpp - A whole file in memory, mapped or read
//--------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/LoadedFile.h"

#include "vmpack/Archive/Checksum.h"
#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/Format.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <thread>
#include <unistd.h>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

namespace {

/// Bytes per pread: large enough for few system calls and for network file
/// systems' read-ahead, small enough that the CRC runs on cached bytes.
constexpr size_t kReadChunk = size_t(1) << 20;
static_assert(kReadChunk % LoadedFile::kCrcStride == 0,
              "reads end on CRC stride boundaries");

/// Closes a descriptor on every path out of a function.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads `size` bytes of `fd` into `buffer` on `threads` threads, which
/// take the 1 MiB chunks in turn and sum each CRC stride of theirs on its
/// own; the running CRCs are then chained from those with crc32Combine.
/// Two cores copy out of the page cache faster than one. `prefix` holds
/// its first entry (0) and gets one per complete stride.
Status readInParallel(int fd, const std::string &path, uint8_t *buffer,
                      uint64_t size, unsigned threads,
                      std::vector<uint32_t> &prefix) {
  const uint64_t stride = LoadedFile::kCrcStride;
  uint64_t chunks = (size + kReadChunk - 1) / kReadChunk;
  std::vector<uint32_t> strideCrcs(size / stride);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex errorMutex;
  uint64_t errorAt = UINT64_MAX; // guarded by errorMutex, with `error`
  Status error = Status::ok();
  auto fail = [&](uint64_t at, Status status) {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (at < errorAt) {
      errorAt = at;
      error = std::move(status);
    }
    failed.store(true);
  };
  auto work = [&] {
    while (!failed.load()) {
      uint64_t chunk = next.fetch_add(1);
      if (chunk >= chunks)
        return;
      uint64_t begin = chunk * kReadChunk;
      uint64_t end = std::min(size, begin + kReadChunk);
      for (uint64_t at = begin; at < end;) {
        ssize_t n = ::pread(fd, buffer + at, size_t(end - at), off_t(at));
        if (n < 0 && errno == EINTR)
          continue;
        if (n < 0)
          return fail(at, Status::ioError("cannot read '" + path +
                                          "' at offset " + std::to_string(at) +
                                          ": " + errnoText(errno)));
        if (n == 0)
          return fail(at, Status::ioError("'" + path +
                                          "' shrank while being read: " +
                                          std::to_string(at) + " of " +
                                          std::to_string(size) + " bytes"));
        at += uint64_t(n);
      }
      for (uint64_t at = begin; at + stride <= end; at += stride)
        strideCrcs[at / stride] = crc32Update(0, buffer + at, stride);
    }
  };
  std::vector<std::thread> helpers;
  try {
    for (unsigned i = 1; i < threads && i < chunks; ++i)
      helpers.emplace_back(work);
  } catch (...) {
    // Fewer threads than asked for: those started and this one read.
  }
  work();
  for (std::thread &helper : helpers)
    helper.join();
  if (failed.load())
    return error;
  for (uint32_t crc : strideCrcs)
    prefix.push_back(crc32Combine(prefix.back(), crc, stride));
  return Status::ok();
}

} // namespace

const char *vmpack::archive::loadModeName(LoadMode mode) {
  switch (mode) {
  case LoadMode::Auto:
    return "auto";
  case LoadMode::Mmap:
    return "mmap";
  case LoadMode::Read:
    return "read";
  }
  return "unknown";
}

LoadMode vmpack::archive::loadModeForFileSystem(uint64_t fileSystemType) {
  // Magic numbers from linux/magic.h and the file systems' own sources.
  switch (fileSystemType) {
  case 0x6969:     // NFS_SUPER_MAGIC
  case 0x517B:     // SMB_SUPER_MAGIC
  case 0xFF534D42: // CIFS_SUPER_MAGIC
  case 0xFE534D42: // SMB2_SUPER_MAGIC
  case 0x65735546: // FUSE_SUPER_MAGIC (sshfs, s3fs, gcsfuse, ...)
  case 0x00C36400: // CEPH_SUPER_MAGIC
  case 0x01021997: // V9FS_MAGIC (9p: WSL2, VMs' shared folders)
  case 0x5346414F: // AFS_SUPER_MAGIC
  case 0x6B414653: // AFS_FS_MAGIC (kAFS)
  case 0x73757245: // CODA_SUPER_MAGIC
  case 0x564C:     // NCP_SUPER_MAGIC
  case 0x01161970: // GFS2_MAGIC
  case 0x7461636F: // OCFS2_SUPER_MAGIC
  case 0x0BD00BD0: // LL_SUPER_MAGIC (Lustre)
  case 0x47504653: // GPFS_SUPER_MAGIC
  case 0x19830326: // FHGFS / BeeGFS
  case 0x786F4256: // VBOXSF_MAGIC (VirtualBox shared folders)
    return LoadMode::Read;
  default:
    return LoadMode::Mmap;
  }
}

StatusOr<LoadMode> vmpack::archive::loadModeFromEnvironment() {
  const char *value = std::getenv("VMPACK_LOAD_MODE");
  if (!value || !*value || std::strcmp(value, "auto") == 0)
    return LoadMode::Auto;
  if (std::strcmp(value, "mmap") == 0)
    return LoadMode::Mmap;
  if (std::strcmp(value, "read") == 0)
    return LoadMode::Read;
  std::string shown(value, strnlen(value, 64));
  return Status::invalidArgument("VMPACK_LOAD_MODE='" + shown +
                                 "' is not one of auto, mmap, read");
}

StatusOr<std::unique_ptr<LoadedFile>>
LoadedFile::open(const std::string &path, const LoadOptions &options) {
  if (options.buffer && options.mode != LoadMode::Read)
    return Status::invalidArgument(
        "a caller-provided buffer needs the read mode");
  LoadMode mode = options.mode;
  if (mode == LoadMode::Auto) {
    StatusOr<LoadMode> fromEnvironment = loadModeFromEnvironment();
    if (!fromEnvironment)
      return fromEnvironment.status();
    mode = *fromEnvironment;
  }
  if (mode == LoadMode::Auto) {
    struct statfs fs;
    if (::statfs(path.c_str(), &fs) != 0)
      return Status::ioError("cannot open '" + path + "': " + errnoText(errno));
    mode = loadModeForFileSystem(uint64_t(fs.f_type));
  }

  std::unique_ptr<LoadedFile> file(new LoadedFile());
  file->used = mode;
  if (mode == LoadMode::Mmap) {
    StatusOr<std::unique_ptr<MappedFile>> mapped = MappedFile::open(path);
    if (!mapped)
      return mapped.status();
    file->mapped = std::move(*mapped);
    file->base = file->mapped->data();
    file->length = file->mapped->size();
    return file;
  }

  FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0)
    return Status::ioError("cannot open '" + path + "': " + errnoText(errno));
  struct stat st;
  if (::fstat(fd.fd, &st) != 0)
    return Status::ioError("cannot stat '" + path + "': " + errnoText(errno));
  if (!S_ISREG(st.st_mode))
    return Status::ioError("'" + path + "' is not a regular file");
  file->guard = InputFileGuard::forDescriptor(fd.fd, path);
  if (uint64_t(st.st_size) > SIZE_MAX)
    return Status::ioError("'" + path + "' is too large to read into memory");
  size_t size = size_t(st.st_size);

  uint8_t *buffer;
  if (options.buffer) {
    buffer = static_cast<uint8_t *>(options.buffer);
    if (reinterpret_cast<uintptr_t>(buffer) % kIndexAlignment != 0)
      return Status::invalidArgument("the buffer for '" + path + "' must be " +
                                     std::to_string(kIndexAlignment) +
                                     "-byte aligned");
    if (options.bufferSize < size)
      return Status::ioError("'" + path + "' has " + std::to_string(size) +
                             " bytes, the buffer only " +
                             std::to_string(options.bufferSize));
  } else {
    // Anonymous memory aligned like the largest segment alignment, so
    // that segments are as aligned in memory as in the file: map extra and
    // unmap the ragged ends. MAP_POPULATE faults every page in one system
    // call (measured: 15-20% less system time than a fault per page while
    // reading); transparent huge pages are not requested, as synchronous
    // compaction made reading 1.5-2x slower here.
    size_t pages = (std::max<size_t>(size, 1) + 4095) & ~size_t(4095);
    size_t mapped = pages + kMaxAlignment;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
    void *p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
      return Status::outOfMemory("cannot allocate " + std::to_string(size) +
                                 " bytes to read '" + path +
                                 "': " + errnoText(errno));
    uintptr_t start = reinterpret_cast<uintptr_t>(p);
    uintptr_t aligned =
        (start + kMaxAlignment - 1) & ~uintptr_t(kMaxAlignment - 1);
    if (aligned > start)
      ::munmap(p, aligned - start);
    if (aligned + pages < start + mapped)
      ::munmap(reinterpret_cast<void *>(aligned + pages),
               start + mapped - (aligned + pages));
    file->owned = reinterpret_cast<uint8_t *>(aligned);
    file->ownedLength = pages;
    buffer = file->owned;
  }
  file->base = buffer;
  file->length = size;

  ::posix_fadvise(fd.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  file->prefix.reserve(size / kCrcStride + 1);
  file->prefix.push_back(0);
  unsigned threads =
      options.threads ? options.threads : std::thread::hardware_concurrency();
  if (threads > 1 && size > kReadChunk) {
    Status read =
        readInParallel(fd.fd, path, buffer, size, threads, file->prefix);
    if (!read.isOk())
      return read;
    return file;
  }
  uint32_t crc = 0;
  uint64_t crcEnd = 0; // bytes [0, crcEnd) are in `crc`
  uint64_t done = 0;
  while (done < size) {
    size_t want = size_t(std::min<uint64_t>(kReadChunk, size - done));
    ssize_t n = ::pread(fd.fd, buffer + done, want, off_t(done));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::ioError("cannot read '" + path + "' at offset " +
                             std::to_string(done) + ": " + errnoText(errno));
    }
    if (n == 0)
      return Status::ioError(
          "'" + path + "' shrank while being read: " + std::to_string(done) +
          " of " + std::to_string(size) + " bytes");
    done += uint64_t(n);
    // CRC the stride blocks this read completed, while they are cached.
    while (crcEnd + kCrcStride <= done) {
      crc = crc32Update(crc, buffer + crcEnd, kCrcStride);
      crcEnd += kCrcStride;
      file->prefix.push_back(crc);
    }
  }
  return file;
}

LoadedFile::~LoadedFile() {
  if (owned)
    ::munmap(owned, ownedLength);
}

uint32_t LoadedFile::prefixCrc(uint64_t end) const {
  uint64_t k = end / kCrcStride;
  uint64_t start = k * kCrcStride;
  return crc32Update(prefix[k], base + start, end - start);
}

uint32_t LoadedFile::rangeCrc(uint64_t offset, uint64_t size) const {
  // CRC(A B) = shift(CRC(A), |B|) ^ CRC(B), and crc32Combine(x, 0, n) is
  // shift(x, n): so CRC(B) = CRC(A B) ^ crc32Combine(CRC(A), 0, |B|).
  uint32_t before = prefixCrc(offset);
  uint32_t through = prefixCrc(offset + size);
  return through ^ crc32Combine(before, 0, size);
}
