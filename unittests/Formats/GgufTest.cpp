//===- GgufTest.cpp - GGUF reader and writer
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-------------------------------===//
//
// Golden files are written by hand from ggml-org/ggml docs/gguf.md, "File
// Structure" (gguf_header_t, gguf_metadata_kv_t, gguf_tensor_info_t,
// align_offset, gguf_file_t) and the block sizes of src/ggml-common.h.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Gguf.h"

#include "SampleTensors.h"
#include "TestFiles.h"
#include "vmpack/Formats/TypeTable.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::AlignedBytes;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

/// Builds GGUF bytes field by field, as the spec lists them.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes &u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Bytes &u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b.push_back(uint8_t(v >> (8 * i)));
    return *this;
  }
  Bytes &u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      b.push_back(uint8_t(v >> (8 * i)));
    return *this;
  }
  Bytes &str(const std::string &s) {
    u64(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes &padTo(size_t alignment) {
    while (b.size() % alignment)
      b.push_back(0);
    return *this;
  }
  Bytes &raw(const std::vector<uint8_t> &v) {
    b.insert(b.end(), v.begin(), v.end());
    return *this;
  }
};

StatusOr<GgufFile> read(const std::vector<uint8_t> &bytes) {
  AlignedBytes aligned(bytes);
  return readGguf(aligned.data(), aligned.size);
}

std::vector<uint8_t> seq(size_t n, uint8_t start) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint8_t(start + i);
  return v;
}

// A header, two key/value pairs, a Q4_0 tensor of ne = [32, 2] (two
// 18-byte blocks) and an F32 tensor of ne = [3], default alignment 32.
std::vector<uint8_t> goldenFile() {
  Bytes f;
  f.u32(0x46554747).u32(3).u64(2).u64(2);
  f.str("general.architecture").u32(8).str("llama");
  f.str("test.list").u32(9).u32(5).u64(2).u32(7).u32(0xfffffff9);
  f.str("w").u32(2).u64(32).u64(2).u32(2).u64(0);
  f.str("b").u32(1).u64(3).u32(0).u64(64);
  f.padTo(32);
  f.raw(seq(36, 1)).padTo(32);
  f.raw(seq(12, 100)).padTo(32);
  return f.b;
}

TEST(GgufGolden, ReadsAHandWrittenFile) {
  std::vector<uint8_t> file = goldenFile();
  EXPECT_EQ(file[0], 'G');
  EXPECT_EQ(file[3], 'F');
  StatusOr<GgufFile> f = read(file);
  ASSERT_TRUE(f.isOk()) << f.status().message();
  EXPECT_EQ(f->version, 3u);
  EXPECT_EQ(f->alignment, 32u);
  ASSERT_EQ(f->metadata.size(), 2u);
  EXPECT_EQ(f->metadata[0].key, "general.architecture");
  EXPECT_EQ(f->metadata[0].value, GgufValue::string("llama"));
  EXPECT_EQ(f->metadata[1].value.type, GgufType::Array);
  EXPECT_EQ(f->metadata[1].value.elementType, GgufType::Int32);
  EXPECT_EQ(f->metadata[1].value.scalars,
            (std::vector<uint64_t>{7, 0xfffffff9}));
  ASSERT_EQ(f->tensors.size(), 2u);
  const TensorInfo &w = f->tensors[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_TRUE(w.isOpaque());
  EXPECT_EQ(*w.ggmlBlockType, 2u);
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 32})) << "outermost first";
  EXPECT_EQ(w.length, 36u);
  const TensorInfo &b = f->tensors[1];
  EXPECT_EQ(toString(b.elementType), "f32");
  EXPECT_EQ(b.shape, std::vector<int64_t>{3});
  EXPECT_EQ(b.offset, f->dataStart + 64);
  EXPECT_EQ(file[w.offset], 1);
  EXPECT_EQ(file[b.offset], 100);
}

