//===- ArchiveTestGen.cpp - Writes the lit suite's sample module ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-archive-testgen OUT [--threads N] [--seed S] [--program TEXT]
//                         [--small]
//
// A test-only tool (not installed, not in tools/): the lit tests need a
// module without depending on the MLIR compiler.
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace vmpack::archive;
using namespace vmpack::archive::testing;

int main(int argc, char **argv) {
  std::string out;
  unsigned threads = 1;
  uint64_t seed = 1;
  std::string program = "vmpack sample program\n";
  bool small = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--threads")
      threads = unsigned(std::strtoul(next(), nullptr, 10));
    else if (arg == "--seed")
      seed = std::strtoull(next(), nullptr, 10);
    else if (arg == "--program")
      program = next();
    else if (arg == "--small")
      small = true;
    else if (out.empty() && arg[0] != '-')
      out = arg;
    else {
      std::fprintf(stderr, "usage: vmpack-archive-testgen OUT [--threads N] "
                           "[--seed S] [--program TEXT] [--small]\n");
      return 2;
    }
  }
  if (out.empty() || threads == 0) {
    std::fprintf(stderr, "usage: vmpack-archive-testgen OUT [--threads N] "
                         "[--seed S] [--program TEXT] [--small]\n");
    return 2;
  }
  Status st = writeModule(
      out, small ? "small" : "sample",
      small ? smallSampleSegments() : sampleSegments(), program, threads, seed,
      small ? smallSampleAliases() : std::vector<AliasDesc>{});
  if (!st) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
