//===- WriterFailureTest.cpp - Failures leave nothing behind
//---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/Archive/ArchiveWriter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

std::unique_ptr<ArchiveWriter> newWriter(const std::string &path) {
  auto writer = ArchiveWriter::create(path, WriterOptions());
  EXPECT_TRUE(writer.isOk()) << writer.status().message();
  return writer ? std::move(*writer) : nullptr;
}

TEST(WriterFailure, AFileWhereADirectoryMustBeIsAnError) {
  ScratchDir dir;
  std::ofstream(dir.path("file")) << "x";
  auto writer = ArchiveWriter::create(dir.path("file/m.vmpk"), {});
  ASSERT_FALSE(writer.isOk());
  EXPECT_NE(writer.status().message().find("'" + dir.path("file") +
                                           "' is not a directory"),
            std::string::npos)
      << writer.status().message();
  EXPECT_EQ(dir.files(), std::vector<std::string>{"file"});
}

TEST(WriterFailure, MissingDirectoriesAreCreated) {
  ScratchDir dir;
  {
    auto writer = ArchiveWriter::create(dir.path("a/b/m.vmpk"), {});
    ASSERT_TRUE(writer.isOk()) << writer.status().message();
  }
  struct stat st;
  EXPECT_EQ(::stat(dir.path("a/b").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  ::rmdir(dir.path("a/b").c_str());
  ::rmdir(dir.path("a").c_str());
}

TEST(WriterFailure, PlanErrors) {
  ScratchDir dir;
  auto writer = newWriter(dir.path("m"));
  SampleSegment s = makeSegment("w", "i4", {4}, Encoding::Packed, 64, 1);
  ASSERT_TRUE(writer->addSegment(s.desc).isOk());
  EXPECT_FALSE(writer->addSegment(s.desc).isOk()); // duplicate
  for (uint32_t bad : {0u, 48u, 131072u}) {
    SegmentDesc d = s.desc;
    d.name = "a" + std::to_string(bad);
    d.alignment = bad;
    EXPECT_FALSE(writer->addSegment(d).isOk()) << bad;
  }
  SegmentDesc wrongLength = s.desc;
  wrongLength.name = "len";
  wrongLength.length = 3;
  StatusOr<uint32_t> r = writer->addSegment(wrongLength);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("(2 bytes)"), std::string::npos)
      << r.status().message();
  SegmentDesc noName = s.desc;
  noName.name = "";
  EXPECT_FALSE(writer->addSegment(noName).isOk());
  SegmentDesc badWord =
      makeSegment("i65", "i65", {1}, Encoding::Byte, 64, 1).desc;
  badWord.encoding = Encoding::Word;
  EXPECT_FALSE(writer->addSegment(badWord).isOk());
  ASSERT_TRUE(writer->beginData().isOk());
  SegmentDesc late = s.desc;
  late.name = "late";
  EXPECT_FALSE(writer->addSegment(late).isOk());
}

TEST(WriterFailure, IncompleteDataFailsAndKeepsTheOldDestination) {
  ScratchDir dir;
  std::string dest = dir.path("m.vmpk");
  writeFile(dest, {'o', 'l', 'd'});
  auto writer = newWriter(dest);
  SampleSegment s = makeSegment("w", "i8", {100}, Encoding::Byte, 64, 1);
  ASSERT_TRUE(writer->addSegment(s.desc).isOk());
  ASSERT_TRUE(writer->beginData().isOk());
  EXPECT_EQ(dir.files().size(), 2u); // destination + temporary
  ASSERT_TRUE(writer->writeSegmentData(0, 0, s.bytes.data(), 40).isOk());
  ASSERT_TRUE(writer->writeSegmentData(0, 60, s.bytes.data() + 60, 40).isOk());
  Status st = writer->finish();
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("bytes [40, 60) of 100 were never written"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m.vmpk"});
  EXPECT_EQ(readFile(dest), (std::vector<uint8_t>{'o', 'l', 'd'}));
}

TEST(WriterFailure, OverlapAndOutOfRangeChunks) {
  ScratchDir dir;
  auto writer = newWriter(dir.path("m"));
  SampleSegment s = makeSegment("w", "i8", {100}, Encoding::Byte, 64, 1);
  ASSERT_TRUE(writer->addSegment(s.desc).isOk());
  ASSERT_TRUE(writer->beginData().isOk());
  ASSERT_TRUE(writer->writeSegmentData(0, 10, s.bytes.data(), 20).isOk());
  Status st = writer->writeSegmentData(0, 25, s.bytes.data(), 10);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("[25, 30) were written twice"), std::string::npos)
      << st.message();
  // The writer stays failed, and its temporary file is already gone.
  EXPECT_FALSE(writer->finish().isOk());
  EXPECT_TRUE(dir.files().empty());

  auto other = newWriter(dir.path("n"));
  ASSERT_TRUE(other->addSegment(s.desc).isOk());
  ASSERT_TRUE(other->beginData().isOk());
  EXPECT_FALSE(other->writeSegmentData(0, 90, s.bytes.data(), 20).isOk());
  EXPECT_FALSE(other->writeSegmentData(1, 0, s.bytes.data(), 1).isOk());
}

TEST(WriterFailure, AbandonedWriterRemovesItsTemporaryFile) {
  ScratchDir dir;
  writeFile(dir.path("m"), {'x'});
  {
    auto writer = newWriter(dir.path("m"));
    SampleSegment s = makeSegment("w", "i8", {10}, Encoding::Byte, 64, 1);
    ASSERT_TRUE(writer->addSegment(s.desc).isOk());
    ASSERT_TRUE(writer->beginData().isOk());
    ASSERT_TRUE(writer->writeSegmentData(0, 0, s.bytes.data(), 10).isOk());
    EXPECT_EQ(dir.files().size(), 2u);
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m"});
  EXPECT_EQ(readFile(dir.path("m")), std::vector<uint8_t>{'x'});
}

TEST(WriterFailure, FileSizeLimitIsAnErrorNotASignal) {
  ScratchDir dir;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto writer = ArchiveWriter::create(dir.path("big"), {});
    if (!writer)
      _exit(10);
    SampleSegment s = makeSegment("w", "i8", {100000}, Encoding::Byte, 64, 1);
    if (!(*writer)->addSegment(s.desc))
      _exit(11);
    Status st = (*writer)->beginData();
    if (st.isOk())
      _exit(12);
    if (st.message().find("File too large") == std::string::npos)
      _exit(13);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(dir.files().empty());
}

TEST(WriterFailure, EmptyModuleIsValid) {
  ScratchDir dir;
  auto writer = newWriter(dir.path("m"));
  ASSERT_TRUE(writer->beginData().isOk());
  ASSERT_TRUE(writer->finish().isOk());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m"});
}

} // namespace
