//===- LoadModeTest.cpp - Opening by mmap or by reading, lazy verification ===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack_module_open_file_with_options in every load mode (mapped, read into
// library memory, read into the caller's buffer) and verify mode
// (structure, full, lazy) gives the same segments, and finds the same
// damage: every single-byte change and truncation of a small module gets the
// same status through the read path as through the mapped one.
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <sys/vfs.h>

#include <atomic>
#include <cstring>
#include <thread>

using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

/// A load configuration under test.
struct Way {
  const char *name;
  vmpack_load_mode_t mode;
  bool callerBuffer;
};
const Way kWays[] = {{"mmap", VMPACK_LOAD_MMAP, false},
                     {"read", VMPACK_LOAD_READ, false},
                     {"read-into-buffer", VMPACK_LOAD_READ, true}};

/// Opens `path` one way; the buffer (if any) lives in `storage`.
vmpack_status_t openWay(const std::string &path, const Way &way,
                        vmpack_verify_mode_t verify,
                        std::vector<uint8_t> &storage, vmpack_module_t **out) {
  vmpack_open_options_t o;
  vmpack_open_options_init(&o);
  o.load_mode = way.mode;
  o.verify = verify;
  o.threads = 1;
  if (way.callerBuffer) {
    size_t size = readFile(path).size();
    storage.assign(size + 64, 0xAA);
    uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    o.buffer = storage.data() + (64 - p % 64) % 64;
    o.buffer_size = size;
  }
  return vmpack_module_open_file_with_options(path.c_str(), &o, out);
}

class LoadModes : public ::testing::Test {
protected:
  void SetUp() override {
    segments = sampleSegments();
    path = dir.path("m.vmpk");
    ASSERT_TRUE(writeModule(path, "sample", segments, "prog", 2, 3).isOk());
  }
  ScratchDir dir;
  std::string path;
  std::vector<SampleSegment> segments;
};

TEST_F(LoadModes, EveryWayGivesTheSameSegments) {
  for (const Way &way : kWays)
    for (vmpack_verify_mode_t verify :
         {VMPACK_VERIFY_STRUCTURE, VMPACK_VERIFY_FULL, VMPACK_VERIFY_LAZY}) {
      SCOPED_TRACE(std::string(way.name) + " verify " +
                   std::to_string(int(verify)));
      std::vector<uint8_t> storage;
      vmpack_module_t *m = nullptr;
      ASSERT_EQ(openWay(path, way, verify, storage, &m), VMPACK_OK)
          << vmpack_last_error();
      EXPECT_EQ(vmpack_module_load_mode(m), way.mode);
      ASSERT_EQ(vmpack_module_segment_count(m), segments.size());
      for (size_t i = 0; i < segments.size(); ++i) {
        vmpack_segment_info_t info;
        ASSERT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
        ASSERT_EQ(info.length, segments[i].bytes.size());
        if (info.length)
          EXPECT_EQ(
              0, std::memcmp(info.data, segments[i].bytes.data(), info.length));
        if (way.callerBuffer && info.length) {
          // Zero-copy views point into the caller's memory.
          auto *p = static_cast<const uint8_t *>(info.data);
          EXPECT_GE(p, storage.data());
          EXPECT_LT(p, storage.data() + storage.size());
        }
        EXPECT_EQ(vmpack_segment_verify(m, i), VMPACK_OK);
        if (segments[i].desc.elementType.scalar.isInteger() &&
            segments[i].desc.elementType.scalar.width <= 32 &&
            !segments[i].desc.elementType.isComplex &&
            !segments[i].values.empty()) {
          std::vector<int32_t> out(segments[i].values.size());
          EXPECT_EQ(vmpack_segment_unpack(m, i, 0, out.size(),
                                          VMPACK_DTYPE_INT32, out.data(),
                                          out.size() * 4),
                    VMPACK_OK)
              << vmpack_last_error();
        }
      }
      EXPECT_EQ(vmpack_module_verify(m, 2), VMPACK_OK) << vmpack_last_error();
      vmpack_module_close(m);
    }
}

