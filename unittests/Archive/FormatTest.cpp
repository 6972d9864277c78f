//===- FormatTest.cpp - Entry names and the trailer
//------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/Format.h"

#include <gtest/gtest.h>

#include <random>

using namespace vmpack::archive;

namespace {

TEST(SegmentNames, PlainNamesAreUnchanged) {
  EXPECT_EQ(escapeSegmentName("layer0.weight_q-4"), "layer0.weight_q-4");
}

TEST(SegmentNames, EverythingElseIsPercentEscaped) {
  EXPECT_EQ(escapeSegmentName("a/b c%"), "a%2Fb%20c%25");
  EXPECT_EQ(escapeSegmentName(".hidden"), "%2Ehidden");
  EXPECT_EQ(escapeSegmentName(".."), "%2E.");
  EXPECT_EQ(escapeSegmentName(std::string("\0\xff", 2)), "%00%FF");
}

TEST(SegmentNames, UnescapeAcceptsOnlyCanonicalSpellings) {
  EXPECT_EQ(unescapeSegmentName("a%2Fb"), "a/b");
  EXPECT_EQ(unescapeSegmentName("%2Ehidden"), ".hidden");
  EXPECT_FALSE(unescapeSegmentName("a%2fb"));   // lower-case hex
  EXPECT_FALSE(unescapeSegmentName("%41"));     // 'A' needs no escape
  EXPECT_FALSE(unescapeSegmentName(".hidden")); // leading '.' must be escaped
  EXPECT_FALSE(unescapeSegmentName("a%2"));
  EXPECT_FALSE(unescapeSegmentName("a/b"));
}

TEST(SegmentNames, RandomNamesRoundTrip) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string name(1 + rng() % 12, '\0');
    for (char &c : name)
      c = char(rng());
    std::string escaped = escapeSegmentName(name);
    for (char c : escaped)
      ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                  c == '.' || c == '-' || c == '%');
    ASSERT_NE(escaped[0], '.');
    ASSERT_EQ(unescapeSegmentName(escaped), name);
  }
}

TEST(Trailer, FormatsAndParses) {
  Trailer t;
  t.indexOffset = 0x1234;
  t.indexLength = 0xabcdef;
  t.indexChecksum = 0xdeadbeef;
  std::string text = formatTrailer(t);
  EXPECT_EQ(text, "vmpack 0001 index=0000000000001234+0000000000abcdef "
                  "crc32=deadbeef");
  EXPECT_EQ(text.size(), kTrailerLength);
  auto parsed = parseTrailer(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->formatVersion, 1u);
  EXPECT_EQ(parsed->indexOffset, 0x1234u);
  EXPECT_EQ(parsed->indexLength, 0xabcdefu);
  EXPECT_EQ(parsed->indexChecksum, 0xdeadbeefu);
}

TEST(Trailer, RejectsMalformedText) {
  std::string good = formatTrailer(Trailer());
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = 'X';
    EXPECT_FALSE(parseTrailer(bad)) << i;
  }
  EXPECT_FALSE(parseTrailer(good.substr(1)));
  EXPECT_FALSE(parseTrailer(good + " "));
}

TEST(Alignment, PowersOfTwoUpTo65536) {
  EXPECT_TRUE(isValidAlignment(1));
  EXPECT_TRUE(isValidAlignment(64));
  EXPECT_TRUE(isValidAlignment(65536));
  EXPECT_FALSE(isValidAlignment(0));
  EXPECT_FALSE(isValidAlignment(48));
  EXPECT_FALSE(isValidAlignment(131072));
}

} // namespace

TEST(PrintableName, ControlBytesAndBackslashesAreEscaped) {
  EXPECT_EQ(printableName("layer0.weight"), "layer0.weight");
  EXPECT_EQ(printableName("embed/table 0"), "embed/table 0");
  EXPECT_EQ(printableName(std::string("a\x1b[2Jb\0c\\d\xff", 11)),
            "a\\x1B[2Jb\\x00c\\x5Cd\\xFF");
}
