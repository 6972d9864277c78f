//===- IrpaReaderTest.cpp - Hostile parameter archives --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// .irpa has no checksums, so damage is not always detectable: the promise
// is that the reader never crashes or reads outside the file, and that what
// it accepts is self-consistent. Every single-byte change and every
// truncation of a small archive goes through IrpaReader (under ASan/UBSan
// in the sanitizer build), and hand-made archives hit each rule.
//
//===----------------------------------------------------------------------===//

#include "IrpaSample.h"
#include "TestFiles.h"

#include "vmpack/Formats/IrpaReader.h"

#include <gtest/gtest.h>

using namespace vmpack::formats;
using namespace vmpack::formats::irpa;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

std::vector<uint8_t> smallArchive() {
  ScratchDir dir;
  EXPECT_TRUE(writeSampleIrpa(dir.path("s.irpa"), smallParams()));
  return readFile(dir.path("s.irpa"));
}

/// Opens `bytes` from an allocation of exactly their size; if accepted,
/// touches every byte of every data entry and checks the invariants.
bool openAndTouch(const std::vector<uint8_t> &bytes, std::string &message) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() + 1]);
  std::copy(bytes.begin(), bytes.end(), copy.get());
  auto reader = IrpaReader::open(copy.get(), bytes.size());
  if (!reader) {
    message = reader.status().message();
    EXPECT_FALSE(message.empty());
    return false;
  }
  unsigned sum = 0;
  for (size_t i = 0; i < (*reader)->numEntries(); ++i) {
    const IrpaEntry &e = (*reader)->entry(i);
    EXPECT_EQ((*reader)->findEntry(e.key), i);
    if (e.kind == IrpaEntryKind::Data) {
      EXPECT_LE(e.offset, bytes.size());
      EXPECT_LE(e.length, bytes.size() - e.offset);
      for (uint64_t j = 0; j < e.length; ++j)
        sum += (*reader)->entryData(i)[j];
    } else {
      EXPECT_TRUE(isValidPatternLength(e.patternLength));
      EXPECT_EQ(e.length % e.patternLength, 0u);
      EXPECT_LE(e.recordOffset + splat::kSize, bytes.size());
      sum += (*reader)->splatPattern(i)[kMaxPatternLength - 1];
    }
  }
  Status layout = (*reader)->verifyLayout();
  message = layout.isOk() ? "" : layout.message();
  (void)sum;
  return true;
}

TEST(IrpaReader, EveryByteChangeAndTruncationIsSafe) {
  std::vector<uint8_t> good = smallArchive();
  ASSERT_EQ(good.size(), 4096u);
  std::string message;
  ASSERT_TRUE(openAndTouch(good, message));
  ASSERT_TRUE(message.empty()) << message;
  size_t rejected = 0, accepted = 0;
  // Past the data, the file is zero padding: damage there is invisible.
  for (size_t i = 0; i < 512; ++i) {
    for (uint8_t delta : {uint8_t(1), uint8_t(0x80), uint8_t(0xFF)}) {
      std::vector<uint8_t> bad = good;
      bad[i] = uint8_t(bad[i] + delta);
      ++(openAndTouch(bad, message) ? accepted : rejected);
    }
  }
  // Header, table and names are checked; data bytes are not.
  EXPECT_GT(rejected, 300u);
  EXPECT_GT(accepted, 0u);
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    bool opened = openAndTouch(cut, message);
    // Everything up to the end of the last data entry is needed.
    if (n < 448 + 3)
      EXPECT_FALSE(opened) << "truncated to " << n;
  }
}

/// A writable copy of the small archive with helpers to patch fields.
struct Patched {
  std::vector<uint8_t> bytes = smallArchive();
  template <typename T> void set(size_t at, T v) { store<T>(&bytes[at], v); }
  std::string openError() {
    auto reader = IrpaReader::open(bytes.data(), bytes.size());
    return reader ? std::string() : reader.status().message();
  }
  std::string layoutError() {
    auto reader = IrpaReader::open(bytes.data(), bytes.size());
    if (!reader)
      return "open: " + reader.status().message();
    Status st = (*reader)->verifyLayout();
    return st.isOk() ? std::string() : st.message();
  }
};

constexpr size_t kFirst = kEntryTableOffset; // "w", data
constexpr size_t kSecond = 176;              // "s", splat
constexpr size_t kThird = 272;               // "b", data

#define EXPECT_ERROR(text, expr)                                               \
  do {                                                                         \
    std::string m_ = (expr);                                                   \
    EXPECT_NE(m_.find(text), std::string::npos) << "got: '" << m_ << "'";      \
  } while (0)

