//===- TempOutputTest.cpp - A writer's temporary output file --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// TempOutput keeps the destination untouched until commit(), removes the
// temporary file on the first failure and on destruction, and keeps the
// first failure.
//
//===----------------------------------------------------------------------===//

#include "TestFiles.h"

#include "vmpack/Archive/FileIO.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>
#include <thread>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;
using namespace vmpack::archive::testing;

namespace {

TEST(TempOutput, CommitReplacesTheDestination) {
  ScratchDir dir;
  std::string path = dir.path("out");
  std::ofstream(path) << "old";
  {
    TempOutput out;
    ASSERT_TRUE(out.create(path).isOk());
    ASSERT_GE(out.fd(), 0);
    ASSERT_EQ(dir.files().size(), 2u); // the destination and the temp file
    ASSERT_TRUE(pwriteAll(out.fd(), "new", 3, 0, "test").isOk());
    EXPECT_EQ(contents(path), "old");
    EXPECT_FALSE(out.committed());
    ASSERT_TRUE(out.commit(/*fsync=*/true).isOk());
    EXPECT_TRUE(out.committed());
    EXPECT_EQ(out.fd(), -1);
    EXPECT_FALSE(out.failed());
  }
  EXPECT_EQ(contents(path), "new");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"out"});
}

TEST(TempOutput, DestroyedUncommittedLeavesNothing) {
  ScratchDir dir;
  std::string path = dir.path("out");
  std::ofstream(path) << "old";
  {
    TempOutput out;
    ASSERT_TRUE(out.create(path).isOk());
    ASSERT_TRUE(pwriteAll(out.fd(), "new", 3, 0, "test").isOk());
  }
  EXPECT_EQ(contents(path), "old");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"out"});
}

TEST(TempOutput, TheFirstFailureWinsAndRemovesTheFileAtOnce) {
  ScratchDir dir;
  TempOutput out;
  ASSERT_TRUE(out.create(dir.path("out")).isOk());
  EXPECT_TRUE(out.firstError().isOk());
  // Many threads fail at once: one failure is kept, whichever came first,
  // and every caller gets that one.
  std::vector<std::thread> threads;
  std::vector<std::string> seen(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      seen[size_t(t)] =
          out.fail(Status::ioError("failure " + std::to_string(t))).message();
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_TRUE(out.failed());
  Status first = out.firstError();
  EXPECT_EQ(first.code(), StatusCode::Io);
  for (const std::string &m : seen)
    EXPECT_EQ(m, first.message());
  EXPECT_TRUE(dir.files().empty()) << "the temporary file is gone at once";
  EXPECT_EQ(out.fail(Status::formatError("later")).message(), first.message());
}

TEST(TempOutput, AFailedRenameIsAFailure) {
  ScratchDir dir;
  std::string path = dir.path("out");
  TempOutput out;
  ASSERT_TRUE(out.create(path).isOk());
  // A directory in the way: rename(2) of a file over it fails.
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  Status st = out.commit(/*fsync=*/false);
  EXPECT_EQ(st.code(), StatusCode::Io);
  EXPECT_FALSE(out.committed());
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"out"});
  ::rmdir(path.c_str());
}

} // namespace
