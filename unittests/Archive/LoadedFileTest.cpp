//===- LoadedFileTest.cpp - Mapped and read files, CRCs while reading -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "TestFiles.h"

#include "vmpack/Archive/Checksum.h"
#include "vmpack/Archive/LoadedFile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

std::vector<uint8_t> randomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (auto &b : bytes)
    b = uint8_t(rng());
  return bytes;
}

TEST(LoadedFile, BothModesGiveTheFileBytes) {
  ScratchDir dir;
  // Several CRC strides and a ragged end.
  std::vector<uint8_t> bytes =
      randomBytes(5 * LoadedFile::kCrcStride + 12345, 1);
  writeFile(dir.path("f"), bytes);
  for (LoadMode mode : {LoadMode::Mmap, LoadMode::Read}) {
    LoadOptions options;
    options.mode = mode;
    auto file = LoadedFile::open(dir.path("f"), options);
    ASSERT_TRUE(file.isOk()) << file.status().message();
    EXPECT_EQ((*file)->mode(), mode);
    EXPECT_EQ((*file)->hasRangeCrcs(), mode == LoadMode::Read);
    ASSERT_EQ((*file)->size(), bytes.size());
    EXPECT_EQ(0, std::memcmp((*file)->data(), bytes.data(), bytes.size()));
    if (mode == LoadMode::Read)
      EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->data()) % 65536, 0u);
  }
}

class LoadedFileThreads : public ::testing::TestWithParam<unsigned> {};

// The CRCs summed between reads (one thread) and by several threads that
// read 1 MiB chunks in turn, chained afterwards, must all give every
// range's CRC.
TEST_P(LoadedFileThreads, RangeCrcsMatchDirectCrcs) {
  ScratchDir dir;
  const uint64_t stride = LoadedFile::kCrcStride;
  std::vector<uint8_t> bytes = randomBytes(70 * stride + 777, 2);
  writeFile(dir.path("f"), bytes);
  LoadOptions options;
  options.mode = LoadMode::Read;
  options.threads = GetParam();
  auto file = LoadedFile::open(dir.path("f"), options);
  ASSERT_TRUE(file.isOk()) << file.status().message();
  auto check = [&](uint64_t offset, uint64_t length) {
    ASSERT_EQ((*file)->rangeCrc(offset, length),
              crc32Update(0, bytes.data() + offset, length))
        << "[" << offset << ", +" << length << ")";
  };
  // Ranges on, beside and between stride boundaries, empty ones, the whole.
  for (uint64_t a : {uint64_t(0), uint64_t(1), stride - 1, stride, stride + 1,
                     3 * stride, 7 * stride + 100, uint64_t(bytes.size())})
    for (uint64_t b : {a, a + 1, a + 63, a + stride - 1, a + stride,
                       a + stride + 1, a + 5 * stride, uint64_t(bytes.size())})
      if (b >= a && b <= bytes.size())
        check(a, b - a);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    uint64_t a = rng() % (bytes.size() + 1), b = rng() % (bytes.size() + 1);
    check(std::min(a, b), std::max(a, b) - std::min(a, b));
  }
}
INSTANTIATE_TEST_SUITE_P(Threads, LoadedFileThreads,
                         ::testing::Values(1u, 2u, 0u));

TEST(LoadedFile, ReadsIntoTheCallersBuffer) {
  ScratchDir dir;
  std::vector<uint8_t> bytes = randomBytes(300000, 4);
  writeFile(dir.path("f"), bytes);
  std::vector<uint8_t> storage(bytes.size() + 64 + 16);
  uint8_t *aligned =
      storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64);
  LoadOptions options;
  options.mode = LoadMode::Read;
  options.buffer = aligned;
  options.bufferSize = bytes.size() + 16;
  auto file = LoadedFile::open(dir.path("f"), options);
  ASSERT_TRUE(file.isOk()) << file.status().message();
  EXPECT_EQ((*file)->data(), aligned);
  EXPECT_EQ(0, std::memcmp(aligned, bytes.data(), bytes.size()));

  options.bufferSize = bytes.size() - 1;
  auto small = LoadedFile::open(dir.path("f"), options);
  ASSERT_FALSE(small.isOk());
  EXPECT_NE(small.status().message().find("buffer"), std::string::npos);

  options.bufferSize = bytes.size();
  options.buffer = aligned + 1;
  auto misaligned = LoadedFile::open(dir.path("f"), options);
  ASSERT_FALSE(misaligned.isOk());
  EXPECT_NE(misaligned.status().message().find("aligned"), std::string::npos);

  options.buffer = aligned;
  options.mode = LoadMode::Mmap;
  EXPECT_FALSE(LoadedFile::open(dir.path("f"), options).isOk());
}

