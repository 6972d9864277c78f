//===- ShardRuntimeTest.cpp - The C API and sharded .vmpk sets
//-------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A shard of a .vmpk set is refused by the runtime with a message saying
// what it is and how to join the set, never opened as if it were the whole
// module; the set joined by vmpack-convert's writer opens whole. Malformed
// shard keys are a format error.
//
//===----------------------------------------------------------------------===//

#include "vmpack/vmpack.h"

#include "SampleTensors.h"
#include "TestFiles.h"
#include "vmpack/Formats/Shards.h"

#include <gtest/gtest.h>

#include <string>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::ScratchDir;

namespace {

TEST(ShardRuntime, RefusesOneShardOpensTheJoinedModule) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  StatusOr<std::vector<std::string>> files = writeShardedVmpk(
      dir.path("m.vmpk"), sources(tensors), {{"k", "v"}}, "m", 64, 300);
  ASSERT_TRUE(files.isOk()) << files.status().message();
  ASSERT_GT(files->size(), 2u);
  for (size_t k = 0; k < files->size(); ++k) {
    vmpack_module_t *module = nullptr;
    EXPECT_EQ(vmpack_module_open_file((*files)[k].c_str(), &module),
              VMPACK_ERROR_UNSUPPORTED);
    EXPECT_EQ(module, nullptr);
    std::string message = vmpack_last_error();
    EXPECT_NE(message.find("shard " + std::to_string(k + 1) + " of " +
                           std::to_string(files->size()) +
                           " of a sharded module"),
              std::string::npos)
        << message;
  }
  // Joined into one module, every tensor is there and the module opens.
  StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
      openWeightSet((*files)[0], FileFormat::Vmpk);
  ASSERT_TRUE(set.isOk()) << set.status().message();
  std::vector<TensorSource> all;
  for (const auto &f : *set)
    for (TensorSource &s : f->sources())
      all.push_back(std::move(s));
  ASSERT_EQ(all.size(), tensors.size());
  EXPECT_EQ((*set)[0]->stringMetadata,
            (StringMetadata{{"k", "v"}})); // the shard keys are removed
  ASSERT_TRUE(
      writeVmpk(dir.path("whole.vmpk"), all, (*set)[0]->stringMetadata, "m", 64)
          .isOk());
  vmpack_module_t *module = nullptr;
  ASSERT_EQ(vmpack_module_open_file(dir.path("whole.vmpk").c_str(), &module),
            VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_segment_count(module), tensors.size());
  EXPECT_EQ(vmpack_module_verify(module, 1), VMPACK_OK);
  vmpack_module_close(module);
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
}

} // namespace
