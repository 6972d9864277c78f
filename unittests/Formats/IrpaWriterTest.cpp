//===- IrpaWriterTest.cpp - Parameter archives byte for byte --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The writer against bytes IREE's own tools wrote (Inputs/iree-create.irpa,
// from iree-create-parameters), against the test vector of docs/irpa.md,
// for any thread count, and on every misuse.
//
//===----------------------------------------------------------------------===//

#include "IrpaSample.h"
#include "TestFiles.h"

#include "vmpack/Formats/IrpaReader.h"
#include "vmpack/Formats/IrpaWriter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sys/stat.h>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

std::vector<uint8_t> fromHex(const std::string &hex) {
  std::vector<uint8_t> out;
  std::string digits;
  for (char c : hex)
    if (std::isxdigit(static_cast<unsigned char>(c)))
      digits.push_back(c);
  for (size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
  return out;
}

// `iree-create-parameters --data=a=3xi8=7 --data=weights.0=100xi8=165
//  --splat=s16=8xi16=123 --splat=z=4x2xf64=1.5 --data=empty=0xi8`
// (it declares splats first).
TEST(IrpaWriter, MatchesIreeCreateParameters) {
  std::vector<uint8_t> golden =
      readFile(VMPACK_SOURCE_DIR "/unittests/Formats/Inputs/iree-create.irpa");
  ASSERT_EQ(golden.size(), 4096u);
  ScratchDir dir;
  auto w = IrpaWriter::create(dir.path("out.irpa"));
  ASSERT_TRUE(w) << w.status().message();
  uint16_t s16 = 123;
  uint8_t pattern16[2] = {uint8_t(s16), uint8_t(s16 >> 8)};
  double z = 1.5;
  uint8_t pattern64[8];
  std::memcpy(pattern64, &z, 8);
  ASSERT_TRUE((*w)->addSplatEntry("s16", 16, pattern16, 2));
  ASSERT_TRUE((*w)->addSplatEntry("z", 64, pattern64, 8));
  ASSERT_TRUE((*w)->addDataEntry("a", 3));
  ASSERT_TRUE((*w)->addDataEntry("weights.0", 100));
  ASSERT_TRUE((*w)->addDataEntry("empty", 0));
  ASSERT_TRUE((*w)->beginData());
  std::vector<uint8_t> sevens(3, 7), a5(100, 0xa5);
  ASSERT_TRUE((*w)->writeEntryData(2, 0, sevens.data(), 3));
  ASSERT_TRUE((*w)->writeEntryData(3, 50, a5.data(), 50));
  ASSERT_TRUE((*w)->writeEntryData(3, 0, a5.data(), 50));
  EXPECT_EQ((*w)->plannedFileSize(), 4096u);
  EXPECT_EQ((*w)->entryFileOffset(2), 576u);
  EXPECT_EQ((*w)->entryFileOffset(3), 640u);
  EXPECT_EQ((*w)->entryFileOffset(4), 768u);
  ASSERT_TRUE((*w)->finish());
  EXPECT_EQ(readFile(dir.path("out.irpa")), golden);
}

// The test vector of docs/irpa.md, section 4, read from the document
// itself: lines "OFF: XX XX ..." give bytes at hex offset OFF; every byte
// not shown is zero, to 4096. The archive is smallParams().
std::vector<uint8_t> docsTestVector() {
  std::ifstream in(VMPACK_SOURCE_DIR "/docs/irpa.md");
  std::vector<uint8_t> bytes(4096, 0);
  std::regex line(R"(^([0-9a-f]{3}): ((?:[0-9a-f]{2} )+))");
  std::string text;
  size_t shown = 0;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_search(text, m, line))
      continue;
    size_t at = std::stoul(m[1].str(), nullptr, 16);
    for (uint8_t b : fromHex(m[2].str())) {
      bytes.at(at++) = b;
      ++shown;
    }
  }
  EXPECT_GT(shown, 300u) << "no test vector found in docs/irpa.md";
  return bytes;
}