TEST(LoadedFile, ErrorsNameTheFile) {
  ScratchDir dir;
  for (LoadMode mode : {LoadMode::Mmap, LoadMode::Read, LoadMode::Auto}) {
    LoadOptions options;
    options.mode = mode;
    auto missing = LoadedFile::open(dir.path("missing"), options);
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.status().message().find("missing"), std::string::npos);
    auto directory = LoadedFile::open(dir.dir, options);
    EXPECT_FALSE(directory.isOk()) << loadModeName(mode);
  }
  // An empty file reads as zero bytes (the archive reader explains).
  writeFile(dir.path("empty"), {});
  LoadOptions options;
  options.mode = LoadMode::Read;
  auto empty = LoadedFile::open(dir.path("empty"), options);
  ASSERT_TRUE(empty.isOk()) << empty.status().message();
  EXPECT_EQ((*empty)->size(), 0u);
  EXPECT_EQ((*empty)->rangeCrc(0, 0), 0u);
}

TEST(LoadedFile, NetworkAndUserSpaceFileSystemsAreRead) {
  for (uint64_t magic :
       {0x6969ull /*NFS*/, 0xFF534D42ull /*CIFS*/, 0xFE534D42ull /*SMB2*/,
        0x517Bull /*SMB*/, 0x65735546ull /*FUSE*/, 0x00C36400ull /*Ceph*/,
        0x01021997ull /*9p*/, 0x0BD00BD0ull /*Lustre*/})
    EXPECT_EQ(loadModeForFileSystem(magic), LoadMode::Read) << magic;
  for (uint64_t magic : {0xEF53ull /*ext4*/, 0x58465342ull /*XFS*/,
                         0x9123683Eull /*Btrfs*/, 0x01021994ull /*tmpfs*/,
                         0x794C7630ull /*overlayfs*/, 0xF2F52010ull /*F2FS*/})
    EXPECT_EQ(loadModeForFileSystem(magic), LoadMode::Mmap) << magic;
}

TEST(LoadedFile, EnvironmentOverridesTheFileSystemsChoice) {
  ScratchDir dir;
  writeFile(dir.path("f"), randomBytes(1000, 5));
  {
    ScopedEnv env("VMPACK_LOAD_MODE", "read");
    EXPECT_EQ(*loadModeFromEnvironment(), LoadMode::Read);
    auto file = LoadedFile::open(dir.path("f"));
    ASSERT_TRUE(file.isOk());
    EXPECT_EQ((*file)->mode(), LoadMode::Read);
    // An explicit mode wins over the environment.
    LoadOptions options;
    options.mode = LoadMode::Mmap;
    auto mapped = LoadedFile::open(dir.path("f"), options);
    ASSERT_TRUE(mapped.isOk());
    EXPECT_EQ((*mapped)->mode(), LoadMode::Mmap);
  }
  {
    ScopedEnv env("VMPACK_LOAD_MODE", "mmap");
    EXPECT_EQ(*loadModeFromEnvironment(), LoadMode::Mmap);
    auto file = LoadedFile::open(dir.path("f"));
    ASSERT_TRUE(file.isOk());
    EXPECT_EQ((*file)->mode(), LoadMode::Mmap);
  }
  for (const char *value : {(const char *)nullptr, "", "auto"}) {
    ScopedEnv env("VMPACK_LOAD_MODE", value);
    EXPECT_EQ(*loadModeFromEnvironment(), LoadMode::Auto);
  }
  {
    ScopedEnv env("VMPACK_LOAD_MODE", "fast");
    auto mode = loadModeFromEnvironment();
    ASSERT_FALSE(mode.isOk());
    EXPECT_NE(mode.status().message().find("VMPACK_LOAD_MODE='fast'"),
              std::string::npos);
    EXPECT_FALSE(LoadedFile::open(dir.path("f")).isOk());
  }
}

} // namespace
