//===- LoadedFile.h - A whole file in memory, mapped or read -------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A module is used in place, so the whole file must be addressable. Two ways:
//
// - Mmap: a read-only shared mapping (MappedFile). Free on a local file
//   system whose pages are already cached; on network and user-space file
//   systems (NFS, SMB/CIFS, FUSE, ...) every page fault is a round trip, and
//   mapping is many times slower than reading.
// - Read: pread into aligned memory (allocated here, or the caller's),
//   large sequential reads, with the CRC-32 of the file computed chunk by
//   chunk while the bytes are still in the cache (with several threads, each
//   reads chunks in turn and sums its own, and the running CRCs are chained
//   with crc32Combine afterwards). The running CRC is kept at
//   every kCrcStride bytes, which gives the CRC of any byte range later from
//   at most 2 * kCrcStride bytes and one crc32Combine: verifying the entries
//   of a file that was read costs almost nothing more.
//
// Auto picks Read for the file systems listed in LoadedFile.cpp and Mmap
// elsewhere; the environment variable VMPACK_LOAD_MODE (mmap, read or auto)
// overrides that choice, and an explicit mode overrides both.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_LOADEDFILE_H
#define VMPACK_ARCHIVE_LOADEDFILE_H

#include "vmpack/Archive/MappedFile.h"
#include "vmpack/Archive/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vmpack::archive {

enum class LoadMode { Auto, Mmap, Read };

/// "auto", "mmap" or "read".
const char *loadModeName(LoadMode mode);

/// Read for network, cluster and user-space file systems (statfs f_type),
/// Mmap for everything else.
LoadMode loadModeForFileSystem(uint64_t fileSystemType);

/// The mode VMPACK_LOAD_MODE asks for: Auto when unset or empty; an error
/// naming the variable for anything but "auto", "mmap" or "read".
StatusOr<LoadMode> loadModeFromEnvironment();

struct LoadOptions {
  LoadMode mode = LoadMode::Auto;
  /// Read mode only: the caller's memory for the file (null: allocated
  /// here). Must be kIndexAlignment-aligned, at least the file's size, and
  /// outlive the LoadedFile.
  void *buffer = nullptr;
  size_t bufferSize = 0;
  /// Read mode only: threads that read 1 MiB chunks in turn, each summing
  /// the CRCs of its own (0: one per hardware thread). Two cores copy out
  /// of the page cache faster than one.
  unsigned threads = 0;
};

class LoadedFile {
public:
  /// Distance between the running CRCs kept while reading.
  static constexpr uint64_t kCrcStride = uint64_t(64) << 10;

  static StatusOr<std::unique_ptr<LoadedFile>>
  open(const std::string &path, const LoadOptions &options = {});
  ~LoadedFile();
  LoadedFile(const LoadedFile &) = delete;
  LoadedFile &operator=(const LoadedFile &) = delete;

  const uint8_t *data() const { return base; }
  size_t size() const { return length; }
  /// Mmap or Read: the mode actually used.
  LoadMode mode() const { return used; }

  /// True when the file was read, so rangeCrc is available.
  bool hasRangeCrcs() const { return used == LoadMode::Read; }
  /// The CRC-32 of bytes [offset, offset + size) of the file, from the CRCs
  /// computed while reading. The range must lie inside the file.
  uint32_t rangeCrc(uint64_t offset, uint64_t size) const;

private:
  LoadedFile() = default;
  uint32_t prefixCrc(uint64_t end) const;

  std::unique_ptr<MappedFile> mapped;
  detail::InputFileGuard guard; // read mode: the file read is an input
  uint8_t *owned = nullptr;     // anonymous memory of ownedLength bytes
  size_t ownedLength = 0;
  const uint8_t *base = nullptr;
  size_t length = 0;
  LoadMode used = LoadMode::Mmap;
  /// prefix[k]: the CRC-32 of bytes [0, k * kCrcStride).
  std::vector<uint32_t> prefix;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_LOADEDFILE_H
