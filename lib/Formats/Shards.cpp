//===- Shards.cpp - Sharded weight files: sets of numbered files ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The index is parsed by nlohmann/json with a callback that bounds nesting
// and rejects duplicate keys before any deep value is built, as the
// safetensors header is; its exceptions never leave this file.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Shards.h"

#include "BoundedJson.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/MappedFile.h"
#include "vmpack/Formats/OutputFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <dirent.h>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

constexpr unsigned kMaxShards = 99999; // five digits in the names

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Names in messages: quoted, control characters escaped, truncated.
std::string dirOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string baseOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// " ('FIRST')" when `path` is named as shards are, else "".
std::string firstFileHint(std::string_view path, std::string_view ext) {
  std::optional<std::string> first = firstShardPath(path, ext);
  return first ? " ('" + *first + "')" : std::string();
}

} // namespace

std::optional<uint64_t> vmpack::formats::parseShardSize(std::string_view text) {
  size_t digits = 0;
  uint64_t n = 0;
  while (digits < text.size() && std::isdigit((unsigned char)text[digits])) {
    unsigned d = unsigned(text[digits] - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - d) / 10)
      return std::nullopt;
    n = n * 10 + d;
    ++digits;
  }
  if (digits == 0)
    return std::nullopt;
  std::string suffix;
  for (char c : text.substr(digits))
    suffix += char(std::tolower((unsigned char)c));
  static const std::map<std::string, uint64_t> kUnits = {
      {"", 1},
      {"b", 1},
      {"k", 1000},
      {"kb", 1000},
      {"m", 1000'000},
      {"mb", 1000'000},
      {"g", 1000'000'000},
      {"gb", 1000'000'000},
      {"t", 1000'000'000'000},
      {"tb", 1000'000'000'000},
      {"kib", uint64_t(1) << 10},
      {"mib", uint64_t(1) << 20},
      {"gib", uint64_t(1) << 30},
      {"tib", uint64_t(1) << 40}};
  auto unit = kUnits.find(suffix);
  if (unit == kUnits.end() || n == 0 ||
      n > std::numeric_limits<uint64_t>::max() / unit->second)
    return std::nullopt;
  return n * unit->second;
}

std::vector<size_t>
vmpack::formats::planShards(const std::vector<uint64_t> &sizes,
                            uint64_t maxBytes) {
  std::vector<size_t> shard(sizes.size());
  size_t current = 0;
  uint64_t used = 0;
  bool empty = true;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!empty && (sizes[i] > maxBytes || used > maxBytes - sizes[i])) {
      ++current;
      used = 0;
      empty = true;
    }
    shard[i] = current;
    used += sizes[i];
    empty = false;
    // A tensor above the limit fills its shard on its own.
    if (sizes[i] > maxBytes)
      used = maxBytes;
  }
  return shard;
}

std::string vmpack::formats::shardFileName(std::string_view stem,
                                           unsigned number, unsigned count,
                                           std::string_view ext) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%05u-of-%05u", number, count);
  return std::string(stem) + buf + std::string(ext);
}

