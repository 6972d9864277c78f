//===- ShardsTest.cpp - Sharded safetensors and GGUF sets
//------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The shard plan against huggingface_hub's documented example, the names
// and the index text byte for byte, round trips of every sample type
// through sets of several sizes, the hostile index files one by one, and
// every way the files of a set can disagree, each with an error naming the
// file. A set that fails to write leaves no file behind.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Shards.h"

#include "SampleTensors.h"
#include "TestFiles.h"
#include "vmpack/Formats/OutputFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;
using vmpack::archive::testing::writeFile;

namespace {

std::vector<uint8_t> bytesOf(const std::string &s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

StatusOr<SafetensorsIndex> parseIndex(const std::string &text) {
  std::vector<uint8_t> b = bytesOf(text);
  return readSafetensorsIndex(b.data(), b.size());
}

/// Every tensor of `set`, by name, in the byte encoding.
std::map<std::string, std::vector<uint8_t>>
contents(const std::vector<std::unique_ptr<WeightFile>> &set) {
  std::map<std::string, std::vector<uint8_t>> out;
  for (const auto &f : set)
    for (const TensorInfo &t : f->tensors)
      out[t.name] =
          t.isOpaque()
              ? std::vector<uint8_t>(f->map->data() + t.offset,
                                     f->map->data() + t.offset + t.length)
              : toByteEncoding(t, f->map->data());
  return out;
}

void expectSameTensors(const std::vector<OwnedTensor> &want,
                       const std::vector<std::unique_ptr<WeightFile>> &set) {
  std::map<std::string, std::vector<uint8_t>> got = contents(set);
  ASSERT_EQ(got.size(), want.size());
  for (const OwnedTensor &t : want) {
    ASSERT_TRUE(got.count(t.source.info.name)) << t.source.info.name;
    EXPECT_EQ(got[t.source.info.name], *t.bytes) << t.source.info.name;
  }
  // Shard order keeps the tensors in the order they were written.
  std::vector<std::string> order;
  for (const auto &f : set)
    for (const TensorInfo &t : f->tensors)
      order.push_back(t.name);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(order[i], want[i].source.info.name);
}

std::string errorOf(const std::string &path, FileFormat format) {
  StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
      openWeightSet(path, format);
  return set ? std::string("(opened)") : set.status().message();
}

TEST(ShardSize, Suffixes) {
  EXPECT_EQ(parseShardSize("1000"), 1000u);
  EXPECT_EQ(parseShardSize("5G"), 5000000000u);
  EXPECT_EQ(parseShardSize("5GB"), 5000000000u);
  EXPECT_EQ(parseShardSize("500mb"), 500000000u);
  EXPECT_EQ(parseShardSize("64K"), 64000u);
  EXPECT_EQ(parseShardSize("2GiB"), uint64_t(2) << 30);
  EXPECT_EQ(parseShardSize("3MiB"), uint64_t(3) << 20);
  EXPECT_EQ(parseShardSize("1kib"), 1024u);
  EXPECT_EQ(parseShardSize("7B"), 7u);
  for (const char *bad : {"", "G", "0", "0G", "-1", "1.5G", "5 G", "5X",
                          "5GiBs", "99999999999999999999", "20000000000G"})
    EXPECT_FALSE(parseShardSize(bad).has_value()) << bad;
}

TEST(ShardPlan, FollowsTheReferencesInOrder) {
  // huggingface_hub's docstring: [6, 6, 2, 6, 2, 2] GB at a 10 GB limit
  // gives [6], [6+2], [6+2+2].
  EXPECT_EQ(planShards({6, 6, 2, 6, 2, 2}, 10),
            (std::vector<size_t>{0, 1, 1, 2, 2, 2}));
  // A tensor above the limit goes alone; the next starts a new shard.
  EXPECT_EQ(planShards({1, 20, 1, 1}, 10), (std::vector<size_t>{0, 1, 2, 2}));
  EXPECT_EQ(planShards({20}, 10), (std::vector<size_t>{0}));
  // Exactly at the limit stays in the shard.
  EXPECT_EQ(planShards({5, 5, 1}, 10), (std::vector<size_t>{0, 0, 1}));
  EXPECT_EQ(planShards({}, 10), (std::vector<size_t>{}));
}

TEST(ShardNames, FormatAndParse) {
  EXPECT_EQ(shardFileName("d/model", 2, 3, ".safetensors"),
            "d/model-00002-of-00003.safetensors");
  std::optional<ShardName> n =
      parseShardName("d/m-00002-of-00010.gguf", ".gguf");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->stem, "d/m");
  EXPECT_EQ(n->number, 2u);
  EXPECT_EQ(n->count, 10u);
  for (const char *bad :
       {"m.gguf", "m-00003-of-00002.gguf", "m-00000-of-00002.gguf",
        "m-0001-of-00002.gguf", "m-00001_of-00002.gguf",
        "m-00001-of-00002.safetensors", "m-0000a-of-00002.gguf"})
    EXPECT_FALSE(parseShardName(bad, ".gguf").has_value()) << bad;
}

TEST(SafetensorsIndex, ExactText) {
  // transformers' json.dumps(index, indent=2, sort_keys=True) + "\n".
  EXPECT_EQ(
      safetensorsIndexText(30, {{"b", "m-00002-of-00002.safetensors"},
                                {"a", "m-00001-of-00002.safetensors"},
                                {"\xc3\xa9", "m-00001-of-00002.safetensors"}}),
      "{\n"
      "  \"metadata\": {\n"
      "    \"total_size\": 30\n"
      "  },\n"
      "  \"weight_map\": {\n"
      "    \"a\": \"m-00001-of-00002.safetensors\",\n"
      "    \"b\": \"m-00002-of-00002.safetensors\",\n"
      "    \"\\u00e9\": \"m-00001-of-00002.safetensors\"\n"
      "  }\n"
      "}\n");
}

TEST(SafetensorsIndex, ReadsWhatHuggingFaceWrites) {
  StatusOr<SafetensorsIndex> i = parseIndex(
      R"({"metadata": {"total_size": 12, "total_parameters": 3,
          "format": "pt"},
          "weight_map": {"w": "model-00002-of-00002.safetensors",
                         "b": "model-00001-of-00002.safetensors",
                         "c": "model-00002-of-00002.safetensors"}})");
  ASSERT_TRUE(i.isOk()) << i.status().message();
  EXPECT_EQ(i->totalSize, 12u);
  ASSERT_EQ(i->weightMap.size(), 3u);
  EXPECT_EQ(i->files,
            (std::vector<std::string>{"model-00001-of-00002.safetensors",
                                      "model-00002-of-00002.safetensors"}));
  // No metadata at all is fine too.
  EXPECT_TRUE(parseIndex(R"({"weight_map": {"w": "a.safetensors"}})").isOk());
}

