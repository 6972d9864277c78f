//===- MetadataTest.cpp - Module metadata and foreign segments ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Format version 2's string metadata and foreign segments (docs/format.md,
// section 4.4): written, read back, kept out of version-1 modules, and
// rejected when an index record is inconsistent.
//
//===----------------------------------------------------------------------===//

#include "ModuleIndex.h"
#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/ArchiveWriter.h"
#include "vmpack/Archive/MappedFile.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

using Metadata = std::vector<std::pair<std::string, std::string>>;

/// A ui8 segment of 36 bytes: two Q8_0 blocks (ggml type 8) of shape
/// [2, 32] when `foreign`.
SampleSegment blocks(bool foreign) {
  SampleSegment s = makeSegment("blk", "ui8", {36}, Encoding::Byte, 64, 3);
  if (foreign) {
    s.desc.foreignKind = kForeignGgml;
    s.desc.foreignType = 8;
    s.desc.foreignShape = {2, 32};
  }
  return s;
}

Status write(const std::string &path, const Metadata &metadata,
             std::vector<SampleSegment> segments) {
  WriterOptions options{"m"};
  options.metadata = metadata;
  auto writer = ArchiveWriter::create(path, options);
  if (!writer)
    return writer.status();
  for (const SampleSegment &s : segments)
    if (auto id = (*writer)->addSegment(s.desc); !id)
      return id.status();
  (*writer)->setProgram("program");
  if (Status st = (*writer)->beginData(); !st)
    return st;
  for (uint32_t i = 0; i < segments.size(); ++i)
    if (Status st = (*writer)->writeSegmentData(i, 0, segments[i].bytes.data(),
                                                segments[i].bytes.size());
        !st)
      return st;
  return (*writer)->finish();
}

TEST(Metadata, ReadBackInOrderWithForeignSegments) {
  ScratchDir dir;
  Metadata meta = {{"format", "pt"}, {"b", ""}, {"a", "\xff\x00x"}};
  meta[2].second.push_back('\0');
  Status st = write(
      dir.path("m.vmpk"), meta,
      {blocks(true), makeSegment("w", "i4", {5}, Encoding::Packed, 64, 1)});
  ASSERT_TRUE(st.isOk()) << st.message();
  auto file = MappedFile::open(dir.path("m.vmpk"));
  ASSERT_TRUE(file.isOk());
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  ASSERT_TRUE(reader.isOk()) << reader.status().message();
  EXPECT_EQ((*reader)->formatVersion(), 2u);
  EXPECT_EQ((*reader)->metadata(), meta);
  const SegmentInfo &b = (*reader)->segment(0);
  EXPECT_EQ(b.foreignKind, kForeignGgml);
  EXPECT_EQ(b.foreignType, 8u);
  EXPECT_EQ(b.foreignShape, (std::vector<int64_t>{2, 32}));
  EXPECT_EQ(toString(b.elementType), "ui8");
  EXPECT_EQ((*reader)->segment(1).foreignKind, kForeignNone);
  EXPECT_TRUE((*reader)->verifyContents(1).isOk());
}

TEST(Metadata, EachFeatureAloneMakesVersion2AndNeitherKeepsVersion1) {
  ScratchDir dir;
  struct Case {
    Metadata meta;
    bool foreign;
    uint32_t version;
  } cases[] = {{{}, false, 1}, {{{"k", "v"}}, false, 2}, {{}, true, 2}};
  for (const Case &c : cases) {
    ASSERT_TRUE(write(dir.path("v.vmpk"), c.meta, {blocks(c.foreign)}).isOk());
    auto file = MappedFile::open(dir.path("v.vmpk"));
    auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
    ASSERT_TRUE(reader.isOk()) << reader.status().message();
    EXPECT_EQ((*reader)->formatVersion(), c.version);
  }
}

TEST(Metadata, WriterRejectsBadRecords) {
  ScratchDir dir;
  EXPECT_NE(write(dir.path("x.vmpk"), {{"k", "1"}, {"k", "2"}}, {})
                .message()
                .find("'k' appears twice"),
            std::string::npos);
  EXPECT_NE(write(dir.path("x.vmpk"), {{"", "1"}}, {}).message().find("empty"),
            std::string::npos);
  SampleSegment unknown = blocks(true);
  unknown.desc.foreignKind = 7;
  EXPECT_NE(write(dir.path("x.vmpk"), {}, {unknown})
                .message()
                .find("unknown foreign kind 7"),
            std::string::npos);
  SampleSegment notBytes = makeSegment("f", "i4", {8}, Encoding::Packed, 64, 1);
  notBytes.desc.foreignKind = kForeignGgml;
  EXPECT_NE(write(dir.path("x.vmpk"), {}, {notBytes})
                .message()
                .find("must be 1-D ui8 bytes"),
            std::string::npos);
  SampleSegment negative = blocks(true);
  negative.desc.foreignShape = {-1};
  EXPECT_NE(write(dir.path("x.vmpk"), {}, {negative})
                .message()
                .find("negative foreign dimension"),
            std::string::npos);
  SampleSegment stray = blocks(false);
  stray.desc.foreignType = 8;
  EXPECT_NE(write(dir.path("x.vmpk"), {}, {stray})
                .message()
                .find("without a foreign kind"),
            std::string::npos);
  EXPECT_TRUE(dir.files().empty());
}

StatusOr<detail::ModuleContents> decode(const std::string &index) {
  // FlatBuffers wants 8-byte alignment.
  std::vector<uint64_t> aligned(index.size() / 8 + 1);
  std::memcpy(aligned.data(), index.data(), index.size());
  return detail::decodeIndex(reinterpret_cast<const uint8_t *>(aligned.data()),
                             index.size());
}

TEST(Metadata, DecoderRejectsVersion1IndexesWithVersion2Records) {
  detail::ModuleContents c;
  c.moduleName = "m";
  c.program.name = std::string(kProgramEntryName);
  c.metadata = {{"k", "v"}};
  c.formatVersion = 1;
  std::string index = detail::buildIndex(c);
  auto decoded = decode(index);
  ASSERT_FALSE(decoded.isOk());
  EXPECT_NE(decoded.status().message().find("metadata needs format version 2"),
            std::string::npos);

  c.metadata.clear();
  SampleSegment s = blocks(true);
  SegmentInfo info;
  info.name = s.desc.name;
  info.elementType = s.desc.elementType;
  info.shape = s.desc.shape;
  info.encoding = s.desc.encoding;
  info.length = s.desc.length;
  info.foreignKind = kForeignGgml;
  info.foreignType = 8;
  info.foreignShape = {2, 32};
  c.segments = {info};
  index = detail::buildIndex(c);
  decoded = decode(index);
  ASSERT_FALSE(decoded.isOk());
  EXPECT_NE(decoded.status().message().find("a foreign type needs format "
                                            "version 2"),
            std::string::npos);

  // Version 2 with neither is not the lowest version either.
  c.segments[0].foreignKind = kForeignNone;
  c.segments[0].foreignType = 0;
  c.segments[0].foreignShape.clear();
  c.formatVersion = 2;
  index = detail::buildIndex(c);
  decoded = decode(index);
  ASSERT_FALSE(decoded.isOk());
  EXPECT_NE(decoded.status().message().find("not the lowest"),
            std::string::npos);
}

} // namespace
