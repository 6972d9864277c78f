//===- ReaderRobustnessTest.cpp - Hostile and damaged input
//----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every single-byte change and every truncation of a valid module must be
// reported, by open() or at the latest by verifyContents(); garbage must
// never crash the reader. Run under ASan/UBSan (VMPACK_SANITIZE) as well.
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"
#include "TestFiles.h"
#include "ZipLayout.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"

#include <gtest/gtest.h>

#include <random>
#include <zlib.h>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

std::vector<uint8_t> smallModule() {
  ScratchDir dir;
  std::vector<SampleSegment> segments;
  segments.push_back(makeSegment("w", "i4", {5, 3}, Encoding::Packed, 64, 1));
  segments.push_back(makeSegment("b/x", "f16", {3}, Encoding::Word, 16, 2));
  segments.push_back(makeSegment("m", "i1", {9}, Encoding::Packed, 8, 3));
  // With aliases (format version 2): damaged alias records are rejected
  // too.
  EXPECT_TRUE(writeModule(dir.path("m"), "small", segments, "program bytes", 1,
                          1, {smallSampleAliases()[0]})
                  .isOk());
  return readFile(dir.path("m"));
}

/// Opens and fully verifies; returns the first error or ok.
Status openAndVerify(const std::vector<uint8_t> &bytes) {
  AlignedBytes buf(bytes);
  auto reader = ArchiveReader::open(buf.data(), buf.size);
  if (!reader)
    return reader.status();
  return (*reader)->verifyContents(1);
}

TEST(ReaderRobustness, ValidModuleVerifies) {
  Status st = openAndVerify(smallModule());
  EXPECT_TRUE(st.isOk()) << st.message();
}

TEST(ReaderRobustness, EverySingleByteChangeIsDetected) {
  std::vector<uint8_t> good = smallModule();
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t delta : {uint8_t(1), uint8_t(0x80)}) {
      std::vector<uint8_t> bad = good;
      bad[i] = uint8_t(bad[i] + delta);
      Status st = openAndVerify(bad);
      ASSERT_FALSE(st.isOk()) << "change at offset " << i << " undetected";
      ASSERT_FALSE(st.message().empty());
    }
  }
}

TEST(ReaderRobustness, EveryTruncationAndExtensionIsDetected) {
  std::vector<uint8_t> good = smallModule();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    ASSERT_FALSE(openAndVerify(cut).isOk()) << "truncated to " << n;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(openAndVerify(longer).isOk());
  std::vector<uint8_t> prefixed(1, 0);
  prefixed.insert(prefixed.end(), good.begin(), good.end());
  EXPECT_FALSE(openAndVerify(prefixed).isOk());
}

TEST(ReaderRobustness, RandomGarbageIsRejected) {
  std::mt19937_64 rng(3);
  std::string trailer = formatTrailer(Trailer());
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bytes(rng() % 600);
    for (auto &b : bytes)
      b = uint8_t(rng());
    // Half the time, end in a plausible EOCD record with a vmpack trailer
    // pointing somewhere inside, to get past the first check.
    if (i % 2 && bytes.size() > zip::end::kSize + trailer.size()) {
      Trailer t;
      t.indexOffset = (rng() % bytes.size()) & ~uint64_t(15);
      t.indexLength = rng() % 200;
      if (t.indexOffset + t.indexLength <= bytes.size())
        t.indexChecksum = uint32_t(
            crc32(0, bytes.data() + t.indexOffset, uInt(t.indexLength)));
      std::string text = formatTrailer(t);
      size_t eocd = bytes.size() - zip::end::kSize - text.size();
      for (int k = 0; k < 4; ++k)
        bytes[eocd + k] = uint8_t(zip::end::kSignature >> (8 * k));
      bytes[eocd + zip::end::kCommentLength] = uint8_t(text.size());
      bytes[eocd + zip::end::kCommentLength + 1] = 0;
      std::copy(text.begin(), text.end(),
                bytes.begin() + long(eocd + zip::end::kSize));
    }
    EXPECT_FALSE(openAndVerify(bytes).isOk());
  }
}

TEST(ReaderRobustness, HostileIndexWithMatchingCrcIsRejectedSafely) {
  // Change index bytes and fix the trailer's CRC, so that the damage reaches
  // the FlatBuffers verifier and the record checks.
  std::vector<uint8_t> good = smallModule();
  AlignedBytes buf(good);
  auto reader = ArchiveReader::open(buf.data(), buf.size);
  ASSERT_TRUE(reader.isOk());
  EntryInfo index = (*reader)->index();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 4000; ++i) {
    std::vector<uint8_t> bad = good;
    for (int k = 1 + int(rng() % 3); k > 0; --k)
      bad[index.offset + rng() % index.length] = uint8_t(rng());
    Trailer t;
    t.indexOffset = index.offset;
    t.indexLength = index.length;
    t.indexChecksum =
        uint32_t(crc32(0, bad.data() + index.offset, uInt(index.length)));
    std::string text = formatTrailer(t);
    std::copy(text.begin(), text.end(), bad.end() - long(text.size()));
    if (bad == good)
      continue;
    EXPECT_FALSE(openAndVerify(bad).isOk());
  }
}

TEST(ReaderRobustness, MessagesSayWhatAndWhere) {
  std::vector<uint8_t> good = smallModule();
  AlignedBytes buf(good);
  auto reader = ArchiveReader::open(buf.data(), buf.size);
  ASSERT_TRUE(reader.isOk());
  const SegmentInfo &w = (*reader)->segment(0);
  std::vector<uint8_t> bad = good;
  bad[w.offset + 1] ^= 1;
  Status st = openAndVerify(bad);
  EXPECT_NE(st.message().find("segment 'w'"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("CRC-32"), std::string::npos);

  std::vector<uint8_t> cut(good.begin(), good.end() - 1);
  EXPECT_NE(openAndVerify(cut).message().find("end-of-central-directory"),
            std::string::npos);
  EXPECT_NE(openAndVerify({'P', 'K'}).message().find("too small"),
            std::string::npos);
}

} // namespace
