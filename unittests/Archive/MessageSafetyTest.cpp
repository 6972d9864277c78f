//===- MessageSafetyTest.cpp - Error messages about hostile files ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Error messages quote what the file says: names must not reach a terminal
// raw (escape sequences), and hostile numbers must not print as misleading
// wrapped-around values.
//
//===----------------------------------------------------------------------===//

#include "SampleModule.h"
#include "TestFiles.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"

#include <gtest/gtest.h>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

namespace {

/// A segment name that clears the screen when printed raw.
const std::string kHostileName("w\x1b[2J\x07\0z", 8);

TEST(MessageSafety, SegmentNamesAreEscapedInVerificationErrors) {
  ScratchDir dir;
  std::vector<SampleSegment> segments;
  segments.push_back(
      makeSegment(kHostileName, "i4", {6}, Encoding::Packed, 64, 1));
  ASSERT_TRUE(writeModule(dir.path("m"), "m", segments, "p", 1, 1).isOk());
  std::vector<uint8_t> bytes = readFile(dir.path("m"));
  AlignedBytes buf(bytes);
  auto reader = ArchiveReader::open(buf.data(), buf.size);
  ASSERT_TRUE(reader.isOk()) << reader.status().message();
  ASSERT_EQ((*reader)->segment(0).name, kHostileName);
  buf.data()[(*reader)->segment(0).offset] ^= 1;
  Status st = (*reader)->verifyContents(1);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("segment 'w\\x1B[2J\\x07\\x00z'"),
            std::string::npos)
      << st.message();
  for (char c : st.message())
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << st.message();
}

TEST(MessageSafety, IndexRangesThatWrapAroundAreNotPrintedWrapped) {
  // A bare end record whose trailer puts the index at 2^64 - 16, 32 bytes
  // long: the end would wrap to 16.
  Trailer t;
  t.indexOffset = ~uint64_t(15);
  t.indexLength = 32;
  std::string text = formatTrailer(t);
  std::vector<uint8_t> bytes = {0x50, 0x4b, 0x05, 0x06};
  bytes.resize(20, 0);
  bytes.push_back(uint8_t(text.size()));
  bytes.push_back(0);
  bytes.insert(bytes.end(), text.begin(), text.end());
  AlignedBytes buf(bytes);
  auto reader = ArchiveReader::open(buf.data(), buf.size);
  ASSERT_FALSE(reader.isOk());
  const std::string &message = reader.status().message();
  EXPECT_NE(message.find("[18446744073709551600, +32)"), std::string::npos)
      << message;
  EXPECT_EQ(message.find(", 16)"), std::string::npos) << message;
}

} // namespace
