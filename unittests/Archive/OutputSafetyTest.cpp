//===- OutputSafetyTest.cpp - Outputs never replace inputs ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The archive layer's output rules, which every writer of the project goes
// through (createTempFileBeside, renameIntoPlace): a file guarded as an
// input is refused under every name it has, a symlink is written through
// to its target, the replaced file's mode is kept, and missing parent
// directories are created.
//
//===----------------------------------------------------------------------===//

#include "TestFiles.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Archive/MappedFile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;
using namespace vmpack::archive::testing;

namespace {

/// Writes `text` to `path` through a TempOutput, as the writers do.
Status writeThrough(const std::string &path, const std::string &text) {
  TempOutput out;
  if (Status s = out.create(path); !s)
    return s;
  if (Status s = pwriteAll(out.fd(), text.data(), text.size(), 0, "test"); !s)
    return out.fail(s);
  return out.commit(/*fsync=*/false);
}

TEST(OutputSafety, AGuardedInputIsRefusedUnderEveryName) {
  ScratchDir dir;
  std::string input = dir.path("in.bin");
  std::ofstream(input) << "precious";
  ASSERT_EQ(::symlink("in.bin", dir.path("link").c_str()), 0);
  ASSERT_EQ(::link(input.c_str(), dir.path("hard").c_str()), 0);
  std::vector<std::string> names = {
      input, dir.path("link"), dir.path("hard"), dir.dir + "/./in.bin",
      dir.dir + "/../" + dir.dir.substr(dir.dir.rfind('/') + 1) + "/in.bin"};
  {
    InputFileGuard guard = InputFileGuard::forPath(input);
    ASSERT_TRUE(guard.active());
    for (const std::string &name : names) {
      SCOPED_TRACE(name);
      Status s = writeThrough(name, "overwritten");
      ASSERT_FALSE(s.isOk());
      EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
      EXPECT_NE(s.message().find("is the input '" + input + "'"),
                std::string::npos)
          << s.message();
      EXPECT_NE(s.message().find("nothing was written"), std::string::npos);
      EXPECT_EQ(contents(input), "precious");
    }
    // Nothing but the input and its two other names is left behind.
    EXPECT_EQ(dir.files().size(), 3u);
    // Another file is still written.
    EXPECT_TRUE(writeThrough(dir.path("other"), "x").isOk());
  }
  // Once no guard holds it, the file may be replaced again.
  EXPECT_TRUE(writeThrough(input, "new").isOk());
  EXPECT_EQ(contents(input), "new");
}

TEST(OutputSafety, GuardsNestAndMove) {
  ScratchDir dir;
  std::string input = dir.path("in");
  std::ofstream(input) << "a";
  InputFileGuard outer = InputFileGuard::forPath(input);
  {
    InputFileGuard inner = InputFileGuard::forPath(input);
    InputFileGuard moved = std::move(inner);
    EXPECT_FALSE(inner.active());
    EXPECT_TRUE(moved.active());
  }
  // The outer guard still holds after the inner ones went away.
  EXPECT_FALSE(checkNotAnInput(input).isOk());
  outer = InputFileGuard();
  EXPECT_TRUE(checkNotAnInput(input).isOk());
  // A file that does not exist guards nothing.
  EXPECT_FALSE(InputFileGuard::forPath(dir.path("missing")).active());
}

TEST(OutputSafety, ReadersGuardTheirFiles) {
  ScratchDir dir;
  std::string input = dir.path("in");
  std::ofstream(input) << "0123456789";
  {
    StatusOr<std::unique_ptr<MappedFile>> mapped = MappedFile::open(input);
    ASSERT_TRUE(mapped.isOk());
    EXPECT_FALSE(writeThrough(input, "x").isOk());
  }
  for (LoadMode mode : {LoadMode::Mmap, LoadMode::Read}) {
    LoadOptions options;
    options.mode = mode;
    StatusOr<std::unique_ptr<LoadedFile>> loaded =
        LoadedFile::open(input, options);
    ASSERT_TRUE(loaded.isOk());
    EXPECT_FALSE(writeThrough(input, "x").isOk());
  }
  EXPECT_EQ(contents(input), "0123456789");
  EXPECT_TRUE(writeThrough(input, "x").isOk());
}

TEST(OutputSafety, ASymlinkIsWrittenThrough) {
  ScratchDir dir;
  std::string target = dir.path("target");
  std::ofstream(target) << "old";
  std::string link = dir.path("link");
  ASSERT_EQ(::symlink("target", link.c_str()), 0);
  ASSERT_TRUE(writeThrough(link, "new").isOk());
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)); // still a link
  EXPECT_EQ(contents(target), "new");
  // A dangling link creates its target, as cp does.
  std::string dangling = dir.path("dangling");
  ASSERT_EQ(::symlink("created", dangling.c_str()), 0);
  ASSERT_TRUE(writeThrough(dangling, "made").isOk());
  EXPECT_EQ(contents(dir.path("created")), "made");
  // A loop is an error, and nothing is written.
  ASSERT_EQ(::symlink("loop2", dir.path("loop1").c_str()), 0);
  ASSERT_EQ(::symlink("loop1", dir.path("loop2").c_str()), 0);
  Status s = writeThrough(dir.path("loop1"), "x");
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("symbolic links"), std::string::npos);
  StatusOr<std::string> resolved = resolveOutputPath(link);
  ASSERT_TRUE(resolved.isOk());
  EXPECT_EQ(*resolved, target);
}

TEST(OutputSafety, TheReplacedFilesModeIsKept) {
  ScratchDir dir;
  std::string path = dir.path("out");
  std::ofstream(path) << "old";
  for (mode_t mode : {mode_t(0600), mode_t(0640), mode_t(0755), mode_t(0444)}) {
    SCOPED_TRACE(mode);
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    ASSERT_TRUE(writeThrough(path, "new").isOk());
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode);
    EXPECT_EQ(contents(path), "new");
  }
  // A new file gets 0666 minus the umask.
  mode_t mask = ::umask(022);
  ASSERT_TRUE(writeThrough(dir.path("fresh"), "x").isOk());
  ::umask(mask);
  struct stat st;
  ASSERT_EQ(::stat(dir.path("fresh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, mode_t(0644));
}

TEST(OutputSafety, MissingParentDirectoriesAreCreated) {
  ScratchDir dir;
  std::string path = dir.path("a/b/out");
  ASSERT_TRUE(writeThrough(path, "x").isOk());
  EXPECT_EQ(contents(path), "x");
  ::unlink(path.c_str());
  ::rmdir(dir.path("a/b").c_str());
  ::rmdir(dir.path("a").c_str());
  // A file in the way is named.
  std::ofstream(dir.path("f")) << "";
  Status s = writeThrough(dir.path("f/out"), "x");
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("'" + dir.path("f") + "' is not a directory"),
            std::string::npos)
      << s.message();
}

TEST(OutputSafety, ADirectoryOrDeviceIsNotReplaced) {
  ScratchDir dir;
  ASSERT_EQ(::mkdir(dir.path("d").c_str(), 0755), 0);
  Status s = writeThrough(dir.path("d"), "x");
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("is a directory, not a regular file"),
            std::string::npos)
      << s.message();
  Status dev = writeThrough("/dev/null", "x");
  EXPECT_FALSE(dev.isOk());
  EXPECT_NE(dev.message().find("not a regular file"), std::string::npos);
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ::rmdir(dir.path("d").c_str());
}

} // namespace
