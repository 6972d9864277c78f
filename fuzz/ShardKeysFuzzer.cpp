//===- ShardKeysFuzzer.cpp - Fuzz target: the .vmpk shard keys ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The vmpack.shard.* keys of a module's metadata (docs/format.md section
// 9). An input starting with a ZIP local header is a module: opened by the
// archive reader, its metadata goes to readVmpkShardKeys, and the same
// bytes to vmpack_module_open_memory, which must agree: malformed keys are
// VMPACK_ERROR_FORMAT, a shard of a set of two or more is refused with
// VMPACK_ERROR_UNSUPPORTED naming its place, anything else opens as the
// reader sees it. Any other input is metadata as text, one KEY=VALUE pair
// per line, straight to readVmpkShardKeys: what it accepts must be in range
// and spelled exactly as the decimal of the values it returns.
//
//===----------------------------------------------------------------------===//

#include "AlignedInput.h"
#include "FuzzCheck.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/vmpack.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using vmpack::fuzz::check;
using namespace vmpack;
using namespace vmpack::formats;

namespace {

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

/// The value of the last pair named `key` (readVmpkShardKeys takes the
/// last), or null.
const std::string *lastValue(const Pairs &pairs, std::string_view key) {
  const std::string *found = nullptr;
  for (const auto &[k, v] : pairs)
    if (k == key)
      found = &v;
  return found;
}

/// What readVmpkShardKeys says about `pairs` must follow its contract.
StatusOr<std::optional<VmpkShardKeys>> checkedKeys(const Pairs &pairs) {
  StatusOr<std::optional<VmpkShardKeys>> keys = readVmpkShardKeys(pairs);
  const std::string *no = lastValue(pairs, kVmpkShardNoKey);
  const std::string *count = lastValue(pairs, kVmpkShardCountKey);
  const std::string *segments = lastValue(pairs, kVmpkShardSegmentsKey);
  if (!keys) {
    check(no || count || segments);
    check(contains(keys.status().message(), "describes a shard set badly"));
    return keys;
  }
  if (!*keys) {
    check(!no && !count && !segments);
    return keys;
  }
  const VmpkShardKeys &k = **keys;
  check(no && count && segments);
  check(1 <= k.number && k.number <= k.count && k.count <= 99999);
  check(k.segments <= UINT32_MAX);
  check(*no == std::to_string(k.number));
  check(*count == std::to_string(k.count));
  check(*segments == std::to_string(k.segments));
  for (std::string_view key : kVmpkShardKeys)
    check(isSetKey(key));
  return keys;
}

void fuzzModule(const uint8_t *data, size_t size) {
  vmpack::fuzz::AlignedInput input(data, size);
  StatusOr<std::unique_ptr<archive::ArchiveReader>> reader =
      archive::ArchiveReader::open(input.data(), input.size());
  vmpack_module_t *module = nullptr;
  vmpack_status_t st =
      vmpack_module_open_memory(input.data(), input.size(), &module);
  check((st == VMPACK_OK) == (module != nullptr));
  if (!reader) {
    check(st != VMPACK_OK);
    // The runtime takes the archive reader for anything that is neither
    // GGUF nor safetensors by its first bytes, and reports its refusal as
    // it is (a byte 8 of '{' makes the input safetensors to the runtime).
    if (input.size() < 9 || input.data()[8] != '{')
      check(st == vmpack_status_t(int(reader.status().code())) &&
            reader.status().message() == vmpack_last_error());
    return;
  }
  StatusOr<std::optional<VmpkShardKeys>> keys =
      checkedKeys((*reader)->metadata());
  if (!keys) {
    check(st == VMPACK_ERROR_FORMAT);
    check(contains(vmpack_last_error(), "describes a shard set badly"));
  } else if (*keys && (*keys)->count > 1) {
    check(st == VMPACK_ERROR_UNSUPPORTED);
    check(contains(vmpack_last_error(),
                   "file " + std::to_string((*keys)->number) + " of " +
                       std::to_string((*keys)->count) + " of a .vmpk set"));
  } else if (st == VMPACK_OK) {
    check(vmpack_module_segment_count(module) == (*reader)->numConstants());
    check(vmpack_module_file_count(module) == 1);
    for (size_t i = 0; i < vmpack_module_metadata_count(module); ++i) {
      vmpack_metadata_entry_t e;
      check(vmpack_module_metadata_entry(module, i, &e) == VMPACK_OK);
    }
  }
  vmpack_module_close(module);
}

void fuzzText(const uint8_t *data, size_t size) {
  Pairs pairs;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos)
      pairs.emplace_back(std::string(line.substr(0, eq)),
                         std::string(line.substr(eq + 1)));
    if (end == std::string_view::npos)
      break;
    text.remove_prefix(end + 1);
  }
  (void)checkedKeys(pairs);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t kZipLocalHeader[4] = {'P', 'K', 3, 4};
  if (size >= 4 && std::memcmp(data, kZipLocalHeader, 4) == 0)
    fuzzModule(data, size);
  else
    fuzzText(data, size);
  return 0;
}
