//===- ShardRuntimeTest.cpp - The C API opens sharded sets as one module --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Sets written by the project's writers (.vmpk shards, GGUF splits,
// safetensors shards with and without their index) open through the C API
// as one module, in every load and verification mode, and match, segment
// by segment (names, types, bytes, unpacked values, foreign types,
// metadata), the same tensors written as one file. Each segment points into
// the file that holds it. Any other file of a set, and a set's file given
// as memory, is refused with a message naming the first file; sets whose
// files disagree (a missing shard, a wrong count, a renumbered file, a
// shard of another set, a name twice) are format errors naming the file.
//
//===----------------------------------------------------------------------===//

#include "vmpack/vmpack.h"

#include "SampleTensors.h"
#include "TestFiles.h"
#include "vmpack/Formats/Shards.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;
using vmpack::archive::testing::writeFile;

namespace {

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Opens `path` with `options`; null (and the status in `status`) on
/// failure.
vmpack_module_t *openWith(const std::string &path, vmpack_load_mode_t load,
                          vmpack_verify_mode_t verify,
                          vmpack_status_t *status = nullptr) {
  vmpack_open_options_t o;
  vmpack_open_options_init(&o);
  o.load_mode = load;
  o.verify = verify;
  o.threads = 2;
  vmpack_module_t *m = nullptr;
  vmpack_status_t st =
      vmpack_module_open_file_with_options(path.c_str(), &o, &m);
  if (status)
    *status = st;
  return st == VMPACK_OK ? m : nullptr;
}

/// The status and message of opening `path` with the defaults.
std::pair<vmpack_status_t, std::string> openError(const std::string &path) {
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_file(path.c_str(), &m);
  std::string message = st == VMPACK_OK ? "(opened)" : vmpack_last_error();
  EXPECT_EQ(st == VMPACK_OK, m != nullptr);
  vmpack_module_close(m);
  return {st, message};
}

std::vector<uint8_t> unpacked(const vmpack_module_t *m, size_t i,
                              uint64_t count, vmpack_dtype_t dtype,
                              vmpack_status_t *status) {
  std::vector<uint8_t> out(count * 2 * 4 + 1);
  *status =
      vmpack_segment_unpack(m, i, 0, count, dtype, out.data(), out.size());
  return out;
}

/// `set` and `whole` hold the same segments, in the same order, with the
/// same metadata; every segment of `set` lies in the file
/// vmpack_segment_file names, at its offset.
void expectSameModule(const vmpack_module_t *set, const vmpack_module_t *whole,
                      const std::vector<std::string> &files) {
  ASSERT_EQ(vmpack_module_file_count(set), files.size());
  for (size_t k = 0; k < files.size(); ++k)
    EXPECT_EQ(vmpack_module_file_path(set, k), files[k]);
  EXPECT_EQ(vmpack_module_container(set), vmpack_module_container(whole));
  EXPECT_STREQ(vmpack_module_name(set), vmpack_module_name(whole));
  size_t n = vmpack_module_segment_count(whole);
  ASSERT_EQ(vmpack_module_segment_count(set), n);
  std::vector<std::vector<uint8_t>> fileBytes;
  for (const std::string &f : files)
    fileBytes.push_back(readFile(f));
  size_t lastFile = 0;
  for (size_t i = 0; i < n; ++i) {
    vmpack_segment_info_t a, b;
    ASSERT_EQ(vmpack_module_segment_info(set, i, &a), VMPACK_OK);
    ASSERT_EQ(vmpack_module_segment_info(whole, i, &b), VMPACK_OK);
    std::string name(a.name, a.name_length);
    ASSERT_EQ(name, std::string(b.name, b.name_length));
    EXPECT_STREQ(a.mlir_type, b.mlir_type) << name;
    EXPECT_STREQ(a.element_type, b.element_type) << name;
    EXPECT_EQ(a.element_count, b.element_count) << name;
    EXPECT_EQ(a.encoding, b.encoding) << name;
    ASSERT_EQ(a.length, b.length) << name;
    EXPECT_EQ(a.checksum, b.checksum) << name;
    EXPECT_EQ(std::memcmp(a.data, b.data, a.length), 0) << name;
    // The bytes lie in the file vmpack_segment_file names, at `offset`;
    // files come in order.
    size_t file = 99;
    ASSERT_EQ(vmpack_segment_file(set, i, &file), VMPACK_OK);
    ASSERT_LT(file, files.size());
    EXPECT_GE(file, lastFile);
    lastFile = file;
    ASSERT_LE(a.offset + a.length, fileBytes[file].size()) << name;
    EXPECT_EQ(std::memcmp(a.data, fileBytes[file].data() + a.offset, a.length),
              0)
        << name;
    size_t found = 99;
    ASSERT_EQ(vmpack_module_find_segment(set, a.name, a.name_length, &found),
              VMPACK_OK);
    EXPECT_EQ(found, i);
    EXPECT_EQ(vmpack_segment_verify(set, i), VMPACK_OK) << vmpack_last_error();
    vmpack_foreign_info_t fa, fb;
    ASSERT_EQ(vmpack_segment_foreign_info(set, i, &fa), VMPACK_OK);
    ASSERT_EQ(vmpack_segment_foreign_info(whole, i, &fb), VMPACK_OK);
    EXPECT_STREQ(fa.type, fb.type) << name;
    EXPECT_EQ(fa.type_id, fb.type_id);
    ASSERT_EQ(fa.rank, fb.rank);
    for (size_t d = 0; d < fa.rank; ++d)
      EXPECT_EQ(fa.shape[d], fb.shape[d]);
    for (vmpack_dtype_t dtype : {VMPACK_DTYPE_INT32, VMPACK_DTYPE_FLOAT32}) {
      vmpack_status_t sa, sb;
      std::vector<uint8_t> ua = unpacked(set, i, a.element_count, dtype, &sa);
      std::vector<uint8_t> ub = unpacked(whole, i, b.element_count, dtype, &sb);
      EXPECT_EQ(sa, sb) << name;
      EXPECT_EQ(ua, ub) << name;
    }
  }
  ASSERT_GT(lastFile, 0u); // the segments really come from several files
  size_t keys = vmpack_module_metadata_count(whole);
  ASSERT_EQ(vmpack_module_metadata_count(set), keys);
  for (size_t k = 0; k < keys; ++k) {
    vmpack_metadata_entry_t a, b;
    ASSERT_EQ(vmpack_module_metadata_entry(set, k, &a), VMPACK_OK);
    ASSERT_EQ(vmpack_module_metadata_entry(whole, k, &b), VMPACK_OK);
    EXPECT_EQ(std::string(a.key, a.key_length),
              std::string(b.key, b.key_length));
    EXPECT_EQ(std::string(a.value, a.value_length),
              std::string(b.value, b.value_length));
    EXPECT_STREQ(a.value_type, b.value_type);
  }
  size_t at;
  EXPECT_EQ(vmpack_module_find_metadata(set, "vmpack.shard.count", 18, &at),
            VMPACK_ERROR_NOT_FOUND);
  EXPECT_EQ(vmpack_module_find_metadata(set, "split.count", 11, &at),
            VMPACK_ERROR_NOT_FOUND);
  EXPECT_EQ(vmpack_module_verify(set, 2), VMPACK_OK) << vmpack_last_error();
}

/// Opens `start` (a set) in every load and verification mode and compares
/// it with `whole` (the same tensors as one file).
void expectSetOpensAsWhole(const std::string &start, const std::string &whole,
                           const std::vector<std::string> &files) {
  vmpack_module_t *w = nullptr;
  ASSERT_EQ(vmpack_module_open_file(whole.c_str(), &w), VMPACK_OK)
      << vmpack_last_error();
  for (vmpack_load_mode_t load : {VMPACK_LOAD_MMAP, VMPACK_LOAD_READ})
    for (vmpack_verify_mode_t verify :
         {VMPACK_VERIFY_STRUCTURE, VMPACK_VERIFY_FULL, VMPACK_VERIFY_LAZY}) {
      SCOPED_TRACE(start + " load " + std::to_string(load) + " verify " +
                   std::to_string(verify));
      vmpack_module_t *s = openWith(start, load, verify);
      ASSERT_NE(s, nullptr) << vmpack_last_error();
      EXPECT_EQ(vmpack_module_load_mode(s), load);
      expectSameModule(s, w, files);
      vmpack_module_close(s);
    }
  vmpack_module_close(w);
}

TEST(ShardRuntime, VmpkSetOpensAsOneModule) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  StatusOr<std::vector<std::string>> files = writeShardedVmpk(
      dir.path("m.vmpk"), sources(tensors), {{"k", "v"}}, "m", 64, 300);
  ASSERT_TRUE(files.isOk()) << files.status().message();
  ASSERT_GT(files->size(), 2u);
  ASSERT_TRUE(
      writeVmpk(dir.path("whole.vmpk"), sources(tensors), {{"k", "v"}}, "m", 64)
          .isOk());
  expectSetOpensAsWhole((*files)[0], dir.path("whole.vmpk"), *files);
}