TEST(IrpaReader, HeaderRules) {
  {
    Patched p;
    EXPECT_EQ(p.openError(), "");
  }
  {
    Patched p;
    p.bytes[0] = 'X';
    EXPECT_ERROR("does not start with \"IRPA\"", p.openError());
  }
  {
    Patched p;
    p.set<uint16_t>(prefix::kVersionMajor, 1);
    EXPECT_ERROR("version 1.0 is not supported", p.openError());
  }
  {
    Patched p;
    p.set<uint16_t>(prefix::kVersionMinor, 1);
    EXPECT_ERROR("version 0.1 is not supported", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(prefix::kHeaderSize, 89);
    EXPECT_ERROR("header size 89", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(prefix::kNextHeaderOffset, 4096);
    EXPECT_ERROR("linked archives are not supported", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(header::kStorageSegment, UINT64_MAX - 10);
    EXPECT_ERROR("storage segment", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(header::kMetadataSegment + 8, UINT64_MAX);
    EXPECT_ERROR("metadata segment", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(header::kEntryCount, UINT64_MAX);
    EXPECT_ERROR("entry table of", p.openError());
  }
  {
    Patched p;
    p.bytes.resize(40);
    EXPECT_ERROR("fewer than the 88", p.openError());
  }
}

TEST(IrpaReader, EntryRules) {
  {
    Patched p;
    p.set<uint64_t>(kFirst + entry::kEntrySize, 59);
    EXPECT_ERROR("entry size 59", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kFirst + entry::kEntrySize, 70);
    EXPECT_ERROR("too small for its type", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kThird + entry::kEntrySize, 77);
    EXPECT_ERROR("entry size 77 is not in [60, 76]", p.openError());
  }
  {
    Patched p;
    p.set<uint32_t>(kSecond + entry::kType, 3);
    EXPECT_ERROR("external entries", p.openError());
  }
  {
    Patched p;
    p.set<uint32_t>(kSecond + entry::kType, 9);
    EXPECT_ERROR("unknown entry type 9", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kFirst + entry::kName, 2); // name [2, +1) of 3
    p.set<uint64_t>(kFirst + entry::kName + 8, 2);
    EXPECT_ERROR("name [2, +2) lies outside the metadata segment of 3",
                 p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kFirst + entry::kMetadata, UINT64_MAX);
    p.set<uint64_t>(kFirst + entry::kMetadata + 8, 2);
    EXPECT_ERROR("metadata [", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kFirst + data::kStorage, UINT64_MAX - 2);
    EXPECT_ERROR("lies outside the storage segment", p.openError());
  }
  {
    Patched p;
    p.bytes[kSecond + splat::kPatternLength] = 3;
    EXPECT_ERROR("splat pattern length 3", p.openError());
  }
  {
    Patched p;
    p.bytes[kSecond + splat::kPatternLength] = 16;
    EXPECT_ERROR("not a multiple of the pattern length 16", p.openError());
  }
  {
    Patched p;
    p.set<uint64_t>(kThird + entry::kMinimumAlignment, 48);
    EXPECT_ERROR("minimum alignment 48", p.openError());
  }
  {
    Patched p; // "b" renamed to "w"
    p.set<uint64_t>(kThird + entry::kName, 0);
    EXPECT_ERROR("duplicate key", p.openError());
  }
  {
    Patched p; // a skip entry is validated, then left out
    p.set<uint32_t>(kSecond + entry::kType, 0);
    auto reader = IrpaReader::open(p.bytes.data(), p.bytes.size());
    ASSERT_TRUE(reader) << reader.status().message();
    EXPECT_EQ((*reader)->numEntries(), 2u);
    EXPECT_EQ((*reader)->numSkipped(), 1u);
  }
}

TEST(IrpaReader, LayoutRules) {
  {
    Patched p;
    EXPECT_EQ(p.layoutError(), "");
  }
  {
    Patched p; // "b" onto "w"'s bytes
    p.set<uint64_t>(kThird + data::kStorage, 0);
    EXPECT_ERROR("share bytes", p.layoutError());
  }
  {
    Patched p; // storage over the names
    p.set<uint64_t>(header::kStorageSegment, 320);
    EXPECT_ERROR("overlaps the entry table", p.layoutError());
  }
  {
    Patched p;
    p.set<uint64_t>(kThird + data::kStorage, 63);
    EXPECT_ERROR("not a multiple of its minimum alignment 64", p.layoutError());
  }
}

TEST(IrpaReader, ReadsIreeCreatedArchive) {
  std::vector<uint8_t> bytes =
      readFile(VMPACK_SOURCE_DIR "/unittests/Formats/Inputs/iree-create.irpa");
  auto reader = IrpaReader::open(bytes.data(), bytes.size());
  ASSERT_TRUE(reader) << reader.status().message();
  EXPECT_TRUE((*reader)->verifyLayout());
  ASSERT_EQ((*reader)->numEntries(), 5u);
  const IrpaEntry &s16 = (*reader)->entry(0);
  EXPECT_EQ(s16.key, "s16");
  EXPECT_EQ(s16.kind, IrpaEntryKind::Splat);
  EXPECT_EQ(s16.length, 16u);
  EXPECT_EQ(s16.patternLength, 2);
  EXPECT_EQ(s16.pattern[0], 123);
  const IrpaEntry &z = (*reader)->entry(1);
  EXPECT_EQ(z.patternLength, 8);
  EXPECT_EQ(z.pattern[6], 0xf8);
  EXPECT_EQ(z.pattern[7], 0x3f);
  const IrpaEntry &w = (*reader)->entry(3);
  EXPECT_EQ(w.key, "weights.0");
  EXPECT_EQ(w.offset, 640u);
  EXPECT_EQ(w.length, 100u);
  EXPECT_EQ((*reader)->entryData(3)[99], 0xa5);
  EXPECT_EQ((*reader)->entry(4).offset, 768u);
}

} // namespace