TEST(SafetensorsIndex, RejectsHostileIndexes) {
  const std::pair<std::string, const char *> cases[] = {
      {"", "not valid JSON"},
      {"[]", "not a JSON object"},
      {R"({"metadata": {}})", "no \"weight_map\""},
      {R"({"weight_map": []})", "no \"weight_map\""},
      {R"({"weight_map": {}})", "lists no tensors"},
      {R"({"weight_map": {"w": 3}})", "not a file name"},
      {R"({"weight_map": {"w": "../x.safetensors"}})", "'../x.safetensors'"},
      {R"({"weight_map": {"w": ".."}})", "not a .safetensors file name"},
      {R"({"weight_map": {"w": "/etc/x.safetensors"}})", "no '/'"},
      {R"({"weight_map": {"w": "sub/x.safetensors"}})", "no '/'"},
      {R"({"weight_map": {"w": "a\\b.safetensors"}})", "'\\'"},
      {R"({"weight_map": {"w": "a\u0001.safetensors"}})", "\\x01"},
      {R"({"weight_map": {"w": "x.bin"}})", "not a .safetensors file name"},
      {R"({"weight_map": {"w": ".safetensors"}})", "not a .safetensors"},
      {R"({"weight_map": {"w": "a.safetensors", "w": "b.safetensors"}})",
       "repeats the key 'w'"},
      {R"({"metadata": {"total_size": -1}, "weight_map": {"w": "a.safetensors"}})",
       "total_size is -1"},
      {R"({"metadata": {"total_size": "9"}, "weight_map": {"w": "a.safetensors"}})",
       "total_size is \"9\""},
      {R"({"metadata": [], "weight_map": {"w": "a.safetensors"}})",
       "\"metadata\" is not an object"},
      {R"({"metadata": {"x": {"y": [1]}}, "weight_map": {"w": "a.safetensors"}})",
       "deeper than 3"},
      {std::string(100000, '[') + std::string(100000, ']'), "deeper than 3"},
      {R"({"weight_map": {"w": "a.safetensors"})", "not valid JSON"},
  };
  for (const auto &[text, expected] : cases) {
    StatusOr<SafetensorsIndex> i = parseIndex(text);
    ASSERT_FALSE(i.isOk()) << text;
    EXPECT_NE(i.status().message().find(expected), std::string::npos)
        << text.substr(0, 80) << " -> " << i.status().message();
    EXPECT_EQ(i.status().message().rfind("safetensors index: ", 0), 0u);
  }
  // Size and file-count limits.
  SafetensorsIndexLimits small;
  small.maxBytes = 10;
  std::vector<uint8_t> text =
      bytesOf(R"({"weight_map": {"w": "a.safetensors"}})");
  EXPECT_NE(readSafetensorsIndex(text.data(), text.size(), small)
                .status()
                .message()
                .find("more than the limit of 10"),
            std::string::npos);
  SafetensorsIndexLimits few;
  few.maxFiles = 1;
  text = bytesOf(
      R"({"weight_map": {"w": "a.safetensors", "v": "b.safetensors"}})");
  EXPECT_NE(readSafetensorsIndex(text.data(), text.size(), few)
                .status()
                .message()
                .find("more than 1 files"),
            std::string::npos);
}

