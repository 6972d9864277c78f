//===- HexTest.cpp - Hex decoding against the reference -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/Hex.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace vmpack;

namespace {

std::vector<DispatchLevel> supportedLevels() {
  std::vector<DispatchLevel> levels;
  for (unsigned i = 0; i < kNumDispatchLevels; ++i)
    if (isDispatchLevelSupported(DispatchLevel(i)))
      levels.push_back(DispatchLevel(i));
  return levels;
}

/// Digit `v` (0-15), upper case when `upper`.
char hexDigit(unsigned v, bool upper) {
  char c = "0123456789abcdef"[v & 15];
  return upper ? char(std::toupper(static_cast<unsigned char>(c))) : c;
}

/// `bytes` as hex, each digit's case picked by `rng` (mixed case is valid).
// (Written with a helper: GCC 12 with -fsanitize=address,undefined
// miscompiles `(cond ? upperArray : lowerArray)[i]` here.)
std::string toHex(const std::vector<uint8_t> &bytes, std::mt19937 &rng) {
  std::string text;
  for (uint8_t b : bytes) {
    text += hexDigit(b >> 4, rng() & 1);
    text += hexDigit(b & 15, rng() & 1);
  }
  return text;
}

bool isHexDigit(unsigned c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

TEST(Hex, SpecVectors) {
  uint8_t out[8] = {};
  ASSERT_TRUE(reference::decodeHex("00FF7fA5", out, 4));
  EXPECT_EQ(out[0], 0x00);
  EXPECT_EQ(out[1], 0xFF);
  EXPECT_EQ(out[2], 0x7F);
  EXPECT_EQ(out[3], 0xA5);
  EXPECT_FALSE(reference::decodeHex("0g", out, 1));
  EXPECT_FALSE(reference::decodeHex("G0", out, 1));
  EXPECT_TRUE(reference::decodeHex("", out, 0));
}

TEST(Hex, EveryLevelMatchesReferenceOnRandomText) {
  std::mt19937 rng(7);
  for (DispatchLevel level : supportedLevels()) {
    SCOPED_TRACE(dispatchLevelName(level));
    for (uint64_t n = 0; n < 300; ++n) {
      std::vector<uint8_t> bytes(n);
      for (uint8_t &b : bytes)
        b = uint8_t(rng());
      std::string text = toHex(bytes, rng);
      std::vector<uint8_t> fast(n + 1, 0xCC), slow(n + 1, 0xCC);
      ASSERT_TRUE(decodeHexAt(level, text.data(), fast.data(), n)) << n;
      ASSERT_TRUE(reference::decodeHex(text.data(), slow.data(), n));
      ASSERT_EQ(fast, slow) << n;
      fast.pop_back();
      ASSERT_EQ(fast, bytes) << n;
    }
  }
}

// Every byte value that is not a digit, at every position of a string long
// enough to reach each kernel's vector loop and its tail, is rejected.
TEST(Hex, EveryLevelRejectsEveryNonDigitAnywhere) {
  std::mt19937 rng(11);
  std::vector<uint8_t> bytes(80);
  for (uint8_t &b : bytes)
    b = uint8_t(rng());
  std::string valid = toHex(bytes, rng);
  std::vector<uint8_t> out(bytes.size());
  for (DispatchLevel level : supportedLevels()) {
    SCOPED_TRACE(dispatchLevelName(level));
    for (unsigned c = 0; c < 256; ++c) {
      if (isHexDigit(c))
        continue;
      for (size_t pos = 0; pos < valid.size(); ++pos) {
        std::string text = valid;
        text[pos] = char(c);
        ASSERT_FALSE(decodeHexAt(level, text.data(), out.data(), bytes.size()))
            << "byte " << c << " at " << pos;
        ASSERT_FALSE(
            reference::decodeHex(text.data(), out.data(), bytes.size()));
      }
    }
    // Characters after the decoded digits are not read.
    std::string text = valid + "zz";
    EXPECT_TRUE(decodeHexAt(level, text.data(), out.data(), bytes.size()));
  }
}

// The prefix decoder stops at the first non-digit, wherever it is (in a
// vector block or the tail, as the first or second digit of a pair), and
// decodes everything before it as decodeHex does.
TEST(Hex, EveryLevelDecodesPrefixesUpToTheFirstNonDigit) {
  std::mt19937 rng(13);
  for (DispatchLevel level : supportedLevels()) {
    SCOPED_TRACE(dispatchLevelName(level));
    for (int trial = 0; trial < 3000; ++trial) {
      size_t n = rng() % 200;
      std::vector<uint8_t> bytes(n);
      for (uint8_t &b : bytes)
        b = uint8_t(rng());
      std::string text = toHex(bytes, rng);
      size_t stop = text.size();
      if (n && rng() % 4) {
        stop = rng() % text.size();
        unsigned c;
        do
          c = rng() % 256;
        while (isHexDigit(c));
        text[stop] = char(c);
      }
      std::vector<uint8_t> fast(n), slow(n);
      uint64_t got = decodeHexPrefixAt(level, text.data(), fast.data(), n);
      ASSERT_EQ(got, stop / 2) << "n " << n << " stop " << stop;
      ASSERT_EQ(reference::decodeHexPrefix(text.data(), slow.data(), n), got);
      fast.resize(got);
      ASSERT_EQ(fast, std::vector<uint8_t>(bytes.begin(), bytes.begin() + got));
    }
  }
}

TEST(Hex, ActiveLevelIsUsed) {
  std::string text = "0123456789abcdefABCDEF";
  uint8_t out[11];
  ASSERT_TRUE(decodeHex(text.data(), out, 11));
  const uint8_t expected[11] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
                                0xcd, 0xef, 0xAB, 0xCD, 0xEF};
  EXPECT_EQ(0, std::memcmp(out, expected, 11));
}

} // namespace

TEST(Hex, EncodeSpecVectors) {
  const uint8_t bytes[] = {0x00, 0xFF, 0x7F, 0xA5, 0x10, 0x09};
  char out[12];
  encodeHex(bytes, 6, out);
  EXPECT_EQ(std::string(out, 12), "00FF7FA51009");
  encodeHex(bytes, 0, out); // writes nothing
}

TEST(Hex, EncodeRoundTripsThroughTheReferenceDecoder) {
  std::mt19937 rng(11);
  for (uint64_t n = 0; n < 600; n += 1 + n / 8) {
    std::vector<uint8_t> bytes(n), back(n);
    for (uint8_t &b : bytes)
      b = uint8_t(rng());
    std::string text(2 * n, '?');
    encodeHex(bytes.data(), n, text.data());
    for (char c : text)
      ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')) << c;
    ASSERT_TRUE(reference::decodeHex(text.data(), back.data(), n));
    EXPECT_EQ(back, bytes);
  }
}