TEST(ShardRuntime, GgufSplitOpensAsOneModule) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  GgufMetadata meta = {{"general.name", GgufValue::string("x")},
                       {"general.alignment", GgufValue::uint32(64)}};
  StatusOr<std::vector<std::string>> files =
      writeShardedGguf(dir.path("m.gguf"), sources(tensors), meta, 200);
  ASSERT_TRUE(files.isOk()) << files.status().message();
  ASSERT_GT(files->size(), 2u);
  ASSERT_TRUE(writeGguf(dir.path("whole.gguf"), sources(tensors), meta).isOk());
  expectSetOpensAsWhole((*files)[0], dir.path("whole.gguf"), *files);
}

TEST(ShardRuntime, SafetensorsSetOpensByIndexOrFirstShard) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  StringMetadata meta = {{"format", "pt"}};
  StatusOr<std::vector<std::string>> files = writeShardedSafetensors(
      dir.path("m.safetensors"), sources(tensors), meta, 300);
  ASSERT_TRUE(files.isOk()) << files.status().message();
  // The shards and the index, last.
  std::vector<std::string> shards(files->begin(), files->end());
  shards.erase(std::remove_if(shards.begin(), shards.end(),
                              [](const std::string &f) {
                                return contains(f, ".index.json");
                              }),
               shards.end());
  ASSERT_GT(shards.size(), 2u);
  ASSERT_TRUE(
      writeSafetensors(dir.path("whole.safetensors"), sources(tensors), meta)
          .isOk());
  std::string index = dir.path("m.safetensors.index.json");
  expectSetOpensAsWhole(index, dir.path("whole.safetensors"), shards);
  expectSetOpensAsWhole(shards[0], dir.path("whole.safetensors"), shards);
  // Without the index, the numbered files alone.
  ASSERT_EQ(std::remove(index.c_str()), 0);
  expectSetOpensAsWhole(shards[0], dir.path("whole.safetensors"), shards);
}