TEST(SafetensorsIndex, EveryTruncationAndByteFlipIsHandled) {
  std::string good =
      safetensorsIndexText(6, {{"a", "m-00001-of-00002.safetensors"},
                               {"b", "m-00002-of-00002.safetensors"}});
  std::vector<uint8_t> bytes = bytesOf(good);
  for (size_t n = 0; n < bytes.size(); ++n) {
    StatusOr<SafetensorsIndex> i = readSafetensorsIndex(bytes.data(), n);
    // Cut JSON never parses (the last byte is a newline after '}').
    if (n < bytes.size() - 1)
      EXPECT_FALSE(i.isOk()) << n;
  }
  for (size_t at = 0; at < bytes.size(); ++at)
    for (uint8_t v : {uint8_t(0), uint8_t('/'), uint8_t('.'), uint8_t(0xff)}) {
      std::vector<uint8_t> b = bytes;
      b[at] = v;
      StatusOr<SafetensorsIndex> i = readSafetensorsIndex(b.data(), b.size());
      if (i)
        for (const auto &[tensor, file] : i->weightMap)
          EXPECT_EQ(file.find('/'), std::string::npos);
      else
        EXPECT_FALSE(i.status().message().empty());
    }
}

TEST(ShardedSafetensors, RoundTripsEverySampleTypeAtSeveralSizes) {
  std::vector<OwnedTensor> tensors = sampleTensors();
  StringMetadata meta = {{"format", "pt"}};
  uint64_t total = 0;
  for (const OwnedTensor &t : tensors)
    total += *safetensorsStoredBytes(t.source.info);
  for (uint64_t limit : {uint64_t(1), uint64_t(40), uint64_t(300), total}) {
    ScratchDir dir;
    StatusOr<std::vector<std::string>> files = writeShardedSafetensors(
        dir.path("m.safetensors"), sources(tensors), meta, limit);
    ASSERT_TRUE(files.isOk()) << files.status().message();
    if (limit == total) {
      // One shard: a plain file, no index, as huggingface_hub writes it.
      EXPECT_EQ(*files, (std::vector<std::string>{dir.path("m.safetensors")}));
    } else {
      EXPECT_EQ(files->back(), dir.path("m.safetensors.index.json"));
      EXPECT_GT(files->size(), 2u);
      // Numbered from 1, in order; each at most the limit unless it holds
      // one tensor.
      size_t count = files->size() - 1;
      for (size_t k = 0; k < count; ++k) {
        EXPECT_EQ((*files)[k], shardFileName(dir.path("m"), unsigned(k + 1),
                                             unsigned(count), ".safetensors"));
        std::vector<uint8_t> bytes = readFile((*files)[k]);
        StatusOr<SafetensorsFile> shard =
            readSafetensors(bytes.data(), bytes.size());
        ASSERT_TRUE(shard.isOk()) << shard.status().message();
        uint64_t data = bytes.size() - 8 - shard->headerBytes;
        EXPECT_TRUE(data <= limit || shard->tensors.size() == 1)
            << (*files)[k] << " holds " << data << " bytes";
        EXPECT_EQ(shard->metadata, meta);
      }
      std::vector<uint8_t> index = readFile(files->back());
      StatusOr<SafetensorsIndex> parsed =
          readSafetensorsIndex(index.data(), index.size());
      ASSERT_TRUE(parsed.isOk());
      EXPECT_EQ(parsed->totalSize, total);
      EXPECT_EQ(parsed->files.size(), count);
    }
    for (const std::string &start :
         {dir.path("m.safetensors.index.json"),
          files->size() > 1 ? (*files)[0] : dir.path("m.safetensors")}) {
      if (files->size() == 1 && start != dir.path("m.safetensors"))
        continue;
      StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
          openWeightSet(start, FileFormat::Safetensors);
      ASSERT_TRUE(set.isOk()) << set.status().message();
      expectSameTensors(tensors, *set);
      for (const auto &f : *set)
        EXPECT_EQ(f->stringMetadata, meta) << f->path;
    }
  }
}