std::optional<ShardName> vmpack::formats::parseShardName(std::string_view path,
                                                         std::string_view ext) {
  // "-NNNNN-of-NNNNN" is 15 characters.
  if (!endsWith(path, ext) || path.size() < ext.size() + 15)
    return std::nullopt;
  std::string_view tail = path.substr(path.size() - ext.size() - 15, 15);
  auto number = [](std::string_view d) -> std::optional<unsigned> {
    unsigned v = 0;
    for (char c : d) {
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + unsigned(c - '0');
    }
    return v;
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-")
    return std::nullopt;
  std::optional<unsigned> k = number(tail.substr(1, 5));
  std::optional<unsigned> n = number(tail.substr(10, 5));
  if (!k || !n || *k == 0 || *k > *n)
    return std::nullopt;
  ShardName out;
  out.stem = std::string(path.substr(0, path.size() - ext.size() - 15));
  out.number = *k;
  out.count = *n;
  return out;
}

bool vmpack::formats::isSetKey(std::string_view key) {
  for (std::string_view k : kGgufSplitKeys)
    if (key == k)
      return true;
  for (std::string_view k : kVmpkShardKeys)
    if (key == k)
      return true;
  return false;
}

namespace {

/// The value of a GGUF key holding one non-negative integer, else nullopt.
std::optional<uint64_t> ggufUnsigned(const GgufKeyValue &kv) {
  GgufType t = kv.value.type;
  unsigned bytes = ggufScalarBytes(t);
  if (bytes == 0 || t == GgufType::Float32 || t == GgufType::Float64 ||
      t == GgufType::Bool || kv.value.scalars.size() != 1)
    return std::nullopt;
  uint64_t v = kv.value.scalars.front();
  if (ggufIsSigned(t) && ((v >> (8 * bytes - 1)) & 1))
    return std::nullopt; // negative
  return v;
}

/// split.no and split.count, where each is a non-negative integer.
std::pair<std::optional<uint64_t>, std::optional<uint64_t>>
ggufSplitNumbers(const GgufMetadata &metadata) {
  std::optional<uint64_t> no, count;
  for (const GgufKeyValue &kv : metadata)
    if (kv.key == kGgufSplitNoKey || kv.key == kGgufSplitCountKey)
      if (std::optional<uint64_t> v = ggufUnsigned(kv))
        (kv.key == kGgufSplitNoKey ? no : count) = *v;
  return {no, count};
}

} // namespace

std::optional<SetPosition>
vmpack::formats::ggufSplitPosition(const GgufMetadata &metadata) {
  auto [no, count] = ggufSplitNumbers(metadata);
  if (!count || *count <= 1)
    return std::nullopt;
  // A count past what names can hold (kMaxShards) is still a set member;
  // opening it as a set says what is wrong.
  constexpr uint64_t kMaxCount = std::numeric_limits<unsigned>::max();
  SetPosition p;
  p.count = unsigned(std::min<uint64_t>(*count, kMaxCount));
  p.number = no && *no < *count && *no < kMaxCount ? unsigned(*no) + 1 : 0;
  return p;
}

std::optional<std::string>
vmpack::formats::firstShardPath(std::string_view path, std::string_view ext) {
  std::optional<ShardName> name = parseShardName(path, ext);
  if (!name)
    return std::nullopt;
  return shardFileName(name->stem, 1, name->count, ext);
}

//===----------------------------------------------------------------------===//
// The safetensors index
//===----------------------------------------------------------------------===//

StatusOr<SafetensorsIndex>
vmpack::formats::readSafetensorsIndex(const uint8_t *data, size_t size,
                                      const SafetensorsIndexLimits &limits) {
  using json = nlohmann::json;
  auto fail = [](const std::string &what) {
    return Status::formatError("safetensors index: " + what);
  };
  if (size > limits.maxBytes)
    return fail("the file is " + std::to_string(size) +
                " bytes, more than the limit of " +
                std::to_string(limits.maxBytes));
  StatusOr<json> parsed =
      parseBoundedJson(data, size, limits.maxDepth, "the JSON");
  if (!parsed)
    return fail(parsed.status().message());
  json root = std::move(*parsed);
  if (!root.is_object())
    return fail("not a JSON object");
  SafetensorsIndex index;
  auto meta = root.find("metadata");
  if (meta != root.end()) {
    if (!meta->is_object())
      return fail("\"metadata\" is not an object");
    auto total = meta->find("total_size");
    if (total != meta->end()) {
      if (total->is_number_unsigned())
        index.totalSize = total->get<uint64_t>();
      else if (total->is_number_integer() && total->get<int64_t>() >= 0)
        index.totalSize = uint64_t(total->get<int64_t>());
      else
        return fail("metadata.total_size is " + total->dump() +
                    ", not a byte count");
    }
  }
  auto map = root.find("weight_map");
  if (map == root.end() || !map->is_object())
    return fail("there is no \"weight_map\" object");
  if (map->empty())
    return fail("\"weight_map\" lists no tensors");
  std::set<std::string> files;
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (!it->is_string())
      return fail("weight_map: tensor " + quoteName(it.key()) + " maps to " +
                  it->dump().substr(0, 100) + ", not a file name");
    const std::string &file = it->get_ref<const std::string &>();
    bool plain = !file.empty() && file.size() <= 255 && file != "." &&
                 file != ".." && endsWith(file, ".safetensors") &&
                 file.size() > std::string_view(".safetensors").size();
    for (char c : file)
      plain &= c != '/' && c != '\\' && (unsigned char)c >= 0x20 && c != 0x7f;
    if (!plain)
      return fail("weight_map: tensor " + quoteName(it.key()) + " maps to " +
                  quoteName(file) +
                  ", which is not a .safetensors file name in the index's "
                  "directory (no '/', '\\', '..' or control characters)");
    if (files.insert(file).second && files.size() > limits.maxFiles)
      return fail("weight_map names more than " +
                  std::to_string(limits.maxFiles) + " files");
    index.weightMap.emplace_back(it.key(), file);
  }
  index.files.assign(files.begin(), files.end());
  return index;
}

std::string vmpack::formats::safetensorsIndexText(
    uint64_t totalSize,
    const std::vector<std::pair<std::string, std::string>> &weightMap) {
  // nlohmann::json keeps object keys sorted by their bytes, which for UTF-8
  // is Python's sort_keys order; dump(2) with ASCII escapes is
  // json.dumps(indent=2) with its default ensure_ascii.
  nlohmann::json index;
  index["metadata"]["total_size"] = totalSize;
  index["weight_map"] = nlohmann::json::object();
  for (const auto &[tensor, file] : weightMap)
    index["weight_map"][tensor] = file;
  return index.dump(2, ' ', /*ensure_ascii=*/true) + "\n";
}