/// Every file but the first is refused by path, naming the first; the
/// first file's bytes from memory are refused too (when the file says it is
/// part of a set).
void expectOthersRefused(const std::vector<std::string> &files,
                         bool saysSoInside) {
  for (size_t k = 1; k < files.size(); ++k) {
    auto [st, message] = openError(files[k]);
    EXPECT_EQ(st, VMPACK_ERROR_UNSUPPORTED) << files[k];
    EXPECT_TRUE(contains(message, "file " + std::to_string(k + 1) + " of " +
                                      std::to_string(files.size())))
        << message;
    EXPECT_TRUE(contains(message,
                         "open the set by its first file ('" + files[0] + "')"))
        << message;
  }
  for (size_t k = 0; k < files.size(); ++k) {
    std::vector<uint8_t> bytes = readFile(files[k]);
    // 16-byte aligned, as a .vmpk needs.
    std::vector<uint64_t> aligned((bytes.size() + 7) / 8 + 2);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    vmpack_module_t *m = nullptr;
    vmpack_status_t st =
        vmpack_module_open_memory(aligned.data(), bytes.size(), &m);
    if (!saysSoInside) {
      EXPECT_EQ(st, VMPACK_OK);
      vmpack_module_close(m);
      continue;
    }
    EXPECT_EQ(st, VMPACK_ERROR_UNSUPPORTED) << files[k];
    EXPECT_EQ(m, nullptr);
    std::string message = vmpack_last_error();
    EXPECT_TRUE(contains(message, "file " + std::to_string(k + 1) + " of " +
                                      std::to_string(files.size())))
        << message;
    EXPECT_TRUE(contains(message, "opened from the path of its first file"))
        << message;
  }
}

