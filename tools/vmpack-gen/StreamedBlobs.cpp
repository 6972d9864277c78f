//===- StreamedBlobs.cpp - Blobs produced while they are written ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "StreamedBlobs.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/mman.h>

using namespace vmpack::gen;

StreamedBlobs::~StreamedBlobs() {
  for (auto &[begin, blob] : blobs)
    ::munmap(const_cast<char *>(begin), blob.reserved);
}

llvm::ArrayRef<char> StreamedBlobs::add(uint64_t size, Fill fill) {
  uint64_t page = llvm::sys::Process::getPageSizeEstimate();
  uint64_t reserved = std::max<uint64_t>((size + page - 1) / page * page, page);
  // Address space only: no access, no swap or commit charge, no pages.
  void *p = ::mmap(nullptr, reserved, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    llvm::report_fatal_error(
        "vmpack-gen: cannot reserve " + llvm::Twine(reserved) +
        " bytes of address space: " + std::strerror(errno));
  const char *begin = static_cast<const char *>(p);
  blobs.emplace(begin, Blob{size, reserved, std::move(fill)});
  return {begin, static_cast<size_t>(size)};
}

void StreamedBlobs::write(const char *data, size_t size,
                          llvm::raw_ostream &os) {
  while (size) {
    // The blob holding `data`, if any: the last one starting at or before
    // it, if `data` is inside it. Other memory never overlaps a blob's
    // reservation.
    auto it = blobs.upper_bound(data);
    if (it == blobs.begin() ||
        data >= std::prev(it)->first + std::prev(it)->second.size) {
      os.write(data, size);
      return;
    }
    --it;
    const Blob &blob = it->second;
    uint64_t offset = data - it->first;
    uint64_t count = std::min<uint64_t>(size, blob.size - offset);
    if (chunk.empty())
      chunk.resize(kChunkBytes);
    for (uint64_t done = 0; done < count;) {
      uint64_t at = offset + done;
      uint64_t chunkStart = at / kChunkBytes * kChunkBytes;
      uint64_t chunkSize = std::min(kChunkBytes, blob.size - chunkStart);
      blob.fill(chunkStart, chunk.data(), chunkSize);
      uint64_t from = at - chunkStart;
      uint64_t n = std::min(chunkSize - from, count - done);
      os.write(reinterpret_cast<const char *>(chunk.data()) + from, n);
      done += n;
    }
    data += count;
    size -= count;
  }
}