/// A three-shard safetensors set of tensors a, b, c (one per shard).
std::vector<OwnedTensor> threeTensors() {
  ElementType f32 = *parseElementType("f32");
  return {patternTensor("a", f32, {4}, 0), patternTensor("b", f32, {4}, 1),
          patternTensor("c", f32, {4}, 2)};
}

TEST(ShardedSafetensors, InconsistentSetsNameTheFile) {
  ScratchDir dir;
  std::vector<OwnedTensor> t = threeTensors();
  ASSERT_TRUE(
      writeShardedSafetensors(dir.path("m.safetensors"), sources(t), {}, 16)
          .isOk());
  std::string index = dir.path("m.safetensors.index.json");
  std::string s1 = dir.path("m-00001-of-00003.safetensors");
  std::string s2 = dir.path("m-00002-of-00003.safetensors");
  std::string s3 = dir.path("m-00003-of-00003.safetensors");
  std::vector<uint8_t> good = readFile(index);
  ASSERT_EQ(errorOf(index, FileFormat::Safetensors), "(opened)");
  ASSERT_EQ(errorOf(s1, FileFormat::Safetensors), "(opened)");
  EXPECT_NE(errorOf(s2, FileFormat::Safetensors)
                .find("is shard 2 of 3; name the first shard"),
            std::string::npos);

  auto withIndex = [&](const std::string &text) {
    writeFile(index, bytesOf(text));
    return errorOf(index, FileFormat::Safetensors);
  };
  std::string e = withIndex(
      safetensorsIndexText(0, {{"a", "m-00001-of-00003.safetensors"},
                               {"b", "m-00001-of-00003.safetensors"},
                               {"c", "m-00003-of-00003.safetensors"}}));
  EXPECT_NE(e.find("maps tensor 'b' to '" + s1 + "', which does not hold it"),
            std::string::npos)
      << e;
  e = withIndex(
      safetensorsIndexText(0, {{"a", "m-00001-of-00003.safetensors"},
                               {"c", "m-00003-of-00003.safetensors"}}));
  // m-00002 is not listed, so it is not opened: c and a are fine, but the
  // set then lacks b. The index is the authority; what it lists must hold.
  EXPECT_EQ(e, "(opened)");
  {
    // A listed shard holding a tensor the index does not list.
    ScratchDir two;
    ASSERT_TRUE(
        writeShardedSafetensors(two.path("m.safetensors"), sources(t), {}, 32)
            .isOk());
    std::string twoIndex = two.path("m.safetensors.index.json");
    writeFile(twoIndex, bytesOf(safetensorsIndexText(
                            0, {{"a", "m-00001-of-00002.safetensors"},
                                {"c", "m-00002-of-00002.safetensors"}})));
    e = errorOf(twoIndex, FileFormat::Safetensors);
    EXPECT_NE(e.find("'" + two.path("m-00001-of-00002.safetensors") +
                     "' holds tensor 'b', which '" + twoIndex +
                     "' does not list"),
              std::string::npos)
        << e;
  }
  e = withIndex(
      safetensorsIndexText(0, {{"a", "m-00001-of-00003.safetensors"},
                               {"b", "m-00002-of-00003.safetensors"},
                               {"c", "m-00004-of-00003.safetensors"}}));
  EXPECT_NE(e.find("names the shard 'm-00004-of-00003.safetensors', which is "
                   "missing"),
            std::string::npos)
      << e;
  e = withIndex(R"({"weight_map": {"a": "../m-00001-of-00003.safetensors"}})");
  EXPECT_NE(e.find(index + "': safetensors index: weight_map: tensor 'a'"),
            std::string::npos)
      << e;
  // A tensor in two shards.
  writeFile(index, good);
  std::vector<uint8_t> shard1 = readFile(s1);
  writeFile(s2, shard1);
  e = errorOf(index, FileFormat::Safetensors);
  EXPECT_NE(e.find("'" + index + "' maps tensor 'b' to '" + s2 +
                   "', which does not hold it"),
            std::string::npos)
      << e;
  // Without an index, the numbered files alone: a duplicate, then a gap.
  ::unlink(index.c_str());
  e = errorOf(s1, FileFormat::Safetensors);
  EXPECT_NE(e.find("tensor 'a' is in both '" + s1 + "' and '" + s2 + "'"),
            std::string::npos)
      << e;
  ::unlink(s2.c_str());
  e = errorOf(s1, FileFormat::Safetensors);
  EXPECT_NE(e.find("shard 2 of 3 ('" + s2 + "') is missing"), std::string::npos)
      << e;
  // A damaged shard: its own reader's message, naming it.
  writeFile(s2, {1, 2, 3});
  e = errorOf(s1, FileFormat::Safetensors);
  EXPECT_NE(e.find("'" + s2 + "': safetensors:"), std::string::npos) << e;
  (void)s3;
}