TEST(ShardRuntime, OtherFilesAndMemoryAreRefused) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  StatusOr<std::vector<std::string>> vmpk =
      writeShardedVmpk(dir.path("m.vmpk"), sources(tensors), {}, "m", 64, 300);
  ASSERT_TRUE(vmpk.isOk());
  expectOthersRefused(*vmpk, true);
  StatusOr<std::vector<std::string>> gguf =
      writeShardedGguf(dir.path("m.gguf"), sources(tensors), {}, 200);
  ASSERT_TRUE(gguf.isOk());
  expectOthersRefused(*gguf, true);
  StatusOr<std::vector<std::string>> st = writeShardedSafetensors(
      dir.path("m.safetensors"), sources(tensors), {}, 300);
  ASSERT_TRUE(st.isOk());
  std::vector<std::string> shards;
  for (const std::string &f : *st)
    if (!contains(f, ".index.json"))
      shards.push_back(f);
  expectOthersRefused(shards, false);

  // A caller's buffer holds one file, not a set.
  std::vector<uint64_t> buffer(1 << 16);
  vmpack_open_options_t o;
  vmpack_open_options_init(&o);
  o.load_mode = VMPACK_LOAD_READ;
  o.buffer = buffer.data();
  o.buffer_size = buffer.size() * 8;
  for (const std::string &first : {(*vmpk)[0], (*gguf)[0], shards[0]}) {
    vmpack_module_t *m = nullptr;
    EXPECT_EQ(vmpack_module_open_file_with_options(first.c_str(), &o, &m),
              VMPACK_ERROR_INVALID_ARGUMENT)
        << first;
    EXPECT_TRUE(contains(vmpack_last_error(), "buffer")) << vmpack_last_error();
  }
}

/// Writes one .vmpk file of a hand-made set: `tensors` with shard keys
/// no/count/segments, module `name`.
void writeShard(const std::string &path, const std::vector<OwnedTensor> &t,
                const std::vector<size_t> &which, unsigned no, unsigned count,
                unsigned segments, const std::string &name = "m") {
  std::vector<TensorSource> all = sources(t), chosen;
  for (size_t i : which)
    chosen.push_back(all[i]);
  ASSERT_TRUE(writeVmpk(path, chosen,
                        {{"vmpack.shard.no", std::to_string(no)},
                         {"vmpack.shard.count", std::to_string(count)},
                         {"vmpack.shard.segments", std::to_string(segments)}},
                        name, 64)
                  .isOk());
}

std::vector<OwnedTensor> fourTensors() {
  vmpack::ElementType f32 = *vmpack::parseElementType("f32");
  return {patternTensor("a", f32, {4}, 0), patternTensor("b", f32, {4}, 1),
          patternTensor("c", f32, {4}, 2), patternTensor("d", f32, {4}, 3)};
}