//===----------------------------------------------------------------------===//
// Writing sets
//===----------------------------------------------------------------------===//

namespace {

/// The shards of `tensors` as lists of sources, given each one's bytes.
StatusOr<std::vector<std::vector<TensorSource>>>
splitTensors(const std::vector<TensorSource> &tensors,
             const std::vector<uint64_t> &sizes, uint64_t maxBytes,
             unsigned maxCount) {
  std::vector<size_t> shard = planShards(sizes, maxBytes);
  size_t count = shard.empty() ? 1 : shard.back() + 1;
  if (count > maxCount)
    return Status::invalidArgument(
        "--max-shard-size " + std::to_string(maxBytes) + " gives " +
        std::to_string(count) + " shards, more than the " +
        std::to_string(maxCount) + " the naming allows");
  std::vector<std::vector<TensorSource>> out(count);
  for (size_t i = 0; i < tensors.size(); ++i)
    out[shard[i]].push_back(tensors[i]);
  return out;
}

/// The files of older sets that a new set of `count` files named
/// STEM-K-of-N`ext` replaces but does not have: files beside it named
/// STEM-K-of-M`ext` with M != `count` that carry that set's keys (GGUF:
/// split.no = K - 1 and split.count = M; .vmpk: vmpack.shard.no = K and
/// .count = M) or, for safetensors, that the index being replaced names.
/// A safetensors set of one file has no index, so the old index is stale
/// too. Files that do not parse, or whose keys say otherwise, are not
/// another set's and stay. Refused, before anything is written, when one
/// of them is an input of this process.
StatusOr<std::vector<std::string>>
staleSetFiles(const std::string &stem, std::string_view ext, unsigned count) {
  std::vector<std::string> stale;
  std::string dir = dirOf(stem);
  std::string name = baseOf(stem);
  bool safetensors = ext == ".safetensors";
  std::set<std::string> indexed; // safetensors: the old index's files
  std::string indexPath = stem + std::string(kSafetensorsIndexSuffix);
  if (safetensors && exists(indexPath)) {
    StatusOr<std::unique_ptr<archive::MappedFile>> map =
        archive::MappedFile::open(indexPath);
    StatusOr<SafetensorsIndex> index =
        map ? readSafetensorsIndex((*map)->data(), (*map)->size())
            : StatusOr<SafetensorsIndex>(map.status());
    if (index) {
      indexed.insert(index->files.begin(), index->files.end());
      if (count == 1)
        stale.push_back(indexPath);
    }
  }
  DIR *d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d) {
    std::vector<std::string> names;
    while (struct dirent *e = ::readdir(d))
      names.emplace_back(e->d_name);
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string &entry : names) {
      std::optional<ShardName> shard = parseShardName(entry, ext);
      if (!shard || shard->stem != name || shard->count == count)
        continue;
      std::string path = dir + entry;
      bool member = false;
      if (safetensors) {
        member = indexed.count(entry) != 0;
      } else {
        StatusOr<std::unique_ptr<WeightFile>> f = openWeightFile(
            path, ext == ".gguf" ? FileFormat::Gguf : FileFormat::Vmpk);
        if (f && ext == ".gguf") {
          auto [no, n] = ggufSplitNumbers((*f)->ggufMetadata);
          member = no && n && *no + 1 == shard->number && *n == shard->count;
        } else if (f) {
          StatusOr<std::optional<VmpkShardKeys>> keys =
              readVmpkShardKeys((*f)->stringMetadata);
          member = keys && *keys && (**keys).number == shard->number &&
                   (**keys).count == shard->count;
        }
      }
      if (member)
        stale.push_back(path);
    }
  }
  for (const std::string &path : stale)
    if (Status s = archive::detail::checkNotAnInput(
            path,
            "file of the older set '" + stem + std::string(ext) + "' to remove",
            "write the new set to another name or directory");
        !s)
      return s;
  return stale;
}

} // namespace

