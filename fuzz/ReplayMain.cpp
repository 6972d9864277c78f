//===- ReplayMain.cpp - Run a fuzz target over files, without libFuzzer ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: <target>-replay PATH...
//
// Feeds every regular file named, or found (recursively, in sorted order)
// under a directory named, to LLVMFuzzerTestOneInput once. Built with the
// ordinary compiler, so that CTest replays the checked-in corpus and every
// past crash in the Release and sanitizer builds, where libFuzzer is not
// available. A crash is the failure; the exit code is 0 otherwise, or 2 if
// a path cannot be read or nothing was replayed.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

static bool replayFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  // A fresh heap copy of exactly the file's size, as libFuzzer passes it.
  std::vector<uint8_t> copy(bytes);
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
    return 2;
  }
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto &entry : fs::recursive_directory_iterator(argv[i], ec))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(argv[i]);
    }
    if (ec) {
      std::fprintf(stderr, "error: cannot list '%s': %s\n", argv[i],
                   ec.message().c_str());
      return 2;
    }
    for (const fs::path &file : files) {
      if (!replayFile(file))
        return 2;
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  return replayed ? 0 : 2;
}
