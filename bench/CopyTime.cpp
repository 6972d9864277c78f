//===- CopyTime.cpp - Verbatim copies: pwrite against copy_file_range -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How vmpack-compile could copy bytes that it stores unchanged (an already
// packed input): from the mapped input with pwrite, as the archive writer
// does, or with copy_file_range from the input's descriptor. Either way the
// writer needs the bytes' CRC-32, so both are timed with the CRC read from
// the mapping too (pwrite in 1 MiB steps, each summed just before it is
// written; copy_file_range for the whole file after summing it). The runs are
// interleaved round-robin, each into a new output file (as a compile writes
// one); medians of wall time.
//
//   vmpack-copy-time INPUT OUTPUT_DIR [RUNS]
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Checksum.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr size_t kChunk = size_t(1) << 20;

[[noreturn]] void die(const char *what) {
  std::fprintf(stderr, "vmpack-copy-time: %s: %s\n", what,
               std::strerror(errno));
  std::exit(1);
}

uint32_t copyWithPwrite(const uint8_t *data, size_t size, int out, bool crc) {
  uint32_t sum = 0;
  for (size_t done = 0; done < size;) {
    size_t n = std::min(kChunk, size - done);
    if (crc)
      sum = vmpack::archive::crc32Update(sum, data + done, n);
    ssize_t w = ::pwrite(out, data + done, n, off_t(done));
    if (w <= 0)
      die("pwrite");
    done += size_t(w);
  }
  return sum;
}

uint32_t copyWithCopyFileRange(const uint8_t *data, size_t size, int in,
                               int out, bool crc) {
  uint32_t sum = 0;
  loff_t from = 0, to = 0;
  // The CRC first, then one call for the whole range (as vmpack-convert
  // copies a tensor): the kernel takes what it can per call.
  if (crc)
    sum = vmpack::archive::crc32Update(0, data, size);
  for (size_t done = 0; done < size;) {
    ssize_t w = ::copy_file_range(in, &from, out, &to, size - done, 0);
    if (w <= 0)
      die("copy_file_range");
    done += size_t(w);
  }
  return sum;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vmpack-copy-time INPUT OUTPUT_DIR [RUNS]\n");
    return 2;
  }
  int runs = argc > 3 ? std::atoi(argv[3]) : 7;
  int in = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  if (in < 0)
    die(argv[1]);
  struct stat st;
  if (::fstat(in, &st) != 0)
    die("fstat");
  size_t size = size_t(st.st_size);
  void *map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, in, 0);
  if (map == MAP_FAILED)
    die("mmap");
  const uint8_t *data = static_cast<const uint8_t *>(map);
  std::string out = std::string(argv[2]) + "/vmpack-copy-time.out";

  const char *names[] = {
      "pwrite from the mapping + CRC", "copy_file_range + CRC of the mapping",
      "pwrite from the mapping, no CRC", "copy_file_range, no CRC"};
  std::vector<double> seconds[4];
  uint32_t crcs[2] = {0, 0};
  for (int run = 0; run < runs; ++run)
    for (int way = 0; way < 4; ++way) {
      ::unlink(out.c_str());
      auto start = std::chrono::steady_clock::now();
      int fd =
          ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0)
        die("open output");
      bool crc = way < 2;
      uint32_t sum = way % 2 == 0
                         ? copyWithPwrite(data, size, fd, crc)
                         : copyWithCopyFileRange(data, size, in, fd, crc);
      ::close(fd);
      seconds[way].push_back(std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
      if (crc)
        crcs[way] = sum;
    }
  ::unlink(out.c_str());
  if (crcs[0] != crcs[1]) {
    std::fprintf(stderr, "vmpack-copy-time: the CRCs differ\n");
    return 1;
  }
  std::printf("%zu bytes, %d interleaved runs, median wall seconds:\n", size,
              runs);
  for (int way = 0; way < 4; ++way) {
    std::vector<double> &s = seconds[way];
    std::sort(s.begin(), s.end());
    std::printf("  %-38s %.4f (%.4f-%.4f)\n", names[way], s[s.size() / 2],
                s.front(), s.back());
  }
  return 0;
}
