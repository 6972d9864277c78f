//===- FormatsTestGen.cpp - Sample files for the interop tests ------------===//
//
// Usage: vmpack-formats-testgen safetensors OUT
//
// Writes one tensor of every sample type (SampleTensors.h) so that readers
// outside vmpack can check every byte against the pattern formula.
//
//===----------------------------------------------------------------------===//

#include "SampleTensors.h"
#include "vmpack/Formats/Safetensors.h"

#include <cstdio>
#include <string>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s safetensors OUT\n", argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  std::vector<OwnedTensor> tensors = sampleTensors();
  Status s = Status::error("unknown kind '" + kind + "'");
  if (kind == "safetensors")
    s = writeSafetensors(argv[2], sources(tensors), {{"format", "pt"}});
  if (!s) {
    std::fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