TEST_F(LoadModes, AutoFollowsTheFileSystemAndTheEnvironment) {
  struct statfs fs;
  ASSERT_EQ(::statfs(path.c_str(), &fs), 0);
  vmpack_load_mode_t expected =
      loadModeForFileSystem(uint64_t(fs.f_type)) == LoadMode::Read
          ? VMPACK_LOAD_READ
          : VMPACK_LOAD_MMAP;
  {
    ScopedEnv env("VMPACK_LOAD_MODE", nullptr);
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(vmpack_module_open_file(path.c_str(), &m), VMPACK_OK);
    EXPECT_EQ(vmpack_module_load_mode(m), expected);
    vmpack_module_close(m);
  }
  for (auto [value, mode] :
       {std::pair{"read", VMPACK_LOAD_READ}, {"mmap", VMPACK_LOAD_MMAP}}) {
    ScopedEnv env("VMPACK_LOAD_MODE", value);
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(vmpack_module_open_file(path.c_str(), &m), VMPACK_OK);
    EXPECT_EQ(vmpack_module_load_mode(m), mode) << value;
    vmpack_module_close(m);
  }
  {
    // An explicit mode wins over the environment.
    ScopedEnv env("VMPACK_LOAD_MODE", "read");
    std::vector<uint8_t> storage;
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(openWay(path, kWays[0], VMPACK_VERIFY_STRUCTURE, storage, &m),
              VMPACK_OK);
    EXPECT_EQ(vmpack_module_load_mode(m), VMPACK_LOAD_MMAP);
    vmpack_module_close(m);
  }
  {
    ScopedEnv env("VMPACK_LOAD_MODE", "sometimes");
    vmpack_module_t *m = nullptr;
    EXPECT_EQ(vmpack_module_open_file(path.c_str(), &m),
              VMPACK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(m, nullptr);
    EXPECT_NE(std::string(vmpack_last_error()).find("VMPACK_LOAD_MODE"),
              std::string::npos);
  }
}

TEST_F(LoadModes, BadArgumentsAreErrors) {
  vmpack_open_options_t o;
  vmpack_open_options_init(&o);
  vmpack_module_t *m = nullptr;
  EXPECT_EQ(vmpack_module_open_file_with_options(nullptr, &o, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &o, nullptr),
            VMPACK_ERROR_INVALID_ARGUMENT);
  vmpack_open_options_t bad = o;
  bad.struct_size = 8;
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(vmpack_last_error()).find("struct_size"),
            std::string::npos);
  bad = o;
  bad.load_mode = vmpack_load_mode_t(7);
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  bad = o;
  bad.verify = vmpack_verify_mode_t(7);
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);

  size_t size = readFile(path).size();
  std::vector<uint8_t> storage(size + 128);
  uint8_t *aligned =
      storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64);
  bad = o;
  bad.load_mode = VMPACK_LOAD_MMAP;
  bad.buffer = aligned;
  bad.buffer_size = size;
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  bad.load_mode = VMPACK_LOAD_READ;
  bad.buffer = aligned + 8;
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_INVALID_ARGUMENT);
  bad.buffer = aligned;
  bad.buffer_size = size - 1;
  EXPECT_EQ(vmpack_module_open_file_with_options(path.c_str(), &bad, &m),
            VMPACK_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(m, nullptr);

  for (const Way &way : kWays) {
    std::vector<uint8_t> buffer;
    EXPECT_EQ(openWay(dir.path("missing"), way.callerBuffer ? kWays[1] : way,
                      VMPACK_VERIFY_FULL, buffer, &m),
              VMPACK_ERROR_IO);
    EXPECT_NE(std::string(vmpack_last_error()).find("missing"),
              std::string::npos);
    EXPECT_EQ(m, nullptr);
  }
  vmpack_open_options_t readMode = o;
  readMode.load_mode = VMPACK_LOAD_READ;
  EXPECT_EQ(
      vmpack_module_open_file_with_options(dir.dir.c_str(), &readMode, &m),
      VMPACK_ERROR_IO);
  writeFile(dir.path("empty"), {});
  EXPECT_EQ(vmpack_module_open_file_with_options(dir.path("empty").c_str(),
                                                 &readMode, &m),
            VMPACK_ERROR_FORMAT);
  EXPECT_EQ(vmpack_segment_verify(nullptr, 0), VMPACK_ERROR_INVALID_ARGUMENT);
}

/// The stored bytes of one segment damaged; the others intact.
class Damaged : public LoadModes {
protected:
  void SetUp() override {
    LoadModes::SetUp();
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(vmpack_module_open_file(path.c_str(), &m), VMPACK_OK);
    damagedIndex = 0;
    vmpack_segment_info_t info;
    ASSERT_EQ(vmpack_module_segment_info(m, damagedIndex, &info), VMPACK_OK);
    ASSERT_GT(info.length, 2u);
    uint64_t offset = info.offset + info.length / 2;
    vmpack_module_close(m);
    std::vector<uint8_t> bytes = readFile(path);
    bytes[offset] ^= 0x10;
    writeFile(path, bytes);
  }
  size_t damagedIndex = 0;
};

TEST_F(Damaged, FullVerificationFailsToOpen) {
  for (const Way &way : kWays) {
    std::vector<uint8_t> storage;
    vmpack_module_t *m = nullptr;
    EXPECT_EQ(openWay(path, way, VMPACK_VERIFY_FULL, storage, &m),
              VMPACK_ERROR_CHECKSUM)
        << way.name;
    EXPECT_EQ(m, nullptr);
    std::string message = vmpack_last_error();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(segments[damagedIndex].desc.name), std::string::npos)
        << message;
  }
}

