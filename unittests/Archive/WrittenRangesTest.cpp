//===- WrittenRangesTest.cpp - Written-range tracking of the writers ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// WrittenRanges against a slow, obvious reference: one flag per byte. Random
// chunk sequences (in order, shuffled, overlapping, with holes) must give
// the same overlaps, the same first hole, and, when every byte is written
// once, the CRC-32 of the whole buffer.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/WrittenRanges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>
#include <zlib.h>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

namespace {

uint32_t crcOf(const std::vector<uint8_t> &bytes, uint64_t start,
               uint64_t end) {
  return uint32_t(crc32(0, bytes.data() + start, uInt(end - start)));
}

/// The first range of [start, end) whose flags are set, as add() reports.
std::optional<ByteRange> referenceOverlap(const std::vector<bool> &done,
                                          uint64_t start, uint64_t end) {
  uint64_t a = start;
  while (a < end && !done[a])
    ++a;
  if (a == end)
    return std::nullopt;
  uint64_t b = a;
  while (b < end && done[b])
    ++b;
  return ByteRange{a, b};
}

std::optional<ByteRange> referenceHole(const std::vector<bool> &done,
                                       uint64_t length) {
  uint64_t a = 0;
  while (a < length && done[a])
    ++a;
  if (a == length)
    return std::nullopt;
  uint64_t b = a;
  while (b < length && !done[b])
    ++b;
  return ByteRange{a, b};
}

TEST(WrittenRanges, Examples) {
  WrittenRanges w;
  EXPECT_FALSE(w.add(10, 20));
  EXPECT_FALSE(w.add(30, 40));
  // Overlaps name the bytes written before: the first such run.
  auto twice = w.add(15, 35);
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->start, 15u);
  EXPECT_EQ(twice->end, 20u);
  twice = w.add(5, 12);
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->start, 10u);
  EXPECT_EQ(twice->end, 12u);
  EXPECT_EQ(w.numRanges(), 2u); // refused chunks change nothing
  auto hole = w.firstHole(50);
  ASSERT_TRUE(hole);
  EXPECT_EQ(hole->start, 0u);
  EXPECT_EQ(hole->end, 10u);
  EXPECT_FALSE(w.add(0, 10));
  EXPECT_FALSE(w.add(20, 30));
  EXPECT_EQ(w.numRanges(), 1u); // touching ranges merge
  hole = w.firstHole(50);
  ASSERT_TRUE(hole);
  EXPECT_EQ(hole->start, 40u);
  EXPECT_EQ(hole->end, 50u);
  EXPECT_FALSE(w.firstHole(40));
  EXPECT_FALSE(w.add(7, 7)); // empty: nothing to record
  EXPECT_EQ(w.numRanges(), 1u);
}

TEST(WrittenRanges, MessagesNameTheBytes) {
  WrittenRanges w;
  auto what = [] { return std::string("segment 'w'"); };
  EXPECT_TRUE(w.record(0, 10, 0, what).isOk());
  Status st = w.record(5, 20, 0, what);
  EXPECT_EQ(st.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(st.message(), "segment 'w': bytes [5, 10) were written twice");
  st = w.checkComplete(30, what);
  EXPECT_EQ(st.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(st.message(), "segment 'w': bytes [10, 30) of 30 were never "
                          "written");
  EXPECT_TRUE(w.checkComplete(10, what).isOk());
  EXPECT_TRUE(WrittenRanges().checkComplete(0, what).isOk());
}

TEST(WrittenRanges, ChecksumOnlyWhenExactlyCovered) {
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 37 + 11);
  WrittenRanges w;
  EXPECT_EQ(w.checksum(0), std::optional<uint32_t>(0));
  EXPECT_FALSE(w.add(60, 100, crcOf(bytes, 60, 100)));
  EXPECT_FALSE(w.checksum(100));
  EXPECT_FALSE(w.add(0, 60, crcOf(bytes, 0, 60)));
  EXPECT_EQ(w.checksum(100), std::optional<uint32_t>(crcOf(bytes, 0, 100)));
  EXPECT_FALSE(w.checksum(99)); // more than [0, 99) was written
  EXPECT_FALSE(w.checksum(0));
}

TEST(WrittenRanges, MatchesAFlagPerByte) {
  std::mt19937_64 rng(14);
  for (int round = 0; round < 2000; ++round) {
    uint64_t length = 1 + rng() % 300;
    std::vector<uint8_t> bytes(length);
    for (auto &b : bytes)
      b = uint8_t(rng());
    // Chunks tiling [0, length), shuffled; a few random extra chunks
    // (overlaps) and a few dropped ones (holes).
    std::vector<ByteRange> chunks;
    for (uint64_t at = 0; at < length;) {
      uint64_t n = 1 + rng() % std::min<uint64_t>(length - at, 40);
      chunks.push_back({at, at + n});
      at += n;
    }
    std::shuffle(chunks.begin(), chunks.end(), rng);
    if (round % 3 == 1)
      for (int k = 0; k < 3; ++k) {
        uint64_t a = rng() % length;
        chunks.insert(chunks.begin() + long(rng() % (chunks.size() + 1)),
                      ByteRange{a, a + 1 + rng() % (length - a)});
      }
    if (round % 3 == 2 && chunks.size() > 1)
      chunks.erase(chunks.begin() + long(rng() % chunks.size()));

    WrittenRanges w;
    std::vector<bool> done(length, false);
    bool anyRefused = false;
    for (const ByteRange &c : chunks) {
      std::optional<ByteRange> want = referenceOverlap(done, c.start, c.end);
      std::optional<ByteRange> got =
          w.add(c.start, c.end, crcOf(bytes, c.start, c.end));
      ASSERT_EQ(bool(got), bool(want)) << "round " << round;
      if (want) {
        EXPECT_EQ(got->start, want->start);
        EXPECT_EQ(got->end, want->end);
        anyRefused = true;
        continue;
      }
      std::fill(done.begin() + long(c.start), done.begin() + long(c.end), true);
    }
    std::optional<ByteRange> wantHole = referenceHole(done, length);
    std::optional<ByteRange> gotHole = w.firstHole(length);
    ASSERT_EQ(bool(gotHole), bool(wantHole)) << "round " << round;
    if (wantHole) {
      EXPECT_EQ(gotHole->start, wantHole->start);
      EXPECT_EQ(gotHole->end, wantHole->end);
      EXPECT_FALSE(w.checksum(length));
    } else {
      EXPECT_EQ(w.numRanges(), 1u);
      EXPECT_EQ(w.checksum(length),
                std::optional<uint32_t>(crcOf(bytes, 0, length)));
    }
    if (round % 3 == 0)
      EXPECT_FALSE(anyRefused || wantHole) << "a tiling covers once";
  }
}

} // namespace