TEST(GgufGolden, WritesExactBytes) {
  ScratchDir dir;
  std::vector<uint8_t> half = {0x00, 0x3c, 0x00, 0xc0};
  std::vector<uint8_t> q8 = seq(34, 7); // one Q8_0 block
  TensorSource a, q;
  a.info.name = "a";
  a.info.elementType = *parseElementType("f16");
  a.info.shape = {2};
  a.info.length = 4;
  a.data = half.data();
  q.info.name = "q";
  q.info.ggmlBlockType = 8;
  q.info.shape = {1, 32};
  q.info.length = 34;
  q.data = q8.data();
  GgufMetadata meta = {{"general.name", GgufValue::string("x")}};
  Status s = writeGguf(dir.path("g.gguf"), {a, q}, meta);
  ASSERT_TRUE(s.isOk()) << s.message();
  Bytes f;
  // No general.quantization_version: the writer adds no key it was not
  // given, block tensors or not.
  f.u32(0x46554747).u32(3).u64(2).u64(1);
  f.str("general.name").u32(8).str("x");
  f.str("a").u32(1).u64(2).u32(1).u64(0);
  f.str("q").u32(2).u64(32).u64(1).u32(8).u64(32);
  f.padTo(32);
  f.raw(half).padTo(32);
  f.raw(q8).padTo(32);
  EXPECT_EQ(readFile(dir.path("g.gguf")), f.b);
  EXPECT_EQ(dir.files().size(), 1u);
}

GgufMetadata everyValueType() {
  GgufMetadata meta;
  auto scalar = [&](const char *key, GgufType t, uint64_t v) {
    GgufValue value;
    value.type = t;
    value.scalars = {v};
    meta.push_back({key, value});
  };
  scalar("v.u8", GgufType::UInt8, 0xfe);
  scalar("v.i8", GgufType::Int8, 0x80);
  scalar("v.u16", GgufType::UInt16, 0xbeef);
  scalar("v.i16", GgufType::Int16, 0x8001);
  scalar("v.u32", GgufType::UInt32, 0xdeadbeef);
  scalar("v.i32", GgufType::Int32, 0x80000000);
  scalar("v.f32", GgufType::Float32, 0x3fc00000);
  scalar("v.bool", GgufType::Bool, 1);
  scalar("v.u64", GgufType::UInt64, 0xfedcba9876543210);
  scalar("v.i64", GgufType::Int64, 0x8000000000000000);
  scalar("v.f64", GgufType::Float64, 0x3ff8000000000000);
  meta.push_back({"v.string", GgufValue::string("h\xc3\xa9llo")});
  GgufValue strings;
  strings.type = GgufType::Array;
  strings.elementType = GgufType::String;
  strings.strings = {"a", "", "ccc"};
  meta.push_back({"v.strings", strings});
  GgufValue floats;
  floats.type = GgufType::Array;
  floats.elementType = GgufType::Float32;
  floats.scalars = {0x3f800000, 0x7fc00000};
  meta.push_back({"v.floats", floats});
  GgufValue empty;
  empty.type = GgufType::Array;
  empty.elementType = GgufType::UInt64;
  meta.push_back({"v.empty", empty});
  meta.push_back({"general.alignment", GgufValue::uint32(64)});
  return meta;
}

/// One tensor of every ggml block type, with random blocks.
std::vector<OwnedTensor> blockTensors(std::mt19937_64 &rng) {
  std::vector<OwnedTensor> out;
  for (const GgmlTypeTraits &t : ggmlTypes()) {
    if (t.blockSize == 1)
      continue;
    OwnedTensor o;
    o.source.info.name = std::string("blk.") + t.name;
    o.source.info.ggmlBlockType = t.type;
    o.source.info.shape = {int64_t(1 + rng() % 3), int64_t(t.blockSize * 2)};
    o.source.info.length = uint64_t(o.source.info.shape[0]) * 2 * t.typeSize;
    o.bytes = std::make_shared<std::vector<uint8_t>>(o.source.info.length);
    for (uint8_t &b : *o.bytes)
      b = uint8_t(rng());
    o.source.data = o.bytes->data();
    out.push_back(o);
  }
  return out;
}

void expectSameTensors(const std::vector<OwnedTensor> &in, const GgufFile &out,
                       const std::vector<uint8_t> &file) {
  ASSERT_EQ(out.tensors.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const TensorInfo &want = in[i].source.info;
    const TensorInfo &got = out.tensors[i];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.shape, want.shape);
    EXPECT_EQ(got.offset % out.alignment, 0u);
    ASSERT_EQ(got.isOpaque(), want.isOpaque());
    if (want.isOpaque()) {
      EXPECT_EQ(*got.ggmlBlockType, *want.ggmlBlockType);
      EXPECT_EQ(
          std::vector<uint8_t>(file.begin() + long(got.offset),
                               file.begin() + long(got.offset + got.length)),
          *in[i].bytes);
    } else {
      EXPECT_EQ(toString(got.elementType), toString(want.elementType));
      EXPECT_EQ(toByteEncoding(got, file.data()), *in[i].bytes);
    }
  }
}