StatusOr<std::vector<std::string>> vmpack::formats::writeShardedSafetensors(
    const std::string &path, const std::vector<TensorSource> &tensors,
    const StringMetadata &metadata, uint64_t maxBytes) {
  std::string stem;
  if (endsWith(path, kSafetensorsIndexSuffix))
    stem = path.substr(0, path.size() - kSafetensorsIndexSuffix.size());
  else if (endsWith(path, ".safetensors"))
    stem =
        path.substr(0, path.size() - std::string_view(".safetensors").size());
  else
    return Status::invalidArgument(
        "a sharded safetensors output is named "
        "NAME.safetensors or NAME.safetensors.index.json, "
        "not '" +
        path + "'");
  if (stem.empty() || stem.back() == '/')
    return Status::invalidArgument("'" + path +
                                   "' has no NAME before .safetensors");
  std::vector<uint64_t> sizes;
  uint64_t total = 0;
  for (const TensorSource &t : tensors) {
    StatusOr<uint64_t> n = safetensorsStoredBytes(t.info);
    if (!n)
      return n.status();
    sizes.push_back(*n);
    total += *n; // each is below 2^63 and so is their count; checked below
    if (total < *n)
      return Status::invalidArgument("the tensors' total size overflows");
  }
  StatusOr<std::vector<std::vector<TensorSource>>> shards =
      splitTensors(tensors, sizes, maxBytes, kMaxShards);
  if (!shards)
    return shards.status();
  OutputGroup group;
  unsigned count = unsigned(shards->size());
  StatusOr<std::vector<std::string>> stale =
      staleSetFiles(stem, ".safetensors", count);
  if (!stale)
    return stale.status();
  for (std::string &file : *stale)
    group.removeOnCommit(std::move(file));
  if (count == 1) {
    if (Status s =
            writeSafetensors(stem + ".safetensors", tensors, metadata, &group);
        !s)
      return s;
  } else {
    std::vector<std::pair<std::string, std::string>> weightMap;
    for (unsigned k = 0; k < count; ++k) {
      std::string file = shardFileName(stem, k + 1, count, ".safetensors");
      if (Status s = writeSafetensors(file, (*shards)[k], metadata, &group); !s)
        return s;
      for (const TensorSource &t : (*shards)[k])
        weightMap.emplace_back(t.info.name, baseOf(file));
    }
    std::string text = safetensorsIndexText(total, weightMap);
    std::string indexPath = stem + std::string(kSafetensorsIndexSuffix);
    StatusOr<std::unique_ptr<OutputFile>> index =
        OutputFile::create(indexPath, text.size(), &group);
    if (!index)
      return index.status();
    if (Status s = (*index)->write(0, text.data(), text.size()); !s)
      return s;
    if (Status s = (*index)->commit(); !s)
      return s;
  }
  if (Status s = group.commitAll(); !s)
    return s;
  return group.destinations();
}