TEST(ShardRuntime, InconsistentVmpkSetsNameTheFile) {
  std::vector<OwnedTensor> t = fourTensors();
  auto expectError = [](const std::string &first,
                        std::initializer_list<const char *> parts) {
    auto [st, message] = openError(first);
    EXPECT_EQ(st, VMPACK_ERROR_FORMAT) << message;
    for (const char *p : parts)
      EXPECT_TRUE(contains(message, p)) << message << "\n  lacks: " << p;
  };
  {
    // The good set opens.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00002.vmpk"), t, {0, 1}, 1, 2, 4);
    writeShard(dir.path("m-00002-of-00002.vmpk"), t, {2, 3}, 2, 2, 4);
    EXPECT_EQ(openError(dir.path("m-00001-of-00002.vmpk")).second, "(opened)");
  }
  {
    // A missing shard.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00003.vmpk"), t, {0, 1}, 1, 3, 4);
    writeShard(dir.path("m-00003-of-00003.vmpk"), t, {2, 3}, 3, 3, 4);
    expectError(dir.path("m-00001-of-00003.vmpk"),
                {"shard 2 of 3", "m-00002-of-00003.vmpk') is missing"});
  }
  {
    // A shard that says another count.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00002.vmpk"), t, {0, 1}, 1, 2, 4);
    writeShard(dir.path("m-00002-of-00002.vmpk"), t, {2, 3}, 2, 3, 4);
    expectError(dir.path("m-00001-of-00002.vmpk"),
                {"m-00002-of-00002.vmpk'", "count 3"});
  }
  {
    // The first file named for another count than its keys say.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00003.vmpk"), t, {0, 1}, 1, 2, 4);
    expectError(
        dir.path("m-00001-of-00003.vmpk"),
        {"m-00001-of-00003.vmpk", "must end in '-00001-of-00002.vmpk'"});
  }
  {
    // A renumbered file: shard 3's file copied in as shard 2.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00003.vmpk"), t, {0}, 1, 3, 4);
    writeShard(dir.path("m-00002-of-00003.vmpk"), t, {3}, 3, 3, 4);
    writeShard(dir.path("m-00003-of-00003.vmpk"), t, {1, 2}, 3, 3, 4);
    expectError(dir.path("m-00001-of-00003.vmpk"),
                {"m-00002-of-00003.vmpk'", "no 3", "shard 2 of 3"});
  }
  {
    // A shard of another set: another module name.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00002.vmpk"), t, {0, 1}, 1, 2, 4);
    writeShard(dir.path("m-00002-of-00002.vmpk"), t, {2, 3}, 2, 2, 4, "other");
    expectError(dir.path("m-00001-of-00002.vmpk"),
                {"m-00002-of-00002.vmpk: module 'other'", "is module 'm'",
                 "not one set"});
  }
  {
    // The segment count the keys give is not what the files hold.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00002.vmpk"), t, {0, 1}, 1, 2, 5);
    writeShard(dir.path("m-00002-of-00002.vmpk"), t, {2, 3}, 2, 2, 5);
    expectError(dir.path("m-00001-of-00002.vmpk"),
                {"vmpack.shard.segments is 5", "hold 4 segments"});
  }
  {
    // One name in two files.
    ScratchDir dir;
    writeShard(dir.path("m-00001-of-00002.vmpk"), t, {0, 1}, 1, 2, 4);
    writeShard(dir.path("m-00002-of-00002.vmpk"), t, {1, 2}, 2, 2, 4);
    expectError(dir.path("m-00001-of-00002.vmpk"),
                {"'b'", "m-00001-of-00002.vmpk", "m-00002-of-00002.vmpk"});
  }
}