TEST(GgufRoundTrip, EverySampleTypeEveryBlockTypeEveryValueType) {
  ScratchDir dir;
  std::mt19937_64 rng(7);
  std::vector<OwnedTensor> tensors = sampleTensors();
  for (OwnedTensor &t : blockTensors(rng))
    tensors.push_back(t);
  // A rank-0 and a rank-5 tensor (the latter stored as bytes).
  tensors.push_back(patternTensor("scalar", *parseElementType("f32"), {}, 1));
  tensors.push_back(
      patternTensor("rank5", *parseElementType("i16"), {1, 2, 1, 2, 3}, 2));
  GgufMetadata meta = everyValueType();
  ASSERT_TRUE(writeGguf(dir.path("s.gguf"), sources(tensors), meta).isOk());
  std::vector<uint8_t> file = readFile(dir.path("s.gguf"));
  StatusOr<GgufFile> f = read(file);
  ASSERT_TRUE(f.isOk()) << f.status().message();
  EXPECT_EQ(f->alignment, 64u);
  expectSameTensors(tensors, *f, file);
  // The caller's pairs come back in order, and nothing else: the writer
  // adds no general.quantization_version for the block tensors.
  ASSERT_EQ(f->metadata.size(), meta.size());
  for (size_t i = 0; i < meta.size(); ++i)
    EXPECT_EQ(f->metadata[i], meta[i]) << meta[i].key;
  EXPECT_EQ(file.size() % 64, 0u);
}

TEST(GgufRoundTrip, RandomTensorsProperty) {
  ScratchDir dir;
  std::mt19937_64 rng(99);
  std::vector<std::string> types = sampleTypeNames();
  for (int iteration = 0; iteration < 40; ++iteration) {
    std::vector<OwnedTensor> tensors;
    size_t count = 1 + rng() % 6;
    for (size_t i = 0; i < count; ++i) {
      ElementType type = *parseElementType(types[rng() % types.size()]);
      std::vector<int64_t> shape(rng() % 6);
      for (int64_t &d : shape)
        d = int64_t(rng() % 5);
      tensors.push_back(
          randomTensor("r" + std::to_string(i), type, shape, rng));
    }
    GgufMetadata meta;
    if (rng() % 2)
      meta.push_back(
          {"general.alignment", GgufValue::uint32(8u << (rng() % 5))});
    std::string path = dir.path("r.gguf");
    Status s = writeGguf(path, sources(tensors), meta);
    ASSERT_TRUE(s.isOk()) << s.message();
    std::vector<uint8_t> file = readFile(path);
    StatusOr<GgufFile> f = read(file);
    ASSERT_TRUE(f.isOk()) << f.status().message();
    expectSameTensors(tensors, *f, file);
  }
}

TEST(GgufWriter, RejectsWhatItCannotWrite) {
  ScratchDir dir;
  std::vector<uint8_t> bytes(64);
  TensorSource a;
  a.info.name = "a";
  a.info.elementType = *parseElementType("f32");
  a.info.shape = {1};
  a.info.length = 4;
  a.data = bytes.data();
  auto message = [&](const std::vector<TensorSource> &t,
                     const GgufMetadata &m) {
    return writeGguf(dir.path("x.gguf"), t, m).message();
  };
  EXPECT_NE(message({a, a}, {}).find("two tensors"), std::string::npos);
  TensorSource longName = a;
  longName.info.name = std::string(64, 'n');
  EXPECT_NE(message({longName}, {}).find("GGML_MAX_NAME"), std::string::npos);
  for (uint32_t removed : {4u, 5u}) {
    TensorSource q = a;
    q.info.ggmlBlockType = removed;
    q.info.shape = {32};
    EXPECT_NE(message({q}, {}).find("removed from ggml"), std::string::npos);
  }
  TensorSource q = a;
  q.info.ggmlBlockType = 2;
  q.info.shape = {16};
  EXPECT_NE(message({q}, {}).find("not a whole number of Q4_0 blocks"),
            std::string::npos);
  EXPECT_NE(message({a}, {{"general.alignment", GgufValue::uint32(12)}})
                .find("power of two"),
            std::string::npos);
  EXPECT_NE(
      message({a}, {{"k", GgufValue::uint32(1)}, {"k", GgufValue::uint32(1)}})
          .find("appears twice"),
      std::string::npos);
  EXPECT_NE(message({a}, {{"vmpack.type.a", GgufValue::string("x")}})
                .find("reserved"),
            std::string::npos);
  GgufValue bad;
  bad.type = GgufType::UInt8;
  bad.scalars = {256};
  EXPECT_NE(message({a}, {{"k", bad}}).find("does not fit"), std::string::npos);
  EXPECT_TRUE(dir.files().empty());
}