StatusOr<std::vector<std::string>> vmpack::formats::writeShardedGguf(
    const std::string &path, const std::vector<TensorSource> &tensors,
    const GgufMetadata &metadata, uint64_t maxBytes) {
  if (!endsWith(path, ".gguf") || path.size() == 5 ||
      path[path.size() - 6] == '/')
    return Status::invalidArgument(
        "a sharded GGUF output is named NAME.gguf, not '" + path + "'");
  std::string stem = path.substr(0, path.size() - 5);
  uint64_t alignment = kGgufDefaultAlignment;
  std::optional<GgufKeyValue> alignmentKey;
  GgufMetadata first;
  for (const GgufKeyValue &kv : metadata) {
    if (kv.key == kGgufSplitNoKey || kv.key == kGgufSplitCountKey ||
        kv.key == kGgufSplitTensorsCountKey)
      continue; // replaced below
    if (kv.key == kGgufAlignmentKey && kv.value.type == GgufType::UInt32) {
      alignment = kv.value.scalars.at(0);
      alignmentKey = kv;
    }
    first.push_back(kv);
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return Status::invalidArgument("general.alignment must be a power of two");
  if (tensors.size() > uint64_t(std::numeric_limits<int32_t>::max()))
    return Status::invalidArgument(
        "split.tensors.count is an int32; too many tensors");
  // gguf-split counts each tensor padded to the alignment.
  std::vector<uint64_t> sizes;
  for (const TensorSource &t : tensors) {
    StatusOr<uint64_t> n = ggufStoredBytes(t.info);
    if (!n)
      return n.status();
    if (*n > std::numeric_limits<uint64_t>::max() - alignment)
      return Status::invalidArgument("tensor '" + t.info.name +
                                     "' is too large");
    sizes.push_back((*n + alignment - 1) / alignment * alignment);
  }
  StatusOr<std::vector<std::vector<TensorSource>>> shards =
      splitTensors(tensors, sizes, maxBytes, 65535); // split.count: uint16
  if (!shards)
    return shards.status();
  unsigned count = unsigned(shards->size());
  OutputGroup group;
  StatusOr<std::vector<std::string>> stale =
      staleSetFiles(stem, ".gguf", count);
  if (!stale)
    return stale.status();
  for (std::string &file : *stale)
    group.removeOnCommit(std::move(file));
  for (unsigned k = 0; k < count; ++k) {
    GgufMetadata meta;
    if (k == 0)
      meta = first;
    else if (alignmentKey)
      meta.push_back(*alignmentKey); // each file's layout uses it
    GgufValue no, n, total;
    no.type = n.type = GgufType::UInt16;
    total.type = GgufType::Int32;
    no.scalars = {k};
    n.scalars = {count};
    total.scalars = {uint64_t(tensors.size())};
    meta.push_back({std::string(kGgufSplitNoKey), no});
    meta.push_back({std::string(kGgufSplitCountKey), n});
    meta.push_back({std::string(kGgufSplitTensorsCountKey), total});
    std::string file = shardFileName(stem, k + 1, count, ".gguf");
    if (Status s = writeGguf(file, (*shards)[k], meta, &group); !s)
      return s;
  }
  if (Status s = group.commitAll(); !s)
    return s;
  return group.destinations();
}

StatusOr<std::optional<VmpkShardKeys>> vmpack::formats::readVmpkShardKeys(
    const std::vector<std::pair<std::string, std::string>> &m) {
  const std::string *no = nullptr, *count = nullptr, *segments = nullptr;
  for (const auto &[key, value] : m) {
    if (key == kVmpkShardNoKey)
      no = &value;
    else if (key == kVmpkShardCountKey)
      count = &value;
    else if (key == kVmpkShardSegmentsKey)
      segments = &value;
  }
  if (!no && !count && !segments)
    return std::optional<VmpkShardKeys>();
  auto number = [](const std::string *text,
                   uint64_t max) -> std::optional<uint64_t> {
    if (!text || text->empty() || text->size() > 20 ||
        (text->size() > 1 && (*text)[0] == '0'))
      return std::nullopt;
    uint64_t v = 0;
    for (char c : *text) {
      if (c < '0' || c > '9' || v > (max - uint64_t(c - '0')) / 10)
        return std::nullopt;
      v = v * 10 + uint64_t(c - '0');
    }
    return v;
  };
  std::optional<uint64_t> k = number(no, kMaxShards);
  std::optional<uint64_t> n = number(count, kMaxShards);
  std::optional<uint64_t> total =
      number(segments, std::numeric_limits<uint32_t>::max());
  if (!k || !n || !total || *k == 0 || *k > *n)
    return Status::formatError(
        "the module metadata describes a shard set badly: " +
        std::string(kVmpkShardNoKey) + " = " + (no ? quoteName(*no) : "none") +
        ", " + std::string(kVmpkShardCountKey) + " = " +
        (count ? quoteName(*count) : "none") + ", " +
        std::string(kVmpkShardSegmentsKey) + " = " +
        (segments ? quoteName(*segments) : "none") +
        " (decimal numbers, 1 <= no <= count <= 99999)");
  return std::optional<VmpkShardKeys>(
      VmpkShardKeys{unsigned(*k), unsigned(*n), *total});
}

StatusOr<std::vector<std::string>> vmpack::formats::writeShardedVmpk(
    const std::string &path, const std::vector<TensorSource> &tensors,
    const StringMetadata &metadata, const std::string &moduleName,
    uint32_t alignment, uint64_t maxBytes) {
  if (!endsWith(path, ".vmpk") || path.size() == 5 ||
      path[path.size() - 6] == '/')
    return Status::invalidArgument(
        "a sharded .vmpk output is named NAME.vmpk, not '" + path + "'");
  std::string stem = path.substr(0, path.size() - 5);
  for (const auto &[key, value] : metadata)
    if (key == kVmpkShardNoKey || key == kVmpkShardCountKey ||
        key == kVmpkShardSegmentsKey)
      return Status::invalidArgument("metadata key '" + key +
                                     "' is reserved for .vmpk shard sets");
  std::vector<uint64_t> sizes;
  for (const TensorSource &t : tensors)
    sizes.push_back(t.info.length);
  StatusOr<std::vector<std::vector<TensorSource>>> shards =
      splitTensors(tensors, sizes, maxBytes, kMaxShards);
  if (!shards)
    return shards.status();
  unsigned count = unsigned(shards->size());
  OutputGroup group;
  StatusOr<std::vector<std::string>> stale =
      staleSetFiles(stem, ".vmpk", count);
  if (!stale)
    return stale.status();
  for (std::string &file : *stale)
    group.removeOnCommit(std::move(file));
  static unsigned serial = 0;
  for (unsigned k = 0; k < count; ++k) {
    StringMetadata meta;
    if (k == 0)
      meta = metadata;
    meta.emplace_back(std::string(kVmpkShardNoKey), std::to_string(k + 1));
    meta.emplace_back(std::string(kVmpkShardCountKey), std::to_string(count));
    meta.emplace_back(std::string(kVmpkShardSegmentsKey),
                      std::to_string(tensors.size()));
    std::string file = shardFileName(stem, k + 1, count, ".vmpk");
    // The archive writer renames its own temporary file when done; it goes
    // to a staging name that the group renames with the rest.
    std::string staging = file + ".set." + std::to_string(::getpid()) + "." +
                          std::to_string(serial++);
    Status s = writeVmpk(staging, (*shards)[k], meta, moduleName, alignment);
    if (s)
      group.adopt(staging, file);
    if (!s)
      return s;
  }
  if (Status s = group.commitAll(); !s)
    return s;
  return group.destinations();
}

//===----------------------------------------------------------------------===//
// Reading sets
//===----------------------------------------------------------------------===//

namespace {

using FileList = std::vector<std::unique_ptr<WeightFile>>;

/// Every tensor name once across the set.
Status checkUnique(const FileList &files) {
  std::map<std::string_view, const std::string *> seen;
  for (const auto &f : files)
    for (const TensorInfo &t : f->tensors) {
      auto [it, added] = seen.emplace(t.name, &f->path);
      if (!added)
        return Status::formatError("tensor " + quoteName(t.name) +
                                   " is in both '" + *it->second + "' and '" +
                                   f->path + "'");
    }
  return Status::ok();
}

StatusOr<FileList> openSafetensorsIndex(const std::string &indexPath) {
  StatusOr<std::unique_ptr<archive::MappedFile>> map =
      archive::MappedFile::open(indexPath);
  if (!map)
    return map.status();
  StatusOr<SafetensorsIndex> index =
      readSafetensorsIndex((*map)->data(), (*map)->size());
  if (!index)
    return index.status().withContext("'" + indexPath + "': ");
  std::string dir = dirOf(indexPath);
  FileList files;
  std::map<std::string, size_t> byFile;
  for (const std::string &name : index->files) {
    std::string path = dir + name;
    if (!exists(path))
      return Status::formatError("'" + indexPath + "' names the shard '" +
                                 name + "', which is missing ('" + path +
                                 "' not found)");
    StatusOr<std::unique_ptr<WeightFile>> f =
        openWeightFile(path, FileFormat::Safetensors);
    if (!f)
      return f.status();
    byFile[name] = files.size();
    files.push_back(std::move(*f));
  }
  // The index and the shards must describe the same tensors.
  std::map<std::string, std::set<std::string_view>> inFile;
  for (const auto &f : files) {
    auto &names = inFile[baseOf(f->path)];
    for (const TensorInfo &t : f->tensors)
      names.insert(t.name);
  }
  std::map<std::string_view, std::string_view> mapped;
  for (const auto &[tensor, file] : index->weightMap) {
    mapped.emplace(tensor, file);
    if (!inFile[file].count(tensor))
      return Status::formatError("'" + indexPath + "' maps tensor " +
                                 quoteName(tensor) + " to '" + dir + file +
                                 "', which does not hold it");
  }
  if (Status s = checkUnique(files); !s)
    return s;
  for (const auto &f : files)
    for (const TensorInfo &t : f->tensors)
      if (!mapped.count(t.name))
        return Status::formatError("'" + f->path + "' holds tensor " +
                                   quoteName(t.name) + ", which '" + indexPath +
                                   "' does not list");
  // The index is an input too: its mapping (and with it the guard that no
  // writer replaces it, archive::detail::InputFileGuard) lives as long as
  // the set.
  if (!files.empty())
    files.front()->owned.push_back(
        std::shared_ptr<archive::MappedFile>(std::move(*map)));
  return files;
}

StatusOr<FileList> openSafetensorsSet(const std::string &path) {
  if (endsWith(path, ".index.json"))
    return openSafetensorsIndex(path);
  std::optional<ShardName> shard = parseShardName(path, ".safetensors");
  if (!shard) {
    StatusOr<std::unique_ptr<WeightFile>> f =
        openWeightFile(path, FileFormat::Safetensors);
    if (!f)
      return f.status();
    FileList files;
    files.push_back(std::move(*f));
    return files;
  }
  if (shard->number != 1)
    return Status::formatError(
        "'" + path + "' is shard " + std::to_string(shard->number) + " of " +
        std::to_string(shard->count) + "; name the first shard ('" +
        shardFileName(shard->stem, 1, shard->count, ".safetensors") +
        "') or the index ('" + shard->stem +
        std::string(kSafetensorsIndexSuffix) + "')");
  std::string indexPath = shard->stem + std::string(kSafetensorsIndexSuffix);
  if (exists(indexPath)) {
    StatusOr<FileList> files = openSafetensorsIndex(indexPath);
    if (!files)
      return files;
    bool listed = false;
    for (const auto &f : *files)
      listed |= baseOf(f->path) == baseOf(path);
    if (!listed)
      return Status::formatError("'" + indexPath + "' does not list '" + path +
                                 "'; the shards and the index disagree");
    return files;
  }
  // No index: the numbered files themselves.
  FileList files;
  for (unsigned k = 1; k <= shard->count; ++k) {
    std::string name =
        shardFileName(shard->stem, k, shard->count, ".safetensors");
    if (!exists(name))
      return Status::formatError("shard " + std::to_string(k) + " of " +
                                 std::to_string(shard->count) + " ('" + name +
                                 "') is missing, and there is no index ('" +
                                 indexPath + "')");
    StatusOr<std::unique_ptr<WeightFile>> f =
        openWeightFile(name, FileFormat::Safetensors);
    if (!f)
      return f.status();
    files.push_back(std::move(*f));
  }
  if (Status s = checkUnique(files); !s)
    return s;
  return files;
}

/// A split key's value, which must have gguf-split's type; nullopt when
/// absent.
StatusOr<std::optional<uint64_t>>
splitKey(const WeightFile &f, std::string_view key, GgufType type) {
  for (const GgufKeyValue &kv : f.ggufMetadata)
    if (kv.key == key) {
      if (kv.value.type != type)
        return Status::formatError(
            "'" + f.path + "': " + std::string(key) + " has GGUF type " +
            std::to_string(uint32_t(kv.value.type)) + ", not " +
            (type == GgufType::UInt16 ? "uint16 (2)" : "int32 (5)") +
            " as llama.cpp's gguf-split writes it");
      uint64_t v = kv.value.scalars.at(0);
      if (type == GgufType::Int32 && (v >> 31) != 0)
        return Status::formatError("'" + f.path + "': " + std::string(key) +
                                   " is negative");
      return std::optional<uint64_t>(v);
    }
  return std::optional<uint64_t>();
}

/// Removes the entries of `metadata` whose key (`keyOf` of the entry) is
/// a set's bookkeeping (isSetKey), which the output writes anew.
template <typename Entry, typename KeyOf>
void dropSetKeys(std::vector<Entry> &metadata, KeyOf keyOf) {
  metadata.erase(
      std::remove_if(metadata.begin(), metadata.end(),
                     [&](const Entry &e) { return isSetKey(keyOf(e)); }),
      metadata.end());
}

/// gguf-split's keys.
void dropSplitKeys(WeightFile &f) {
  dropSetKeys(f.ggufMetadata, [](const GgufKeyValue &kv) -> std::string_view {
    return kv.key;
  });
}

/// Opens member `k` (1-based) of a set of `n` named "STEM-k-of-nEXT",
/// saying "<what> k of n ('FILE') is missing" when it is not there.
StatusOr<std::unique_ptr<WeightFile>>
openMember(const ShardName &name, unsigned k, unsigned n, std::string_view ext,
           FileFormat format, const char *what, std::string &file) {
  file = shardFileName(name.stem, k, n, ext);
  if (!exists(file))
    return Status::formatError(std::string(what) + " " + std::to_string(k) +
                               " of " + std::to_string(n) + " ('" + file +
                               "') is missing");
  return openWeightFile(file, format);
}

/// Tensors in all files of a set.
uint64_t countTensors(const FileList &files) {
  uint64_t n = 0;
  for (const auto &file : files)
    n += file->tensors.size();
  return n;
}

StatusOr<FileList> openGgufSet(const std::string &path) {
  FileList files;
  StatusOr<std::unique_ptr<WeightFile>> first =
      openWeightFile(path, FileFormat::Gguf);
  if (!first)
    return first.status();
  files.push_back(std::move(*first));
  const WeightFile &head = *files[0];
  StatusOr<std::optional<uint64_t>> count =
      splitKey(head, kGgufSplitCountKey, GgufType::UInt16);
  if (!count)
    return count.status();
  StatusOr<std::optional<uint64_t>> no =
      splitKey(head, kGgufSplitNoKey, GgufType::UInt16);
  if (!no)
    return no.status();
  StatusOr<std::optional<uint64_t>> total =
      splitKey(head, kGgufSplitTensorsCountKey, GgufType::Int32);
  if (!total)
    return total.status();
  // Without split.count, or with 0 or 1 (gguf-split --merge writes 0), the
  // file stands alone.
  if (!*count || **count <= 1) {
    dropSplitKeys(*files[0]);
    return files;
  }
  unsigned n = unsigned(**count);
  if (!*no)
    return Status::formatError("'" + path + "' has split.count " +
                               std::to_string(n) + " but no split.no");
  if (**no != 0)
    return Status::formatError(
        "'" + path + "' is split " + std::to_string(**no + 1) + " of " +
        std::to_string(n) + " (split.no " + std::to_string(**no) +
        "); name the first file of the set" + firstFileHint(path, ".gguf"));
  if (!*total)
    return Status::formatError("'" + path + "' has split.count " +
                               std::to_string(n) +
                               " but no split.tensors.count");
  std::optional<ShardName> name = parseShardName(path, ".gguf");
  if (!name || name->number != 1 || name->count != n)
    return Status::formatError(
        "'" + path + "' is the first of " + std::to_string(n) +
        " splits (split.count), so its name must end in '" +
        shardFileName("", 1, n, ".gguf") +
        "', as llama.cpp's gguf-split names them");
  for (unsigned k = 1; k < n; ++k) {
    std::string file;
    StatusOr<std::unique_ptr<WeightFile>> f =
        openMember(*name, k + 1, n, ".gguf", FileFormat::Gguf, "split", file);
    if (!f)
      return f.status();
    StatusOr<std::optional<uint64_t>> fNo =
        splitKey(**f, kGgufSplitNoKey, GgufType::UInt16);
    if (!fNo)
      return fNo.status();
    if (!*fNo || **fNo != k)
      return Status::formatError(
          "'" + file + "': split.no is " +
          (*fNo ? std::to_string(**fNo) : std::string("missing")) +
          ", expected " + std::to_string(k));
    StatusOr<std::optional<uint64_t>> fCount =
        splitKey(**f, kGgufSplitCountKey, GgufType::UInt16);
    if (!fCount)
      return fCount.status();
    if (*fCount && **fCount != n)
      return Status::formatError("'" + file + "': split.count is " +
                                 std::to_string(**fCount) + ", but '" + path +
                                 "' says " + std::to_string(n));
    StatusOr<std::optional<uint64_t>> fTotal =
        splitKey(**f, kGgufSplitTensorsCountKey, GgufType::Int32);
    if (!fTotal)
      return fTotal.status();
    if (*fTotal && **fTotal != **total)
      return Status::formatError("'" + file + "': split.tensors.count is " +
                                 std::to_string(**fTotal) + ", but '" + path +
                                 "' says " + std::to_string(**total));
    files.push_back(std::move(*f));
  }
  if (Status s = checkUnique(files); !s)
    return s;
  uint64_t found = countTensors(files);
  if (found != **total)
    return Status::formatError("'" + path + "': split.tensors.count is " +
                               std::to_string(**total) + ", but the " +
                               std::to_string(n) + " files hold " +
                               std::to_string(found) + " tensors");
  for (auto &f : files)
    dropSplitKeys(*f);
  return files;
}

/// vmpack's shard keys.
void dropShardKeys(WeightFile &f) {
  dropSetKeys(
      f.stringMetadata,
      [](const std::pair<std::string, std::string> &kv) -> std::string_view {
        return kv.first;
      });
}

StatusOr<FileList> openVmpkSet(const std::string &path) {
  FileList files;
  StatusOr<std::unique_ptr<WeightFile>> first =
      openWeightFile(path, FileFormat::Vmpk);
  if (!first)
    return first.status();
  files.push_back(std::move(*first));
  StatusOr<std::optional<VmpkShardKeys>> keys =
      readVmpkShardKeys(files[0]->stringMetadata);
  if (!keys)
    return keys.status().withContext("'" + path + "': ");
  if (!*keys || (*keys)->count == 1) {
    dropShardKeys(*files[0]);
    return files;
  }
  unsigned n = (*keys)->count;
  if ((*keys)->number != 1)
    return Status::formatError(
        "'" + path + "' is shard " + std::to_string((*keys)->number) + " of " +
        std::to_string(n) + " of a .vmpk set; name the first" +
        firstFileHint(path, ".vmpk"));
  std::optional<ShardName> name = parseShardName(path, ".vmpk");
  if (!name || name->number != 1 || name->count != n)
    return Status::formatError("'" + path + "' is the first of " +
                               std::to_string(n) +
                               " shards, so its name must end in '" +
                               shardFileName("", 1, n, ".vmpk") + "'");
  for (unsigned k = 2; k <= n; ++k) {
    std::string file;
    StatusOr<std::unique_ptr<WeightFile>> f =
        openMember(*name, k, n, ".vmpk", FileFormat::Vmpk, "shard", file);
    if (!f)
      return f.status();
    StatusOr<std::optional<VmpkShardKeys>> fk =
        readVmpkShardKeys((*f)->stringMetadata);
    if (!fk)
      return fk.status().withContext("'" + file + "': ");
    if (!*fk || (*fk)->number != k || (*fk)->count != n ||
        (*fk)->segments != (*keys)->segments)
      return Status::formatError(
          "'" + file + "': its vmpack.shard keys (" +
          (*fk ? "no " + std::to_string((*fk)->number) + ", count " +
                     std::to_string((*fk)->count) + ", segments " +
                     std::to_string((*fk)->segments)
               : std::string("none")) +
          ") do not say shard " + std::to_string(k) + " of " +
          std::to_string(n) + " with " + std::to_string((*keys)->segments) +
          " segments, as '" + path + "' does");
    files.push_back(std::move(*f));
  }
  if (Status s = checkUnique(files); !s)
    return s;
  uint64_t found = countTensors(files);
  if (found != (*keys)->segments)
    return Status::formatError(
        "'" + path + "': vmpack.shard.segments is " +
        std::to_string((*keys)->segments) + ", but the " + std::to_string(n) +
        " shards hold " + std::to_string(found) + " segments");
  for (auto &f : files)
    dropShardKeys(*f);
  return files;
}

} // namespace

StatusOr<std::vector<std::unique_ptr<WeightFile>>>
vmpack::formats::openWeightSet(const std::string &path, FileFormat format) {
  switch (format) {
  case FileFormat::Safetensors:
    return openSafetensorsSet(path);
  case FileFormat::Gguf:
    return openGgufSet(path);
  case FileFormat::Vmpk:
    return openVmpkSet(path);
  default:
    break;
  }
  StatusOr<std::unique_ptr<WeightFile>> f = openWeightFile(path, format);
  if (!f)
    return f.status();
  FileList files;
  files.push_back(std::move(*f));
  return files;
}