TEST(ShardedSafetensors, AFailedSetLeavesNoFile) {
  ScratchDir dir;
  std::vector<OwnedTensor> t = threeTensors();
  // The third tensor cannot be written (a ggml block type); the first two
  // shards are complete by then, and must vanish with the rest.
  t[2].source.info.ggmlBlockType = 8;
  StatusOr<std::vector<std::string>> files =
      writeShardedSafetensors(dir.path("m.safetensors"), sources(t), {}, 16);
  ASSERT_FALSE(files.isOk());
  EXPECT_TRUE(dir.files().empty());
}

TEST(OutputGroup, NothingAppearsUntilCommitAll) {
  ScratchDir dir;
  {
    OutputGroup group;
    for (const char *name : {"x", "y"}) {
      auto f = OutputFile::create(dir.path(name), 3, &group);
      ASSERT_TRUE(f.isOk());
      ASSERT_TRUE((*f)->write(0, "abc", 3).isOk());
      ASSERT_TRUE((*f)->commit().isOk());
    }
    // Committed members wait for the group as temporary files.
    EXPECT_EQ(dir.files().size(), 2u);
    for (const std::string &f : dir.files())
      EXPECT_NE(f.find(".tmp."), std::string::npos);
  }
  EXPECT_TRUE(dir.files().empty()); // dropped without commitAll
  OutputGroup group;
  auto f = OutputFile::create(dir.path("z"), 1, &group);
  ASSERT_TRUE(f.isOk());
  ASSERT_TRUE((*f)->commit().isOk());
  ASSERT_TRUE(group.commitAll().isOk());
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"z"}));
}

// A computed tensor at an unaligned file offset: the bytes are the same as
// produced, and every chunk after the first starts at a multiple of
// kProduceChunkBytes in the file.
TEST(OutputFile, ComputedChunksAlignToTheFile) {
  ScratchDir dir;
  for (uint64_t offset : {uint64_t(0), uint64_t(32), kProduceChunkBytes - 1,
                          kProduceChunkBytes + 4096}) {
    const uint64_t length = 3 * kProduceChunkBytes + 1000;
    TensorSource src;
    src.info.name = "t";
    src.info.encoding = Encoding::Byte;
    src.info.ggmlBlockType = 2u;
    src.info.length = length;
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    src.produce = [&](uint64_t first, uint64_t n, uint8_t *out) {
      calls.emplace_back(first, n);
      for (uint64_t i = 0; i < n; ++i)
        out[i] = uint8_t((first + i) * 131 % 251);
    };
    std::string path = dir.path("o" + std::to_string(offset));
    auto f = OutputFile::create(path, offset + length);
    ASSERT_TRUE(f.isOk());
    ASSERT_TRUE((*f)->writeTensor(offset, src, Encoding::Byte).isOk());
    ASSERT_TRUE((*f)->commit().isOk());
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), offset + length);
    for (uint64_t i = 0; i < length; ++i)
      ASSERT_EQ(uint8_t(bytes[offset + i]), uint8_t(i * 131 % 251)) << i;
    ASSERT_FALSE(calls.empty());
    uint64_t next = 0;
    for (size_t k = 0; k < calls.size(); ++k) {
      EXPECT_EQ(calls[k].first, next);
      EXPECT_LE(calls[k].second, kProduceChunkBytes);
      if (k > 0)
        EXPECT_EQ((offset + calls[k].first) % kProduceChunkBytes, 0u)
            << "offset " << offset << " chunk " << k;
      next += calls[k].second;
    }
    EXPECT_EQ(next, length);
  }
}

