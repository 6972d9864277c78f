//===- RoundTripTest.cpp - Write, read back, compare
//-----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "SampleModule.h"
#include "TestFiles.h"

#include "ZipLayout.h"
#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/MappedFile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

std::vector<SampleSegment> randomSegments(uint64_t seed) {
  static const char *kTypes[] = {
      "i1",       "i2",       "i3",           "i4",         "i5",
      "i7",       "i8",       "i12",          "i17",        "i33",
      "si4",      "ui4",      "i64",          "index",      "f16",
      "bf16",     "f32",      "f64",          "tf32",       "f8E4M3FN",
      "f4E2M1FN", "f6E3M2FN", "complex<f16>", "complex<i4>"};
  static const uint32_t kAlignments[] = {1, 2, 4, 8, 16, 64, 4096, 65536};
  std::mt19937_64 rng(seed);
  std::vector<SampleSegment> out;
  unsigned n = 1 + unsigned(rng() % 12);
  for (unsigned i = 0; i < n; ++i) {
    std::string type = kTypes[rng() % std::size(kTypes)];
    uint32_t w = parseElementType(type)->scalarBits();
    Encoding enc;
    do
      enc = Encoding(rng() % 3);
    while (!isEncodable(enc, w));
    std::vector<int64_t> shape;
    for (unsigned r = unsigned(rng() % 3); r > 0; --r)
      shape.push_back(int64_t(rng() % 40));
    uint32_t alignment = kAlignments[rng() % std::size(kAlignments)];
    std::string name = "seg" + std::to_string(i);
    if (rng() % 4 == 0)
      name += "/odd name";
    out.push_back(makeSegment(name, type, shape, enc, alignment, rng()));
  }
  return out;
}

void expectMatches(const ArchiveReader &reader,
                   const std::vector<SampleSegment> &segments,
                   const std::string &program) {
  ASSERT_EQ(reader.numSegments(), segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    const SegmentInfo &info = reader.segment(i);
    const SegmentDesc &desc = segments[i].desc;
    EXPECT_EQ(info.name, desc.name);
    EXPECT_EQ(info.mlirType, desc.mlirType);
    EXPECT_TRUE(info.elementType == desc.elementType);
    EXPECT_EQ(info.shape, desc.shape);
    EXPECT_EQ(info.encoding, desc.encoding);
    EXPECT_EQ(info.length, desc.length);
    EXPECT_EQ(info.alignment, desc.alignment);
    EXPECT_EQ(info.sourceKind, desc.sourceKind);
    EXPECT_EQ(info.sourceKey, desc.sourceKey);
    EXPECT_EQ(info.sourceAlignment, desc.sourceAlignment);
    EXPECT_EQ(info.offset % info.alignment, 0u);
    if (info.length)
      EXPECT_EQ(0, std::memcmp(reader.segmentData(i), segments[i].bytes.data(),
                               info.length));
    EXPECT_EQ(reader.findSegment(desc.name), i);
  }
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(reader.programData()),
                        reader.program().length),
            program);
}

TEST(RoundTrip, SampleModule) {
  ScratchDir dir;
  std::vector<SampleSegment> segments = sampleSegments();
  ASSERT_TRUE(
      writeModule(dir.path("m.vmpk"), "sample", segments, "prog", 2, 9).isOk());
  auto file = MappedFile::open(dir.path("m.vmpk"));
  ASSERT_TRUE(file.isOk()) << file.status().message();
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  ASSERT_TRUE(reader.isOk()) << reader.status().message();
  expectMatches(**reader, segments, "prog");
  EXPECT_EQ((*reader)->moduleName(), "sample");
  EXPECT_EQ((*reader)->producer(), "vmpack-tests");
  EXPECT_EQ((*reader)->formatVersion(), 1u);
  EXPECT_TRUE((*reader)->verifyContents(2).isOk());
  EXPECT_FALSE((*reader)->findSegment("nope"));
  // Exactly the destination: no temporary file left behind.
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m.vmpk"});
}

TEST(RoundTrip, RandomModulesAreDeterministicAcrossThreadCounts) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    ScratchDir dir;
    std::vector<SampleSegment> segments = randomSegments(seed);
    std::string program(size_t(seed * 37), char('a' + seed % 26));
    ASSERT_TRUE(writeModule(dir.path("one"), "m" + std::to_string(seed),
                            segments, program, 1, seed)
                    .isOk());
    Status st = writeModule(dir.path("two"), "m" + std::to_string(seed),
                            segments, program, 2, seed * 1000 + 1);
    ASSERT_TRUE(st.isOk()) << st.message();
    std::vector<uint8_t> one = readFile(dir.path("one"));
    ASSERT_EQ(one, readFile(dir.path("two"))) << "seed " << seed;

    auto file = MappedFile::open(dir.path("two"));
    ASSERT_TRUE(file.isOk());
    auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
    ASSERT_TRUE(reader.isOk()) << reader.status().message();
    expectMatches(**reader, segments, program);
    for (size_t i = 0; i < segments.size(); ++i) {
      uint32_t a = segments[i].desc.alignment;
      if (a <= 4096) // mmap is page aligned
        EXPECT_EQ(reinterpret_cast<uintptr_t>((*reader)->segmentData(i)) % a,
                  0u);
    }
    for (unsigned threads : {1u, 2u, 0u}) {
      Status v = (*reader)->verifyContents(threads);
      EXPECT_TRUE(v.isOk()) << v.message();
    }
  }
}