std::vector<uint8_t> header(uint64_t tensors, uint64_t kvs) {
  Bytes f;
  f.u32(0x46554747).u32(3).u64(tensors).u64(kvs);
  return f.b;
}

struct BadFile {
  std::vector<uint8_t> bytes;
  const char *message;
};

TEST(GgufHostile, RejectsBadFilesWithLocatedMessages) {
  auto tensorFile = [](uint32_t type, std::vector<uint64_t> dims,
                       uint64_t offset, size_t dataBytes) {
    Bytes f;
    f.b = header(1, 0);
    f.str("t").u32(uint32_t(dims.size()));
    for (uint64_t d : dims)
      f.u64(d);
    f.u32(type).u64(offset).padTo(32);
    f.b.resize(f.b.size() + dataBytes);
    return f.b;
  };
  Bytes twoTensors;
  twoTensors.b = header(2, 0);
  twoTensors.str("a").u32(1).u64(16).u32(0).u64(0);
  twoTensors.str("b").u32(1).u64(16).u32(0).u64(32).padTo(32);
  twoTensors.b.resize(twoTensors.b.size() + 128);
  Bytes dupKey;
  dupKey.b = header(0, 2);
  dupKey.str("k").u32(4).u32(1).str("k").u32(4).u32(1);
  Bytes nested;
  nested.b = header(0, 1);
  nested.str("k").u32(9).u32(9).u64(1);
  Bytes hugeArray;
  hugeArray.b = header(0, 1);
  hugeArray.str("k").u32(9).u32(8).u64(1000000);
  Bytes badBool;
  badBool.b = header(0, 1);
  badBool.str("k").u32(7).u8(2);
  Bytes badAlign;
  badAlign.b = header(0, 1);
  badAlign.str("general.alignment").u32(4).u32(48);
  Bytes alignType;
  alignType.b = header(0, 1);
  alignType.str("general.alignment").u32(10).u64(32);
  Bytes badType;
  badType.b = header(0, 1);
  badType.str("k").u32(13).u32(0);
  Bytes longString;
  longString.b = header(0, 1);
  longString.str("k").u32(8).u64(uint64_t(1) << 62);
  Bytes stray;
  stray.b = header(0, 1);
  stray.str("vmpack.type.none").u32(8).str("tensor<2xi4>");
  Bytes bigEndian;
  bigEndian.u32(0x46554747).u32(0x03000000);

  std::vector<BadFile> cases = {
      {{}, "ends inside the magic"},
      {{'G', 'G', 'U', 'X', 3, 0, 0, 0}, "does not start with 'GGUF'"},
      {bigEndian.b, "big-endian"},
      {Bytes().u32(0x46554747).u32(1).b, "version 1"},
      {header(0, uint64_t(1) << 40), "exceed the limit"},
      {header(1000, 0), "cannot fit"},
      {dupKey.b, "'k' appears twice"},
      {nested.b, "arrays of arrays"},
      {hugeArray.b, "runs past the end"},
      {badBool.b, "not 0 or 1"},
      {badAlign.b, "not a power of two"},
      {alignType.b, "not a uint32"},
      {badType.b, "value type 13"},
      {longString.b, "runs past the end"},
      {stray.b, "names no tensor"},
      {tensorFile(4, {32}, 0, 32), "Q4_2) was removed from ggml"},
      {tensorFile(5, {32}, 0, 32), "Q4_3) was removed from ggml"},
      {tensorFile(31, {32}, 0, 32), "not a type GGUF files hold"},
      {tensorFile(2, {16}, 0, 32), "not a whole number of Q4_0 blocks"},
      {tensorFile(0, {1, 1, 1, 1, 1}, 0, 32), "5 dimensions"},
      {tensorFile(0, {uint64_t(1) << 63}, 0, 32), "too large"},
      {tensorFile(0, {uint64_t(1) << 40, uint64_t(1) << 40}, 0, 32),
       "overflows"},
      {tensorFile(0, {8}, 4, 64), "not a multiple of the alignment"},
      {tensorFile(0, {8}, 0, 16), "runs past the end"},
      {tensorFile(0, {8}, uint64_t(-32), 64), "runs past the end"},
      {twoTensors.b, "'b' at data offset 32 overlaps tensor 'a'"},
  };
  Bytes longName;
  longName.b = header(1, 0);
  longName.str(std::string(65, 'n'));
  cases.push_back({longName.b, "limit is 64"});
  // vmpack.type.t records on tensor 't' (ggml type, dims); the value's
  // bytes follow the key.
  auto typedFile = [](const Bytes &value, uint32_t type,
                      std::vector<uint64_t> dims, size_t dataBytes) {
    Bytes f;
    f.b = header(1, 1);
    f.str("vmpack.type.t");
    f.b.insert(f.b.end(), value.b.begin(), value.b.end());
    f.str("t").u32(uint32_t(dims.size()));
    for (uint64_t d : dims)
      f.u64(d);
    f.u32(type).u64(0).padTo(32);
    f.b.resize(f.b.size() + dataBytes);
    return f.b;
  };
  auto text = [](const std::string &s) {
    Bytes v;
    v.u32(8).str(s);
    return v;
  };
  cases.push_back({typedFile(Bytes().u32(4).u32(1), 0, {8}, 32),
                   "key 'vmpack.type.t' is not a string"});
  cases.push_back({typedFile(text("x"), 0, {8}, 32),
                   "key 'vmpack.type.t' holds 'x', not a tensor type"});
  cases.push_back({typedFile(text("tensor<32xi4>"), 2, {32}, 32),
                   "key 'vmpack.type.t' names a tensor of ggml blocks"});
  cases.push_back({typedFile(text("tensor<8xsi8>"), 0, {8}, 32),
                   "says tensor<8xsi8>, which needs ggml type I8 with that "
                   "shape, or a 1-D I8 tensor of 8 bytes"});
  cases.push_back({typedFile(text("tensor<5xi4>"), 24, {2}, 32),
                   "says tensor<5xi4>, which needs a 1-D I8 tensor of 3 "
                   "bytes"});
  for (const BadFile &c : cases) {
    StatusOr<GgufFile> f = read(c.bytes);
    ASSERT_FALSE(f.isOk()) << c.message;
    EXPECT_NE(f.status().message().find(c.message), std::string::npos)
        << "expected: " << c.message << "\nmessage: " << f.status().message();
  }
}