TEST_F(Damaged, LazyVerificationFailsOnlyTheDamagedSegment) {
  for (const Way &way : kWays) {
    SCOPED_TRACE(way.name);
    std::vector<uint8_t> storage;
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(openWay(path, way, VMPACK_VERIFY_LAZY, storage, &m), VMPACK_OK)
        << vmpack_last_error();
    std::vector<int32_t> out(segments[damagedIndex].values.size());
    // Twice: the first result is kept.
    for (int round = 0; round < 2; ++round) {
      EXPECT_EQ(vmpack_segment_unpack(m, damagedIndex, 0, out.size(),
                                      VMPACK_DTYPE_INT32, out.data(),
                                      out.size() * 4),
                VMPACK_ERROR_CHECKSUM);
      EXPECT_NE(std::string(vmpack_last_error())
                    .find(segments[damagedIndex].desc.name),
                std::string::npos);
      EXPECT_EQ(vmpack_segment_verify(m, damagedIndex), VMPACK_ERROR_CHECKSUM);
    }
    for (size_t i = 0; i < segments.size(); ++i)
      if (i != damagedIndex)
        EXPECT_EQ(vmpack_segment_verify(m, i), VMPACK_OK) << i;
    EXPECT_EQ(vmpack_module_verify(m, 1), VMPACK_ERROR_CHECKSUM);
    vmpack_module_close(m);

    // Without lazy verification, unpacking does not check.
    ASSERT_EQ(openWay(path, way, VMPACK_VERIFY_STRUCTURE, storage, &m),
              VMPACK_OK);
    EXPECT_EQ(vmpack_segment_unpack(m, damagedIndex, 0, out.size(),
                                    VMPACK_DTYPE_INT32, out.data(),
                                    out.size() * 4),
              VMPACK_OK);
    EXPECT_EQ(vmpack_segment_verify(m, damagedIndex), VMPACK_ERROR_CHECKSUM);
    vmpack_module_close(m);
  }
}

TEST_F(Damaged, ConcurrentFirstUnpacksAllSeeTheDamage) {
  for (const Way &way : kWays) {
    std::vector<uint8_t> storage;
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(openWay(path, way, VMPACK_VERIFY_LAZY, storage, &m), VMPACK_OK);
    std::atomic<int> checksumErrors{0}, intactOk{0};
    std::vector<std::thread> threads;
    size_t intact = damagedIndex + 1;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&] {
        if (vmpack_segment_verify(m, damagedIndex) == VMPACK_ERROR_CHECKSUM)
          ++checksumErrors;
        if (vmpack_segment_verify(m, intact) == VMPACK_OK)
          ++intactOk;
      });
    for (std::thread &t : threads)
      t.join();
    EXPECT_EQ(checksumErrors.load(), 8) << way.name;
    EXPECT_EQ(intactOk.load(), 8) << way.name;
    vmpack_module_close(m);
  }
}

TEST(LoadModeHostile, ReadPathFindsWhatTheMappedPathFinds) {
  ScratchDir dir;
  ASSERT_TRUE(writeModule(dir.path("good"), "small", smallSampleSegments(),
                          "program bytes", 1, 1)
                  .isOk());
  std::vector<uint8_t> good = readFile(dir.path("good"));
  size_t variant = 0;
  auto statuses = [&](const std::vector<uint8_t> &bytes) {
    // A new file each time: rewriting one file in place makes ext4 flush
    // it on every close (auto_da_alloc), which takes minutes.
    std::string bad = dir.path("bad" + std::to_string(variant++));
    writeFile(bad, bytes);
    std::vector<vmpack_status_t> result;
    for (const Way &way : kWays)
      for (vmpack_verify_mode_t verify :
           {VMPACK_VERIFY_FULL, VMPACK_VERIFY_LAZY}) {
        std::vector<uint8_t> storage;
        vmpack_module_t *m = nullptr;
        vmpack_status_t st = openWay(bad, way, verify, storage, &m);
        if (st == VMPACK_OK && verify == VMPACK_VERIFY_LAZY) {
          // Lazy: the damage must show up in some segment or the module.
          for (size_t i = 0;
               st == VMPACK_OK && i < vmpack_module_segment_count(m); ++i)
            st = vmpack_segment_verify(m, i);
          if (st == VMPACK_OK)
            st = vmpack_module_verify(m, 1);
        }
        vmpack_module_close(m);
        result.push_back(st);
      }
    ::unlink(bad.c_str());
    return result;
  };
  for (vmpack_status_t st : statuses(good))
    ASSERT_EQ(st, VMPACK_OK);
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bytes = good;
    bytes[i] ^= 0x01;
    std::vector<vmpack_status_t> got = statuses(bytes);
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_NE(got[k], VMPACK_OK) << "change at " << i << ", way " << k;
      ASSERT_EQ(got[k], got[0]) << "change at " << i << ", way " << k;
    }
  }
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> bytes(good.begin(), good.begin() + long(n));
    for (vmpack_status_t st : statuses(bytes))
      ASSERT_EQ(st, VMPACK_ERROR_FORMAT) << "truncated to " << n;
  }
}

} // namespace