TEST(RoundTrip, MaximumAlignmentNeedingAGapBeforeTheHeader) {
  // "a" ends where entry "b"'s data would need 2 bytes of padding: too few
  // for an extra block, and 65538 bytes do not fit the extra field.
  std::vector<SampleSegment> segments;
  segments.push_back(
      makeSegment("a", "i8", {65536 - 64}, Encoding::Byte, 1, 1));
  segments.push_back(makeSegment("b", "i8", {3}, Encoding::Byte, 65536, 2));
  ScratchDir dir;
  ASSERT_TRUE(writeModule(dir.path("m"), "gap", segments, "", 1, 1).isOk());
  auto file = MappedFile::open(dir.path("m"));
  ASSERT_TRUE(file.isOk());
  auto reader = ArchiveReader::open((*file)->data(), (*file)->size());
  ASSERT_TRUE(reader.isOk()) << reader.status().message();
  EXPECT_EQ((*reader)->segment(1).offset, 65536u);
  EXPECT_TRUE((*reader)->verifyContents(1).isOk());

  std::vector<ZipEntry> entries = {{"a", 65536 - 64, 1, 0}, {"b", 3, 65536, 0}};
  auto plan = planZip(entries, 0);
  ASSERT_TRUE(plan.isOk());
  EXPECT_EQ(plan->entries[1].gap, 2u);
  EXPECT_EQ(plan->entries[1].paddingBlockSize, 0u);
  EXPECT_EQ(plan->entries[1].dataOffset, 65536u);
}

TEST(ZipLayout, PaddingBlocksAreAtLeastFourBytes) {
  for (uint64_t before = 0; before < 300; ++before) {
    for (uint32_t a : {1u, 2u, 4u, 8u, 64u, 32768u, 65536u}) {
      std::vector<ZipEntry> entries = {{"x", before, 1, 0}, {"yy", 5, a, 0}};
      auto plan = planZip(entries, 0);
      ASSERT_TRUE(plan.isOk());
      const ZipPlacement &p = plan->entries[1];
      EXPECT_EQ(p.dataOffset % a, 0u);
      EXPECT_TRUE(p.paddingBlockSize == 0 || p.paddingBlockSize >= 4);
      EXPECT_EQ(p.dataOffset,
                p.headerOffset + zip::local::kSize + 2 + p.paddingBlockSize);
      EXPECT_EQ(p.prefixOffset, zip::local::kSize + 1 + before);
      EXPECT_EQ(localPrefixBytes(entries[1], p).size(),
                p.dataOffset - p.prefixOffset);
    }
  }
}

TEST(ZipLayout, Zip64FieldsAppearExactlyWhenNeeded) {
  const uint64_t big = uint64_t(5) << 30;
  std::vector<ZipEntry> entries = {{"big", big, 64, 0x12345678},
                                   {"after", 10, 64, 0}};
  auto plan = planZip(entries, 0);
  ASSERT_TRUE(plan.isOk());
  EXPECT_TRUE(plan->entries[0].zip64Sizes);
  EXPECT_FALSE(plan->entries[1].zip64Sizes);
  EXPECT_TRUE(plan->zip64End);
  std::string local = localPrefixBytes(entries[0], plan->entries[0]);
  // Sizes are 0xFFFFFFFF and the zip64 extra block follows the name.
  EXPECT_EQ(local.substr(zip::local::kCompressedSize, 8),
            std::string(8, '\xff'));
  EXPECT_EQ(local.substr(zip::local::kSize + 3, 4),
            std::string("\x01\x00\x10\x00", 4));
  std::string tail = centralDirectoryAndEndBytes(entries, *plan, "");
  // The second entry's header offset exceeds 32 bits: 0xFFFFFFFF + zip64.
  size_t second = zip::central::kSize + 3 + 4 + 16;
  EXPECT_EQ(tail.substr(second + zip::central::kLocalHeaderOffset, 4),
            std::string(4, '\xff'));
  EXPECT_EQ(tail.size(), second + zip::central::kSize + 5 + 4 + 8 +
                             zip::zip64End::kSize + zip::zip64Locator::kSize +
                             zip::end::kSize);
  EXPECT_EQ(plan->fileSize, plan->centralDirectoryOffset + tail.size());
  // Each end record starts with its signature where the sizes put it, and
  // the fields read back at their offsets (APPNOTE 4.3.14 to 4.3.16).
  auto le = [&](size_t at, size_t n) {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k)
      v |= uint64_t(uint8_t(tail[at + k])) << (8 * k);
    return v;
  };
  size_t zip64End = plan->endRecordsOffset - plan->centralDirectoryOffset;
  size_t locator = zip64End + zip::zip64End::kSize;
  size_t end = locator + zip::zip64Locator::kSize;
  EXPECT_EQ(le(0, 4), 0x02014b50u);
  EXPECT_EQ(le(zip64End, 4), 0x06064b50u);
  EXPECT_EQ(le(zip64End + zip::zip64End::kRecordSize, 8), 44u);
  EXPECT_EQ(le(zip64End + zip::zip64End::kEntries, 8), 2u);
  EXPECT_EQ(le(zip64End + zip::zip64End::kDirectoryOffset, 8),
            plan->centralDirectoryOffset);
  EXPECT_EQ(le(locator, 4), 0x07064b50u);
  EXPECT_EQ(le(locator + zip::zip64Locator::kEndOffset, 8),
            plan->endRecordsOffset);
  EXPECT_EQ(le(end, 4), 0x06054b50u);
  EXPECT_EQ(le(end + zip::end::kEntries, 2), 2u);
  EXPECT_EQ(le(end + zip::end::kDirectoryOffset, 4), 0xFFFFFFFFu);
  EXPECT_EQ(le(end + zip::end::kCommentLength, 2), 0u);
}

} // namespace