std::vector<uint8_t> sampleFile() {
  ScratchDir dir;
  std::mt19937_64 rng(3);
  std::vector<OwnedTensor> tensors = sampleTensors();
  tensors.resize(8);
  std::vector<OwnedTensor> blocks = blockTensors(rng);
  tensors.insert(tensors.end(), blocks.begin(), blocks.begin() + 3);
  for (OwnedTensor &t : tensors)
    if (t.source.info.isOpaque()) {
      t.source.info.shape = {1, t.source.info.shape[1]};
      t.source.info.length =
          *ggmlTensorBytes(*t.source.info.ggmlBlockType, t.source.info.shape);
    }
  GgufMetadata meta = everyValueType();
  meta.resize(8);
  EXPECT_TRUE(writeGguf(dir.path("s.gguf"), sources(tensors), meta).isOk());
  return readFile(dir.path("s.gguf"));
}

void checkAccepted(const StatusOr<GgufFile> &f, size_t size) {
  if (!f.isOk()) {
    EXPECT_FALSE(f.status().message().empty());
    return;
  }
  for (const TensorInfo &t : f->tensors) {
    EXPECT_LE(t.offset, size);
    EXPECT_LE(t.length, size - t.offset);
    if (!t.isOpaque())
      EXPECT_EQ(storedSize(t.elementType, t.shape, t.encoding), t.length);
  }
}

TEST(GgufHostile, EveryByteFlip) {
  std::vector<uint8_t> file = sampleFile();
  ASSERT_FALSE(file.empty());
  size_t accepted = 0;
  for (size_t i = 0; i < file.size(); ++i)
    for (uint8_t x : {0x01, 0x04, 0x80, 0xff}) {
      std::vector<uint8_t> bad = file;
      bad[i] ^= x;
      StatusOr<GgufFile> f = read(bad);
      checkAccepted(f, bad.size());
      accepted += f.isOk();
    }
  EXPECT_GT(accepted, 0u);
}

TEST(GgufHostile, EveryTruncationOfTheHeader) {
  std::vector<uint8_t> file = sampleFile();
  StatusOr<GgufFile> whole = read(file);
  ASSERT_TRUE(whole.isOk());
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + long(n));
    StatusOr<GgufFile> f = read(cut);
    // Cutting into the header or any tensor's data is an error; only the
    // final padding may go.
    uint64_t lastEnd = 0;
    for (const TensorInfo &t : whole->tensors)
      lastEnd = std::max(lastEnd, t.offset + t.length);
    if (n < lastEnd)
      EXPECT_FALSE(f.isOk()) << "truncated to " << n << " bytes";
    else
      EXPECT_TRUE(f.isOk()) << "truncated to " << n << " bytes";
  }
}

} // namespace