TEST(IrpaWriter, DocsTestVector) {
  ScratchDir dir;
  ASSERT_TRUE(writeSampleIrpa(dir.path("v.irpa"), smallParams()));
  std::vector<uint8_t> bytes = readFile(dir.path("v.irpa"));
  std::vector<uint8_t> expected = docsTestVector();
  ASSERT_EQ(bytes.size(), expected.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    ASSERT_EQ(bytes[i], expected[i]) << "offset " << i;
}

TEST(IrpaWriter, SameBytesForAnyThreadCountAndChunking) {
  ScratchDir dir;
  ASSERT_TRUE(writeSampleIrpa(dir.path("1.irpa"), sampleParams(), 1, 4096));
  ASSERT_TRUE(writeSampleIrpa(dir.path("4.irpa"), sampleParams(), 4, 1000));
  ASSERT_TRUE(writeSampleIrpa(dir.path("7.irpa"), sampleParams(), 7, 1));
  std::vector<uint8_t> one = readFile(dir.path("1.irpa"));
  EXPECT_EQ(one, readFile(dir.path("4.irpa")));
  EXPECT_EQ(one, readFile(dir.path("7.irpa")));
  EXPECT_EQ(one.size() % 4096, 0u);
}

TEST(IrpaWriter, ReadsBackWhatItWrote) {
  ScratchDir dir;
  std::vector<SampleParam> params = sampleParams();
  ASSERT_TRUE(writeSampleIrpa(dir.path("s.irpa"), params, 3, 777));
  std::vector<uint8_t> bytes = readFile(dir.path("s.irpa"));
  auto reader = IrpaReader::open(bytes.data(), bytes.size());
  ASSERT_TRUE(reader) << reader.status().message();
  ASSERT_TRUE((*reader)->verifyLayout()) << (*reader)->verifyLayout().message();
  ASSERT_EQ((*reader)->numEntries(), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const IrpaEntry &e = (*reader)->entry(i);
    const IrpaEntryDesc &d = params[i].desc;
    EXPECT_EQ(e.key, d.key);
    EXPECT_EQ(e.length, d.length);
    EXPECT_EQ(e.metadata, d.metadata);
    EXPECT_EQ((*reader)->findEntry(d.key), i);
    if (d.isSplat) {
      EXPECT_EQ(e.kind, IrpaEntryKind::Splat);
      EXPECT_EQ(e.patternLength, d.patternLength);
      EXPECT_EQ(e.pattern, d.pattern);
      EXPECT_EQ(e.minimumAlignment, 0u);
    } else {
      EXPECT_EQ(e.kind, IrpaEntryKind::Data);
      EXPECT_EQ(e.minimumAlignment, 64u);
      EXPECT_EQ(e.offset % 64, 0u);
      const uint8_t *p = (*reader)->entryData(i);
      for (uint64_t j = 0; j < e.length; ++j)
        ASSERT_EQ(p[j], sampleByte(params[i].seed, j)) << d.key << " " << j;
    }
  }
}

TEST(IrpaWriter, EmptyArchiveIsOnePage) {
  ScratchDir dir;
  ASSERT_TRUE(writeSampleIrpa(dir.path("e.irpa"), {}));
  std::vector<uint8_t> bytes = readFile(dir.path("e.irpa"));
  ASSERT_EQ(bytes.size(), 4096u);
  auto reader = IrpaReader::open(bytes.data(), bytes.size());
  ASSERT_TRUE(reader) << reader.status().message();
  EXPECT_EQ((*reader)->numEntries(), 0u);
}

TEST(IrpaWriter, LayoutFollowsIreeBuilderRules) {
  // Entries 16-aligned from 96; names right after the table; storage at
  // the first data entry's alignment; offsets aligned per entry.
  std::vector<IrpaEntryDesc> entries(3);
  entries[0].key = "a";
  entries[0].length = 10;
  entries[0].alignment = 128;
  entries[1].key = "bb";
  entries[1].isSplat = true;
  entries[1].length = 4;
  entries[1].patternLength = 1;
  entries[2].key = "ccc";
  entries[2].length = 5;
  entries[2].alignment = 8;
  auto layout = planIrpaLayout(entries);
  ASSERT_TRUE(layout) << layout.status().message();
  EXPECT_EQ(layout->entryOffsets, (std::vector<uint64_t>{96, 176, 272}));
  EXPECT_EQ(layout->entrySegmentLength, 176u + 76u);
  EXPECT_EQ(layout->metadataOffset, 96u + 252u);
  EXPECT_EQ(layout->metadataLength, 6u);
  EXPECT_EQ(layout->storageOffset, 384u); // align(354, 128)
  EXPECT_EQ(layout->storageOffsets, (std::vector<uint64_t>{0, 0, 16}));
  EXPECT_EQ(layout->storageLength, 21u);
  EXPECT_EQ(layout->fileSize, 4096u);
}

TEST(IrpaWriter, RejectsMisuse) {
  ScratchDir dir;
  std::string out = dir.path("m.irpa");
  auto w = IrpaWriter::create(out);
  ASSERT_TRUE(w);
  uint8_t pattern[16] = {1, 2, 3};
  EXPECT_TRUE((*w)->addDataEntry("x", 10));
  auto dup = (*w)->addDataEntry("x", 10);
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.status().message().find("duplicate parameter key 'x'"),
            std::string::npos);
  EXPECT_FALSE((*w)->addSplatEntry("p3", 9, pattern, 3));
  EXPECT_FALSE((*w)->addSplatEntry("p0", 0, pattern, 0));
  EXPECT_FALSE((*w)->addSplatEntry("p17", 17, pattern, 17));
  auto notMultiple = (*w)->addSplatEntry("p2", 5, pattern, 2);
  ASSERT_FALSE(notMultiple);
  EXPECT_NE(notMultiple.status().message().find("not a multiple"),
            std::string::npos);
  EXPECT_FALSE((*w)->addDataEntry("a3", 1, 3));
  EXPECT_FALSE((*w)->addDataEntry("a0", 1, 0));
  EXPECT_TRUE((*w)->addSplatEntry("s", 4, pattern, 2));
  EXPECT_FALSE((*w)->writeEntryData(0, 0, pattern, 1)); // before beginData
  ASSERT_TRUE((*w)->beginData());
  EXPECT_FALSE((*w)->addDataEntry("late", 1));
  std::vector<uint8_t> bytes(10, 9);
  // Out of range: the writer fails for good, removes its temporary file and
  // never creates the destination.
  auto tooLong = (*w)->writeEntryData(0, 5, bytes.data(), 6);
  ASSERT_FALSE(tooLong);
  EXPECT_NE(tooLong.message().find("exceeds its length 10"), std::string::npos);
  EXPECT_FALSE((*w)->finish());
  EXPECT_TRUE(dir.files().empty());
}

