//===- SafetensorsIndexFuzzer.cpp - Fuzz target: the shard index ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to readSafetensorsIndex. What it accepts must map
// every tensor to a plain .safetensors file name in the index's own
// directory (no '/', '\', control characters, "." or ".."), list each
// distinct file once, sorted, and be written back by safetensorsIndexText
// as an index that reads the same.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/Shards.h"

#include <algorithm>
#include <cstdlib>
#include <set>

using vmpack::fuzz::check;
using namespace vmpack::formats;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StatusOr<SafetensorsIndex> index = readSafetensorsIndex(data, size);
  if (!index) {
    check(!index.status().message().empty());
    return 0;
  }
  check(!index->weightMap.empty());
  std::set<std::string> files;
  for (const auto &[tensor, file] : index->weightMap) {
    check(file.size() > 12 && file.size() <= 255);
    check(file.compare(file.size() - 12, 12, ".safetensors") == 0);
    for (char c : file)
      check(c != '/' && c != '\\' && (unsigned char)c >= 0x20 && c != 0x7f);
    files.insert(file);
  }
  check(std::vector<std::string>(files.begin(), files.end()) == index->files);
  std::string text =
      safetensorsIndexText(index->totalSize.value_or(0), index->weightMap);
  StatusOr<SafetensorsIndex> again = readSafetensorsIndex(
      reinterpret_cast<const uint8_t *>(text.data()), text.size());
  check(again.isOk());
  check(again->files == index->files);
  auto sorted = index->weightMap;
  std::sort(sorted.begin(), sorted.end());
  check(again->weightMap == sorted);
  return 0;
}
