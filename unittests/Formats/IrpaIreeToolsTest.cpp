//===- IrpaIreeToolsTest.cpp - vmpack's .irpa against IREE's own tools ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Random entry lists written by IrpaWriter must be reproduced byte for byte
// by iree-convert-parameters (IREE's builder), listed by
// iree-dump-parameters with the right lengths, and extracted by it with the
// right bytes; archives IREE writes must read back through IrpaReader as
// IREE lists them. The tools come from ../shared/iree-tools beside the
// source tree, or $VMPACK_IREE_TOOLS; without them these tests skip.
//
//===----------------------------------------------------------------------===//

#include "IrpaSample.h"
#include "TestFiles.h"

#include "vmpack/Formats/IrpaReader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

std::string ireeTools() {
  const char *env = std::getenv("VMPACK_IREE_TOOLS");
  return env && *env ? env : VMPACK_SOURCE_DIR "/../shared/iree-tools";
}

bool haveTools() {
  struct stat st;
  return ::stat((ireeTools() + "/iree-convert-parameters").c_str(), &st) == 0 &&
         ::stat((ireeTools() + "/iree-dump-parameters").c_str(), &st) == 0;
}

#define REQUIRE_IREE_TOOLS()                                                   \
  if (!haveTools())                                                            \
  GTEST_SKIP() << "IREE's tools are not in '" << ireeTools()                   \
               << "' (set VMPACK_IREE_TOOLS to their directory)"

/// Runs a shell command; its stdout, and the exit status in `status`.
std::string run(const std::string &command, int &status) {
  std::string out;
  std::FILE *p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
    out.append(buf, n);
  int raw = ::pclose(p);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

/// Random entries: data and splats, lengths 0..5000, keys unique.
std::vector<SampleParam> randomParams(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SampleParam> params;
  size_t count = rng() % 12;
  for (size_t i = 0; i < count; ++i) {
    SampleParam p;
    p.desc.key = "p" + std::to_string(seed) + "." + std::to_string(i);
    if (rng() % 3 == 0) {
      p.desc.isSplat = true;
      p.desc.patternLength = uint8_t(1u << (rng() % 5));
      for (size_t k = 0; k < p.desc.patternLength; ++k)
        p.desc.pattern[k] = uint8_t(rng());
      p.desc.length = uint64_t(rng() % 300) * p.desc.patternLength;
    } else {
      p.desc.length = rng() % 5000;
      p.seed = rng();
    }
    params.push_back(std::move(p));
  }
  return params;
}

TEST(IrpaIreeTools, ConvertReproducesVmpackArchivesByteForByte) {
  REQUIRE_IREE_TOOLS();
  ScratchDir dir;
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    std::vector<SampleParam> params =
        seed == 1 ? sampleParams() : randomParams(seed);
    std::string mine = dir.path("mine.irpa"), theirs = dir.path("theirs.irpa");
    ASSERT_TRUE(writeSampleIrpa(mine, params, 1 + seed % 4, 1 + seed * 97));
    int status;
    std::string out =
        run(ireeTools() + "/iree-convert-parameters --parameters=" + mine +
                " --output=" + theirs,
            status);
    ASSERT_EQ(status, 0) << out;
    ASSERT_EQ(readFile(mine), readFile(theirs)) << "seed " << seed;
    ::unlink(theirs.c_str());
  }
}

