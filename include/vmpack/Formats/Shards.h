//===- Shards.h - Sharded weight files: sets of numbered files ----*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Large checkpoints are split into numbered files, each a complete file of
// its format, and each ecosystem has its own convention for naming them and
// tying them together (docs/interop.md, "Sharding"):
//
// - safetensors (Hugging Face): NAME-00001-of-00003.safetensors ... and
//   NAME.safetensors.index.json, {"metadata": {"total_size": N},
//   "weight_map": {tensor: file}}, as huggingface_hub's
//   split_state_dict_into_shards_factory and transformers' save_pretrained
//   write them;
// - GGUF (llama.cpp's gguf-split): NAME-00001-of-00003.gguf, each file
//   carrying split.no, split.count and split.tensors.count, the first one
//   all other key/value pairs.
//
// Writers split the tensors in order, as both references do: a shard is
// closed when the next tensor would take it past the limit, and a tensor
// larger than the limit goes alone in its shard. A set is written through
// one OutputGroup: every file appears, or none. Readers open a set from its
// first file or its index and check that the files agree with each other;
// the index is parsed as hostile input.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_SHARDS_H
#define VMPACK_FORMATS_SHARDS_H

#include "vmpack/Formats/WeightFile.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmpack::formats {

/// GGUF split keys (llama.cpp src/llama-arch.cpp LLM_KV_SPLIT_*), with the
/// types gguf-split writes: uint16, uint16, int32.
inline constexpr std::string_view kGgufSplitNoKey = "split.no";
inline constexpr std::string_view kGgufSplitCountKey = "split.count";
inline constexpr std::string_view kGgufSplitTensorsCountKey =
    "split.tensors.count";
inline constexpr std::string_view kGgufSplitKeys[] = {
    kGgufSplitNoKey, kGgufSplitCountKey, kGgufSplitTensorsCountKey};

/// Module metadata keys of a sharded .vmpk set (docs/format.md, section
/// 9): decimal strings.
inline constexpr std::string_view kVmpkShardNoKey = "vmpack.shard.no";
inline constexpr std::string_view kVmpkShardCountKey = "vmpack.shard.count";
inline constexpr std::string_view kVmpkShardSegmentsKey =
    "vmpack.shard.segments";
inline constexpr std::string_view kVmpkShardKeys[] = {
    kVmpkShardNoKey, kVmpkShardCountKey, kVmpkShardSegmentsKey};

/// True for a set's bookkeeping keys (kGgufSplitKeys, kVmpkShardKeys),
/// which a set opened as a whole does not show.
bool isSetKey(std::string_view key);

struct VmpkShardKeys {
  /// 1-based.
  unsigned number = 0, count = 0;
  uint64_t segments = 0;
};
/// The shard keys of a module's metadata: nullopt when it has none, an
/// error when they are partial or malformed (each a decimal number without
/// sign or leading zeros; 1 <= no <= count <= 99999).
StatusOr<std::optional<VmpkShardKeys>>
readVmpkShardKeys(const std::vector<std::pair<std::string, std::string>> &m);

/// The safetensors index file's suffix after NAME.
inline constexpr std::string_view kSafetensorsIndexSuffix =
    ".safetensors.index.json";

/// "1000", "5G", "500MB", "2GiB", "64k": a byte count with an optional
/// suffix, K/M/G/T (KB/MB/GB/TB) powers of 1000 as Hugging Face and
/// gguf-split read them, KiB/MiB/GiB/TiB powers of 1024 (case-insensitive).
/// nullopt for anything else, zero, or an overflow.
std::optional<uint64_t> parseShardSize(std::string_view text);

/// The shard of each tensor, given the bytes each takes: in order, a new
/// shard starts when the current one holds something and the next tensor
/// would take it past `maxBytes`; a tensor larger than `maxBytes` goes
/// alone in its shard.
std::vector<size_t> planShards(const std::vector<uint64_t> &sizes,
                               uint64_t maxBytes);

/// "STEM-00002-of-00003EXT" for shard `number` (1-based) of `count`.
std::string shardFileName(std::string_view stem, unsigned number,
                          unsigned count, std::string_view ext);

struct ShardName {
  /// The path up to "-NNNNN-of-NNNNN".
  std::string stem;
  unsigned number = 0, count = 0;
};
/// Splits "STEM-00002-of-00003EXT" (five digits each, 1 <= number <=
/// count); nullopt when `path` does not end that way.
std::optional<ShardName> parseShardName(std::string_view path,
                                        std::string_view ext);