TEST(IrpaWriter, ChecksCoverage) {
  ScratchDir dir;
  std::vector<uint8_t> bytes(10, 9);
  {
    auto w = IrpaWriter::create(dir.path("hole.irpa"));
    ASSERT_TRUE((*w)->addDataEntry("x", 10));
    ASSERT_TRUE((*w)->beginData());
    ASSERT_TRUE((*w)->writeEntryData(0, 0, bytes.data(), 4));
    ASSERT_TRUE((*w)->writeEntryData(0, 6, bytes.data(), 4));
    auto st = (*w)->finish();
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("bytes [4, 6) of 10 were never written"),
              std::string::npos)
        << st.message();
  }
  {
    auto w = IrpaWriter::create(dir.path("twice.irpa"));
    ASSERT_TRUE((*w)->addDataEntry("x", 10));
    ASSERT_TRUE((*w)->beginData());
    ASSERT_TRUE((*w)->writeEntryData(0, 0, bytes.data(), 6));
    auto st = (*w)->writeEntryData(0, 4, bytes.data(), 6);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("bytes [4, 6) were written twice"),
              std::string::npos)
        << st.message();
  }
  {
    auto w = IrpaWriter::create(dir.path("splat.irpa"));
    uint8_t p = 1;
    ASSERT_TRUE((*w)->addSplatEntry("s", 10, &p, 1));
    ASSERT_TRUE((*w)->beginData());
    EXPECT_FALSE((*w)->writeEntryData(0, 0, bytes.data(), 1));
  }
  EXPECT_TRUE(dir.files().empty());
}

TEST(IrpaWriter, LeavesAnExistingDestinationAloneOnFailure) {
  ScratchDir dir;
  std::string out = dir.path("keep.irpa");
  vmpack::archive::testing::writeFile(out, {1, 2, 3});
  {
    auto w = IrpaWriter::create(out);
    ASSERT_TRUE((*w)->addDataEntry("x", 10));
    ASSERT_TRUE((*w)->beginData());
    // Destroyed without finish().
  }
  EXPECT_EQ(readFile(out), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(dir.files().size(), 1u);
}

TEST(IrpaWriter, RejectsSizesBeyond64Bits) {
  std::vector<IrpaEntryDesc> entries(2);
  entries[0].key = "a";
  entries[0].length = UINT64_MAX - 100;
  entries[1].key = "b";
  entries[1].length = 200;
  auto layout = planIrpaLayout(entries);
  ASSERT_FALSE(layout);
  EXPECT_NE(layout.status().message().find("2^64"), std::string::npos);
}

} // namespace