const GgufValue *findKey(const GgufMetadata &m, std::string_view key) {
  for (const GgufKeyValue &kv : m)
    if (kv.key == key)
      return &kv.value;
  return nullptr;
}

TEST(ShardedGguf, WritesGgufSplitKeysAndRoundTrips) {
  std::vector<OwnedTensor> tensors = sampleTensors();
  GgufMetadata meta = {{"general.name", GgufValue::string("x")},
                       {"general.alignment", GgufValue::uint32(64)}};
  ScratchDir dir;
  StatusOr<std::vector<std::string>> files =
      writeShardedGguf(dir.path("m.gguf"), sources(tensors), meta, 200);
  ASSERT_TRUE(files.isOk()) << files.status().message();
  unsigned count = unsigned(files->size());
  ASSERT_GT(count, 2u);
  for (unsigned k = 0; k < count; ++k) {
    EXPECT_EQ((*files)[k], shardFileName(dir.path("m"), k + 1, count, ".gguf"));
    // Each file alone: its split keys, with gguf-split's types, the first
    // one with the caller's pairs first.
    std::vector<uint8_t> bytes = readFile((*files)[k]);
    StatusOr<GgufFile> f = readGguf(bytes.data(), bytes.size());
    ASSERT_TRUE(f.isOk()) << f.status().message();
    EXPECT_EQ(f->alignment, 64u);
    const GgufValue *no = findKey(f->metadata, "split.no");
    const GgufValue *n = findKey(f->metadata, "split.count");
    const GgufValue *total = findKey(f->metadata, "split.tensors.count");
    ASSERT_TRUE(no && n && total);
    EXPECT_EQ(no->type, GgufType::UInt16);
    EXPECT_EQ(n->type, GgufType::UInt16);
    EXPECT_EQ(total->type, GgufType::Int32);
    EXPECT_EQ(no->scalars, std::vector<uint64_t>{k});
    EXPECT_EQ(n->scalars, std::vector<uint64_t>{count});
    EXPECT_EQ(total->scalars, std::vector<uint64_t>{tensors.size()});
    EXPECT_EQ(findKey(f->metadata, "general.name") != nullptr, k == 0);
    if (k == 0) {
      EXPECT_EQ(f->metadata[0].key, "general.name");
      EXPECT_EQ(f->metadata[1].key, "general.alignment");
      EXPECT_EQ(f->metadata[2].key, "split.no");
    }
  }
  StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
      openWeightSet((*files)[0], FileFormat::Gguf);
  ASSERT_TRUE(set.isOk()) << set.status().message();
  expectSameTensors(tensors, *set);
  // The split keys are gone; the pairs are back on the first file.
  EXPECT_EQ((*set)[0]->ggufMetadata, meta);
  for (size_t k = 1; k < set->size(); ++k)
    EXPECT_EQ((*set)[k]->ggufMetadata, GgufMetadata{meta[1]});
}

/// Rewrites the split keys of one file of a set.
void rewrite(const std::string &path,
             const std::function<void(GgufMetadata &)> &edit) {
  std::vector<uint8_t> bytes = readFile(path);
  StatusOr<GgufFile> f = readGguf(bytes.data(), bytes.size());
  ASSERT_TRUE(f.isOk());
  std::vector<TensorSource> src;
  for (const TensorInfo &t : f->tensors) {
    TensorSource s;
    s.info = t;
    s.data = bytes.data() + t.offset;
    src.push_back(s);
  }
  GgufMetadata m = f->metadata;
  edit(m);
  ASSERT_TRUE(writeGguf(path, src, m).isOk());
}