TEST(ShardRuntime, InconsistentForeignSetsNameTheFile) {
  std::vector<OwnedTensor> t = fourTensors();
  {
    // A GGUF split whose second file is missing.
    ScratchDir dir;
    StatusOr<std::vector<std::string>> files =
        writeShardedGguf(dir.path("m.gguf"), sources(t), {}, 16);
    ASSERT_TRUE(files.isOk());
    ASSERT_EQ(files->size(), 4u);
    ASSERT_EQ(std::remove((*files)[1].c_str()), 0);
    auto [st, message] = openError((*files)[0]);
    EXPECT_EQ(st, VMPACK_ERROR_FORMAT);
    EXPECT_TRUE(
        contains(message, "split 2 of 4 ('" + (*files)[1] + "') is missing"))
        << message;
  }
  {
    // A GGUF file renumbered: split 3 copied in as split 2.
    ScratchDir dir;
    StatusOr<std::vector<std::string>> files =
        writeShardedGguf(dir.path("m.gguf"), sources(t), {}, 16);
    ASSERT_TRUE(files.isOk());
    writeFile((*files)[1], readFile((*files)[2]));
    auto [st, message] = openError((*files)[0]);
    EXPECT_EQ(st, VMPACK_ERROR_FORMAT);
    EXPECT_TRUE(contains(message, (*files)[1] + "': split.no is 2, expected 1"))
        << message;
  }
  {
    // A safetensors shard of another set, holding a tensor of this one
    // again.
    ScratchDir dir;
    StatusOr<std::vector<std::string>> files =
        writeShardedSafetensors(dir.path("m.safetensors"), sources(t), {}, 16);
    ASSERT_TRUE(files.isOk());
    std::string index = dir.path("m.safetensors.index.json");
    ASSERT_EQ(std::remove(index.c_str()), 0);
    writeFile(dir.path("m-00002-of-00004.safetensors"),
              readFile(dir.path("m-00001-of-00004.safetensors")));
    auto [st, message] = openError(dir.path("m-00001-of-00004.safetensors"));
    EXPECT_EQ(st, VMPACK_ERROR_FORMAT);
    EXPECT_TRUE(contains(message, "tensor 'a' is in both")) << message;
    // A missing shard, no index.
    ASSERT_EQ(std::remove(dir.path("m-00003-of-00004.safetensors").c_str()), 0);
    std::tie(st, message) = openError(dir.path("m-00001-of-00004.safetensors"));
    EXPECT_TRUE(contains(message, "shard 3 of 4")) << message;
  }
}

TEST(ShardRuntime, EveryByteChangeAndTruncationOfAShard) {
  // Each byte of shard 1 and of shard 2 changed in turn, then shard 2 cut
  // short: opening the set (with full verification) never crashes, fails
  // with a message, and a damaged shard 2 is named.
  ScratchDir dir;
  std::vector<OwnedTensor> t = fourTensors();
  std::string first = dir.path("m-00001-of-00002.vmpk");
  std::string second = dir.path("m-00002-of-00002.vmpk");
  writeShard(first, t, {0, 1}, 1, 2, 4);
  writeShard(second, t, {2, 3}, 2, 2, 4);
  size_t refused = 0, changes = 0;
  for (const std::string &victim : {first, second}) {
    std::vector<uint8_t> good = readFile(victim);
    for (size_t at = 0; at < good.size(); ++at) {
      std::vector<uint8_t> bad = good;
      bad[at] ^= 0x5a;
      writeFile(victim, bad);
      vmpack_status_t st;
      vmpack_module_t *m =
          openWith(first, VMPACK_LOAD_MMAP, VMPACK_VERIFY_FULL, &st);
      ++changes;
      if (st == VMPACK_OK) {
        EXPECT_EQ(vmpack_module_segment_count(m), 4u);
        vmpack_module_close(m);
        continue;
      }
      ++refused;
      std::string message = vmpack_last_error();
      EXPECT_FALSE(message.empty());
      if (victim == second && st == VMPACK_ERROR_CHECKSUM)
        EXPECT_TRUE(contains(message, second)) << message;
    }
    writeFile(victim, good);
  }
  // Full verification accounts for (almost) every byte.
  EXPECT_GT(refused, changes * 9 / 10) << refused << " of " << changes;
  std::vector<uint8_t> good = readFile(second);
  for (size_t keep = 0; keep < good.size(); keep += 7) {
    writeFile(second, std::vector<uint8_t>(good.begin(), good.begin() + keep));
    auto [st, message] = openError(first);
    EXPECT_NE(st, VMPACK_OK) << keep;
    EXPECT_TRUE(contains(message, "m-00002-of-00002.vmpk")) << message;
  }
}