/// Where a file of a set stands, as it says itself: shard `number`
/// (1-based) of `count`.
struct SetPosition {
  unsigned number = 1, count = 1;
};
/// A GGUF file's place in a gguf-split set (split.no is 0-based there):
/// nullopt unless split.count is an integer above 1. Only a hint for
/// refusing a lone split: openWeightSet checks the keys' types and values.
std::optional<SetPosition> ggufSplitPosition(const GgufMetadata &metadata);

/// The path of the first file of the set `path` belongs to
/// ("STEM-00001-of-0000N" + ext), when `path` is named as shards are; else
/// nullopt.
std::optional<std::string> firstShardPath(std::string_view path,
                                          std::string_view ext);

struct SafetensorsIndex {
  /// metadata.total_size, if present.
  std::optional<uint64_t> totalSize;
  /// weight_map in file order: (tensor, file name).
  std::vector<std::pair<std::string, std::string>> weightMap;
  /// The distinct file names, sorted.
  std::vector<std::string> files;
};

struct SafetensorsIndexLimits {
  uint64_t maxBytes = 100'000'000;
  /// object -> metadata or weight_map object -> a metadata value.
  unsigned maxDepth = 3;
  uint64_t maxFiles = 10000;
};

/// Parses NAME.safetensors.index.json held in [data, data + size). File
/// names must be plain names in the index's directory ending in
/// .safetensors: no '/', '\', control characters, "." or "..".
StatusOr<SafetensorsIndex>
readSafetensorsIndex(const uint8_t *data, size_t size,
                     const SafetensorsIndexLimits &limits = {});

/// The index text as transformers writes it: json.dumps(index, indent=2,
/// sort_keys=True) + "\n".
std::string safetensorsIndexText(
    uint64_t totalSize,
    const std::vector<std::pair<std::string, std::string>> &weightMap);

/// Writes `tensors` as safetensors shards of at most `maxBytes` of tensor
/// data each (a larger tensor alone). `path` is NAME.safetensors or
/// NAME.safetensors.index.json; several shards are NAME-0000K-of-0000N
/// .safetensors plus the index, a single one is NAME.safetensors without
/// an index (as huggingface_hub does). Every shard carries `metadata` and
/// the vmpack.type.* records of its own tensors. Returns the files written.
StatusOr<std::vector<std::string>>
writeShardedSafetensors(const std::string &path,
                        const std::vector<TensorSource> &tensors,
                        const StringMetadata &metadata, uint64_t maxBytes);

/// Writes `tensors` as GGUF shards NAME-0000K-of-0000N.gguf (always
/// numbered, as gguf-split does) of at most `maxBytes` of aligned tensor
/// data each (a larger tensor alone). The first carries `metadata`, every
/// one split.no (0-based), split.count and split.tensors.count, and
/// general.alignment when `metadata` sets one. Returns the files written.
StatusOr<std::vector<std::string>>
writeShardedGguf(const std::string &path,
                 const std::vector<TensorSource> &tensors,
                 const GgufMetadata &metadata, uint64_t maxBytes);

/// Writes `tensors` as .vmpk shards NAME-0000K-of-0000N.vmpk (always
/// numbered) of at most `maxBytes` of tensor data each (a larger tensor
/// alone): each a complete module named `moduleName`, the first with
/// `metadata`, every one with the vmpack.shard.* keys. Returns the files.
StatusOr<std::vector<std::string>>
writeShardedVmpk(const std::string &path,
                 const std::vector<TensorSource> &tensors,
                 const StringMetadata &metadata, const std::string &moduleName,
                 uint32_t alignment, uint64_t maxBytes);

/// Opens `path` and, when it starts a sharded set, the rest of the set:
/// a safetensors index or first shard, the first file of a GGUF split, or
/// the first shard of a .vmpk set.
/// Checks that the files agree (count, numbering, split keys, every tensor
/// of the index in the file it names and no other, no tensor twice) with
/// errors that name the file. Files come in shard order with the GGUF
/// split keys and vmpack.shard.* keys removed from their metadata.
StatusOr<std::vector<std::unique_ptr<WeightFile>>>
openWeightSet(const std::string &path, FileFormat format);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_SHARDS_H