TEST(ShardedGguf, InconsistentSetsNameTheFile) {
  std::vector<OwnedTensor> t = threeTensors();
  auto setUp = [&](ScratchDir &dir) {
    ASSERT_TRUE(
        writeShardedGguf(dir.path("m.gguf"), sources(t), {}, 16).isOk());
  };
  auto u16 = [](uint64_t v) {
    GgufValue x;
    x.type = GgufType::UInt16;
    x.scalars = {v};
    return x;
  };
  auto set = [](GgufMetadata &m, const char *key, GgufValue v) {
    for (GgufKeyValue &kv : m)
      if (kv.key == key)
        kv.value = v;
  };
  auto drop = [](GgufMetadata &m, const char *key) {
    m.erase(
        std::remove_if(m.begin(), m.end(),
                       [&](const GgufKeyValue &kv) { return kv.key == key; }),
        m.end());
  };
  struct Case {
    int file; // 1-based; 0: none
    std::function<void(GgufMetadata &)> edit;
    const char *expected;
    int name = 1; // the file to open
  };
  std::vector<Case> cases = {
      {0, nullptr, "(opened)"},
      {0, nullptr, "is split 2 of 3 (split.no 1); name the first file", 2},
      {2, [&](GgufMetadata &m) { set(m, "split.no", u16(2)); },
       "m-00002-of-00003.gguf': split.no is 2, expected 1"},
      {3, [&](GgufMetadata &m) { drop(m, "split.no"); },
       "m-00003-of-00003.gguf': split.no is missing, expected 2"},
      {2, [&](GgufMetadata &m) { set(m, "split.count", u16(4)); },
       "m-00002-of-00003.gguf': split.count is 4, but"},
      {1, [&](GgufMetadata &m) { set(m, "split.count", GgufValue::uint32(3)); },
       "split.count has GGUF type 4, not uint16 (2)"},
      {1, [&](GgufMetadata &m) { set(m, "split.tensors.count", u16(3)); },
       "split.tensors.count has GGUF type 2, not int32 (5)"},
      {1,
       [&](GgufMetadata &m) {
         GgufValue v;
         v.type = GgufType::Int32;
         v.scalars = {4};
         set(m, "split.tensors.count", v);
       },
       "m-00002-of-00003.gguf': split.tensors.count is 3, but"},
      {1, [&](GgufMetadata &m) { drop(m, "split.tensors.count"); },
       "has split.count 3 but no split.tensors.count"},
      {1, [&](GgufMetadata &m) { drop(m, "split.no"); },
       "has split.count 3 but no split.no"},
      {1, [&](GgufMetadata &m) { set(m, "split.count", u16(2)); },
       "is the first of 2 splits (split.count), so its name must end in "
       "'-00001-of-00002.gguf'"},
  };
  for (const Case &c : cases) {
    ScratchDir dir;
    setUp(dir);
    std::string path =
        dir.path("m-0000" + std::to_string(c.file) + "-of-00003.gguf");
    if (c.file)
      rewrite(path, c.edit);
    std::string e =
        errorOf(dir.path("m-0000" + std::to_string(c.name) + "-of-00003.gguf"),
                FileFormat::Gguf);
    EXPECT_NE(e.find(c.expected), std::string::npos) << c.expected << "\n" << e;
  }
  {
    // A missing file, and the same tensor in two files.
    ScratchDir dir;
    setUp(dir);
    std::vector<uint8_t> second = readFile(dir.path("m-00002-of-00003.gguf"));
    ::unlink(dir.path("m-00002-of-00003.gguf").c_str());
    EXPECT_NE(errorOf(dir.path("m-00001-of-00003.gguf"), FileFormat::Gguf)
                  .find("split 2 of 3 ('" + dir.path("m-00002-of-00003.gguf") +
                        "') is missing"),
              std::string::npos);
    writeFile(dir.path("m-00002-of-00003.gguf"), second);
    std::string third = dir.path("m-00003-of-00003.gguf");
    writeFile(third, second);
    rewrite(third, [&](GgufMetadata &m) { set(m, "split.no", u16(2)); });
    std::string e =
        errorOf(dir.path("m-00001-of-00003.gguf"), FileFormat::Gguf);
    EXPECT_NE(e.find("tensor 'b' is in both"), std::string::npos) << e;
  }
}

TEST(ShardedGguf, AFailedSetLeavesNoFile) {
  ScratchDir dir;
  std::vector<OwnedTensor> t = threeTensors();
  t[2].source.info.name = std::string(80, 'n'); // too long for GGUF
  ASSERT_FALSE(writeShardedGguf(dir.path("m.gguf"), sources(t), {}, 16).isOk());
  EXPECT_TRUE(dir.files().empty());
}

} // namespace
