//===- AliasTest.cpp - Constants sharing a segment's bytes ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Aliases (format version 2): written, read back as constants of their own
// name and type over their segment's bytes, and rejected when an index
// record is inconsistent.
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

/// Writes segments "s8" (4 x si8, packed) and "s4" (6 x i4, word) with the
/// given aliases.
Status writeWithAliases(const std::string &path,
                        std::vector<AliasDesc> aliases) {
  std::vector<SampleSegment> segments = {
      makeSegment("s8", "si8", {4}, Encoding::Packed, 64, 1),
      makeSegment("s4", "i4", {6}, Encoding::Word, 16, 2)};
  return writeModule(path, "m", segments, "program", 1, 1, aliases);
}

TEST(Alias, ReadBackAsConstantsOverTheSegmentsBytes) {
  ScratchDir dir;
  std::vector<AliasDesc> aliases = {makeAlias("u8", "ui8", {2, 2}, 0),
                                    makeAlias("n4", "si4", {3, 2}, 1)};
  Status st = writeWithAliases(dir.path("m.vmpk"), aliases);
  ASSERT_TRUE(st.isOk()) << st.message();
  auto file = MappedFile::open(dir.path("m.vmpk"));
  ASSERT_TRUE(file.isOk());
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  ASSERT_TRUE(reader.isOk()) << reader.status().message();
  const ArchiveReader &r = **reader;
  EXPECT_EQ(r.formatVersion(), 2u);
  ASSERT_EQ(r.numSegments(), 2u);
  ASSERT_EQ(r.numAliases(), 2u);
  ASSERT_EQ(r.numConstants(), 4u);
  EXPECT_TRUE(r.verifyContents(2).isOk());

  std::optional<size_t> u8 = r.findConstant("u8");
  ASSERT_TRUE(u8);
  EXPECT_EQ(*u8, 2u);
  const SegmentInfo &a = r.constant(*u8);
  EXPECT_TRUE(a.isAlias);
  EXPECT_EQ(a.aliasOf, 0u);
  EXPECT_EQ(toString(a.elementType), "ui8");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.numElements, 4u);
  EXPECT_EQ(a.sourceKey, "blob");
  EXPECT_EQ(a.encoding, r.segment(0).encoding);
  EXPECT_EQ(a.length, r.segment(0).length);
  EXPECT_EQ(a.checksum, r.segment(0).checksum);
  EXPECT_EQ(r.constantData(*u8), r.segmentData(0));
  // Aliases are constants, not segments (ZIP entries).
  EXPECT_FALSE(r.findSegment("u8"));
  EXPECT_EQ(r.findSegment("s8"), 0u);

  const SegmentInfo &n4 = r.constant(*r.findConstant("n4"));
  EXPECT_EQ(n4.encoding, Encoding::Word);
  EXPECT_EQ(n4.aliasOf, 1u);
  EXPECT_EQ(r.constantData(3), r.segmentData(1));
}

TEST(Alias, WithoutAliasesAModuleIsVersion1) {
  ScratchDir dir;
  ASSERT_TRUE(writeWithAliases(dir.path("m.vmpk"), {}).isOk());
  auto file = MappedFile::open(dir.path("m.vmpk"));
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  ASSERT_TRUE(reader.isOk());
  EXPECT_EQ((*reader)->formatVersion(), 1u);
  EXPECT_EQ((*reader)->numAliases(), 0u);
}

TEST(Alias, WriterRejectsInconsistentAliases) {
  ScratchDir dir;
  auto expectRejected = [&](AliasDesc alias, const std::string &message) {
    Status st = writeWithAliases(dir.path("bad.vmpk"), {std::move(alias)});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
  };
  expectRejected(makeAlias("x", "i8", {4}, 2), "refers to segment 2 of 2");
  // 3 bytes of i8 are not the 4 bytes stored.
  expectRejected(makeAlias("x", "i8", {3}, 0), "length");
  expectRejected(makeAlias("s4", "i8", {4}, 0), "duplicate segment name 's4'");
  expectRejected(makeAlias("x", "i16", {2}, 1), "length");
  // Nothing is left behind.
  EXPECT_TRUE(dir.files().empty());
}

/// A decoded index with one alias of segment 0, re-encoded and decoded
/// again after `damage`.
Status decodeDamaged(void (*damage)(detail::ModuleContents &)) {
  detail::ModuleContents c;
  c.moduleName = "m";
  c.program.name = std::string(kProgramEntryName);
  c.segments.emplace_back();
  SegmentInfo &s = c.segments.back();
  s.name = "s8";
  s.elementType = *parseElementType("si8");
  s.shape = {4};
  s.encoding = Encoding::Packed;
  s.length = 4;
  SegmentInfo a;
  a.name = "u8";
  a.elementType = *parseElementType("ui8");
  a.shape = {4};
  a.isAlias = true;
  a.aliasOf = 0;
  c.aliases.push_back(a);
  c.formatVersion = detail::requiredFormatVersion(c);
  damage(c);
  std::string index = detail::buildIndex(c);
  // FlatBuffers wants 8-byte alignment.
  std::vector<uint64_t> aligned(index.size() / 8 + 1);
  std::memcpy(aligned.data(), index.data(), index.size());
  auto decoded = detail::decodeIndex(
      reinterpret_cast<const uint8_t *>(aligned.data()), index.size());
  return decoded ? Status::ok() : decoded.status();
}

TEST(Alias, ReaderRejectsInconsistentRecords) {
  EXPECT_TRUE(decodeDamaged([](detail::ModuleContents &) {}).isOk());
  auto expectError = [](void (*damage)(detail::ModuleContents &),
                        const std::string &message) {
    Status st = decodeDamaged(damage);
    ASSERT_FALSE(st.isOk()) << message;
    EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
  };
  expectError([](detail::ModuleContents &c) { c.aliases[0].aliasOf = 1; },
              "alias 0 refers to segment 1 of 1");
  expectError([](detail::ModuleContents &c) { c.aliases[0].shape = {5}; },
              "alias 0: ");
  expectError(
      [](detail::ModuleContents &c) {
        c.aliases[0].elementType = *parseElementType("i3");
      },
      "alias 0: ");
  expectError([](detail::ModuleContents &c) { c.formatVersion = 1; },
              "aliases need format version 2");
  expectError(
      [](detail::ModuleContents &c) {
        c.aliases.clear();
        c.formatVersion = 2;
      },
      "is not the lowest that holds this module");
  expectError([](detail::ModuleContents &c) { c.formatVersion = 3; },
              "this reader knows versions 1 to 2");
}

} // namespace