TEST(ShardRuntime, OneFileSetsAndPlainFilesOpenAlone) {
  // A set of one file is the module; its keys are not shown.
  ScratchDir dir;
  std::vector<OwnedTensor> t = fourTensors();
  writeShard(dir.path("m-00001-of-00001.vmpk"), t, {0, 1, 2, 3}, 1, 1, 4);
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(
      vmpack_module_open_file(dir.path("m-00001-of-00001.vmpk").c_str(), &m),
      VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_segment_count(m), 4u);
  EXPECT_EQ(vmpack_module_file_count(m), 1u);
  EXPECT_EQ(vmpack_module_file_path(m, 0), dir.path("m-00001-of-00001.vmpk"));
  EXPECT_STREQ(vmpack_module_file_path(m, 1), "");
  size_t file = 9;
  EXPECT_EQ(vmpack_segment_file(m, 3, &file), VMPACK_OK);
  EXPECT_EQ(file, 0u);
  EXPECT_EQ(vmpack_segment_file(m, 4, &file), VMPACK_ERROR_OUT_OF_RANGE);
  vmpack_module_close(m);
}

TEST(ShardRuntime, MalformedShardKeysAreFormatErrors) {
  const std::vector<std::vector<std::pair<std::string, std::string>>> bad = {
      {{"vmpack.shard.no", "1"}},
      {{"vmpack.shard.no", "0"},
       {"vmpack.shard.count", "2"},
       {"vmpack.shard.segments", "3"}},
      {{"vmpack.shard.no", "3"},
       {"vmpack.shard.count", "2"},
       {"vmpack.shard.segments", "3"}},
      {{"vmpack.shard.no", "01"},
       {"vmpack.shard.count", "2"},
       {"vmpack.shard.segments", "3"}},
      {{"vmpack.shard.no", "1"},
       {"vmpack.shard.count", "100000"},
       {"vmpack.shard.segments", "3"}},
      {{"vmpack.shard.no", "+1"},
       {"vmpack.shard.count", "2"},
       {"vmpack.shard.segments", "3"}},
      {{"vmpack.shard.no", "1"},
       {"vmpack.shard.count", "2"},
       {"vmpack.shard.segments", "99999999999999999999"}},
  };
  for (const auto &m : bad) {
    StatusOr<std::optional<VmpkShardKeys>> k = readVmpkShardKeys(m);
    ASSERT_FALSE(k.isOk()) << m[0].second;
    EXPECT_NE(k.status().message().find("describes a shard set badly"),
              std::string::npos);
  }
  StatusOr<std::optional<VmpkShardKeys>> none = readVmpkShardKeys({{"a", "b"}});
  ASSERT_TRUE(none.isOk());
  EXPECT_FALSE(none->has_value());
  StatusOr<std::optional<VmpkShardKeys>> good =
      readVmpkShardKeys({{"vmpack.shard.no", "2"},
                         {"vmpack.shard.count", "12"},
                         {"vmpack.shard.segments", "40"}});
  ASSERT_TRUE(good.isOk());
  EXPECT_EQ((*good)->number, 2u);
  EXPECT_EQ((*good)->count, 12u);
  EXPECT_EQ((*good)->segments, 40u);
  // A module whose keys are malformed is refused when opened.
  ScratchDir dir;
  std::vector<OwnedTensor> t = fourTensors();
  ASSERT_TRUE(writeVmpk(dir.path("bad.vmpk"), sources(t),
                        {{"vmpack.shard.no", "01"},
                         {"vmpack.shard.count", "2"},
                         {"vmpack.shard.segments", "4"}},
                        "m", 64)
                  .isOk());
  auto [st, message] = openError(dir.path("bad.vmpk"));
  EXPECT_EQ(st, VMPACK_ERROR_FORMAT);
  EXPECT_TRUE(contains(message, "describes a shard set badly")) << message;
}

} // namespace