TEST(IrpaIreeTools, DumpListsAndExtractsVmpackArchives) {
  REQUIRE_IREE_TOOLS();
  ScratchDir dir;
  std::vector<SampleParam> params = sampleParams();
  std::string mine = dir.path("sample.irpa");
  ASSERT_TRUE(writeSampleIrpa(mine, params, 2, 3000));
  int status;
  std::string listing =
      run(ireeTools() + "/iree-dump-parameters --parameters=" + mine, status);
  ASSERT_EQ(status, 0) << listing;
  std::vector<uint8_t> file = readFile(mine);
  auto opened = IrpaReader::open(file.data(), file.size());
  ASSERT_TRUE(opened);
  for (size_t i = 0; i < params.size(); ++i) {
    const IrpaEntryDesc &d = params[i].desc;
    const IrpaEntry &e = (*opened)->entry(i);
    // "     START |      END |   LENGTH | `KEY`", "-" for splats' range.
    char line[512];
    if (d.isSplat)
      std::snprintf(line, sizeof(line), "- |                - | %16llu | `%s`",
                    (unsigned long long)d.length, d.key.c_str());
    else
      std::snprintf(line, sizeof(line), "%llu | %16llu | %16llu | `%s`",
                    (unsigned long long)(d.length ? e.offset : 0),
                    (unsigned long long)(d.length ? e.offset + d.length : 0),
                    (unsigned long long)d.length, d.key.c_str());
    EXPECT_NE(listing.find(line), std::string::npos)
        << "missing '" << line << "' in\n"
        << listing;
    if (d.isSplat || d.key.find(' ') != std::string::npos)
      continue; // IREE cannot extract splats; its flag syntax has no quoting
    std::string out = dir.path("x.bin");
    std::string log = run(ireeTools() +
                              "/iree-dump-parameters --parameter_mode=preload "
                              "--parameters=" +
                              mine + " --extract=" + d.key + "=" + out,
                          status);
    ASSERT_EQ(status, 0) << log;
    std::vector<uint8_t> got = readFile(out);
    ASSERT_EQ(got.size(), d.length) << d.key;
    for (uint64_t j = 0; j < d.length; ++j)
      ASSERT_EQ(got[j], sampleByte(params[i].seed, j)) << d.key << " " << j;
    ::unlink(out.c_str());
  }
}

TEST(IrpaIreeTools, ReadsWhatIreeCreates) {
  REQUIRE_IREE_TOOLS();
  ScratchDir dir;
  std::string path = dir.path("created.irpa");
  int status;
  std::string log =
      run(ireeTools() +
              "/iree-create-parameters --data=a=7xi8=3 "
              "--data=b=2x3xi16 --splat=c=5xi32=-2 --splat=d=3xf64=0.5 "
              "--data=e=0xi8 --output=" +
              path,
          status);
  ASSERT_EQ(status, 0) << log;
  std::vector<uint8_t> bytes = readFile(path);
  auto reader = IrpaReader::open(bytes.data(), bytes.size());
  ASSERT_TRUE(reader) << reader.status().message();
  EXPECT_TRUE((*reader)->verifyLayout());
  // iree-create-parameters declares the splats first.
  ASSERT_EQ((*reader)->numEntries(), 5u);
  const IrpaEntry &c = (*reader)->entry(0);
  EXPECT_EQ(c.key, "c");
  EXPECT_EQ(c.kind, IrpaEntryKind::Splat);
  EXPECT_EQ(c.length, 20u);
  EXPECT_EQ(c.patternLength, 4);
  EXPECT_EQ(c.pattern[0], 0xfe);
  EXPECT_EQ(c.pattern[3], 0xff);
  EXPECT_EQ((*reader)->entry(1).length, 24u);
  const IrpaEntry &a = (*reader)->entry(2);
  EXPECT_EQ(a.key, "a");
  EXPECT_EQ(a.length, 7u);
  for (uint64_t j = 0; j < 7; ++j)
    EXPECT_EQ((*reader)->entryData(2)[j], 3);
  EXPECT_EQ((*reader)->entry(3).length, 12u);
  EXPECT_EQ((*reader)->entry(4).length, 0u);

  // And what iree-convert-parameters writes from it.
  std::string converted = dir.path("converted.irpa");
  log = run(ireeTools() + "/iree-convert-parameters --parameters=" + path +
                " --output=" + converted,
            status);
  ASSERT_EQ(status, 0) << log;
  std::vector<uint8_t> again = readFile(converted);
  auto reader2 = IrpaReader::open(again.data(), again.size());
  ASSERT_TRUE(reader2) << reader2.status().message();
  EXPECT_TRUE((*reader2)->verifyLayout());
  EXPECT_EQ((*reader2)->numEntries(), 5u);
}

} // namespace
