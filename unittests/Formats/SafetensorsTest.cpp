//===- SafetensorsTest.cpp - safetensors reader and writer ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Golden files are written by hand from the safetensors format description
// (huggingface/safetensors README.md, "Format"; safetensors/src/tensor.rs,
// `Metadata::validate` and the `prepare` writer's 8-byte header padding).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Safetensors.h"

#include "SampleTensors.h"
#include "TestFiles.h"
#include "vmpack/Formats/TypeTable.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using vmpack::archive::testing::AlignedBytes;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

std::vector<uint8_t> makeFile(const std::string &header,
                              const std::vector<uint8_t> &data) {
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i)
    out[size_t(i)] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

StatusOr<SafetensorsFile> read(const std::vector<uint8_t> &bytes) {
  AlignedBytes aligned(bytes);
  return readSafetensors(aligned.data(), aligned.size);
}

std::string readError(const std::string &header, size_t dataSize) {
  StatusOr<SafetensorsFile> f =
      read(makeFile(header, std::vector<uint8_t>(dataSize, 0)));
  EXPECT_FALSE(f.isOk()) << header;
  return f.isOk() ? std::string() : f.status().message();
}

// The example in safetensors/src/tensor.rs's `deserialize` documentation.
TEST(SafetensorsGolden, ReadsTheReferenceExample) {
  std::string header =
      R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
  ASSERT_EQ(header.size(), 0x3cu);
  std::vector<uint8_t> data(16);
  for (int i = 0; i < 16; ++i)
    data[size_t(i)] = uint8_t(i);
  std::vector<uint8_t> file = makeFile(header, data);
  ASSERT_EQ(file[0], 0x3c);
  StatusOr<SafetensorsFile> f = read(file);
  ASSERT_TRUE(f.isOk()) << f.status().message();
  ASSERT_EQ(f->tensors.size(), 1u);
  const TensorInfo &t = f->tensors[0];
  EXPECT_EQ(t.name, "test");
  EXPECT_EQ(toString(t.elementType), "i32");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.offset, 8u + 0x3c);
  EXPECT_EQ(t.length, 16u);
  EXPECT_EQ(t.encoding, Encoding::Byte);
  EXPECT_TRUE(f->metadata.empty());
}

TEST(SafetensorsGolden, ReadsMetadataPaddingAndAnyKeyOrder) {
  // Keys in any order, header padded with spaces (as the reference writer
  // pads to 8 bytes), tensors listed out of data order.
  std::string header =
      R"({"b":{"data_offsets":[2,6],"shape":[],"dtype":"F32"},)"
      R"("__metadata__":{"format":"pt","x":"y"},)"
      R"("a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}}    )";
  StatusOr<SafetensorsFile> f = read(makeFile(header, std::vector<uint8_t>(6)));
  ASSERT_TRUE(f.isOk()) << f.status().message();
  ASSERT_EQ(f->tensors.size(), 2u);
  EXPECT_EQ(f->tensors[0].name, "a");
  EXPECT_EQ(toString(f->tensors[0].elementType), "bf16");
  EXPECT_EQ(f->tensors[1].name, "b");
  EXPECT_TRUE(f->tensors[1].shape.empty());
  EXPECT_EQ(f->tensors[1].offset, 8 + header.size() + 2);
  EXPECT_EQ(f->metadata, (StringMetadata{{"format", "pt"}, {"x", "y"}}));
}

TEST(SafetensorsGolden, KeepsMetadataInFileOrder) {
  // Not sorted: GGUF pairs carried in __metadata__ keep their order.
  std::string header =
      R"({"__metadata__":{"z":"1","vmpack.type.a":"tensor<2xi4>","b":"2",)"
      R"("a":"3"},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  StatusOr<SafetensorsFile> f = read(makeFile(header, std::vector<uint8_t>(1)));
  ASSERT_TRUE(f.isOk()) << f.status().message();
  EXPECT_EQ(f->metadata, (StringMetadata{{"z", "1"}, {"b", "2"}, {"a", "3"}}));
  EXPECT_EQ(toString(f->tensors[0].elementType), "i4");
}

TEST(SafetensorsGolden, ReadsLogicalTypesFromMetadata) {
  // Three i4 values 1, 2, 3 packed low nibble first: 0x21 0x03.
  std::string header =
      R"({"__metadata__":{"vmpack.type.w":"tensor<3xi4>",)"
      R"("vmpack.type.s":"tensor<2xsi8>"},)"
      R"("w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
      R"("s":{"dtype":"I8","shape":[2],"data_offsets":[2,4]}})";
  StatusOr<SafetensorsFile> f =
      read(makeFile(header, {0x21, 0x03, 0xff, 0x01}));
  ASSERT_TRUE(f.isOk()) << f.status().message();
  ASSERT_EQ(f->tensors.size(), 2u);
  EXPECT_EQ(toString(f->tensors[0].elementType), "i4");
  EXPECT_EQ(f->tensors[0].shape, std::vector<int64_t>{3});
  EXPECT_EQ(f->tensors[0].encoding, Encoding::Packed);
  EXPECT_EQ(toString(f->tensors[1].elementType), "si8");
  EXPECT_TRUE(f->metadata.empty());
}

TEST(SafetensorsGolden, WritesExactBytes) {
  ScratchDir dir;
  std::vector<uint8_t> half = {0x00, 0x3c, 0x00, 0xc0}; // f16 1.0, -2.0
  std::vector<uint8_t> nibbles = {1, 2, 3};             // i4, byte encoding
  TensorSource a, w;
  a.info.name = "a";
  a.info.elementType = *parseElementType("f16");
  a.info.shape = {2};
  a.info.length = 4;
  a.data = half.data();
  w.info.name = "w";
  w.info.elementType = *parseElementType("i4");
  w.info.shape = {3};
  w.info.length = 3;
  w.data = nibbles.data();
  Status s =
      writeSafetensors(dir.path("g.safetensors"), {a, w}, {{"format", "pt"}});
  ASSERT_TRUE(s.isOk()) << s.message();
  std::string header =
      R"({"__metadata__":{"format":"pt","vmpack.type.w":"tensor<3xi4>"},)"
      R"("a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},)"
      R"("w":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}})";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::vector<uint8_t> expected =
      makeFile(header, {0x00, 0x3c, 0x00, 0xc0, 0x21, 0x03});
  EXPECT_EQ(readFile(dir.path("g.safetensors")), expected);
  EXPECT_EQ(dir.files().size(), 1u) << "no temporary file left behind";
}

void expectSameTensors(const std::vector<OwnedTensor> &in,
                       const SafetensorsFile &out,
                       const std::vector<uint8_t> &file) {
  ASSERT_EQ(out.tensors.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const TensorInfo &want = in[i].source.info;
    const TensorInfo &got = out.tensors[i];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(toString(got.elementType), toString(want.elementType));
    EXPECT_EQ(got.shape, want.shape);
    EXPECT_EQ(toByteEncoding(got, file.data()), *in[i].bytes);
  }
}

TEST(SafetensorsRoundTrip, EverySampleType) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  StringMetadata meta = {{"format", "pt"}, {"note", "\xc3\xa9t\xc3\xa9 \"q\""}};
  ASSERT_TRUE(
      writeSafetensors(dir.path("s.safetensors"), sources(tensors), meta)
          .isOk());
  std::vector<uint8_t> file = readFile(dir.path("s.safetensors"));
  StatusOr<SafetensorsFile> f = read(file);
  ASSERT_TRUE(f.isOk()) << f.status().message();
  expectSameTensors(tensors, *f, file);
  EXPECT_EQ(f->metadata, meta);
}

TEST(SafetensorsRoundTrip, RandomTensorsProperty) {
  ScratchDir dir;
  std::mt19937_64 rng(12345);
  std::vector<std::string> types = sampleTypeNames();
  for (int iteration = 0; iteration < 40; ++iteration) {
    std::vector<OwnedTensor> tensors;
    size_t count = 1 + rng() % 6;
    for (size_t i = 0; i < count; ++i) {
      ElementType type = *parseElementType(types[rng() % types.size()]);
      std::vector<int64_t> shape(rng() % 4);
      for (int64_t &d : shape)
        d = int64_t(rng() % 9);
      tensors.push_back(
          randomTensor("r" + std::to_string(i), type, shape, rng));
    }
    std::string path = dir.path("r.safetensors");
    Status s = writeSafetensors(path, sources(tensors), {});
    ASSERT_TRUE(s.isOk()) << s.message();
    std::vector<uint8_t> file = readFile(path);
    StatusOr<SafetensorsFile> f = read(file);
    ASSERT_TRUE(f.isOk()) << f.status().message();
    // The reader lists tensors in data order, which is the write order.
    expectSameTensors(tensors, *f, file);
  }
}

TEST(SafetensorsWriter, RejectsWhatItCannotWrite) {
  ScratchDir dir;
  std::vector<uint8_t> bytes(4);
  TensorSource a;
  a.info.name = "a";
  a.info.elementType = *parseElementType("f32");
  a.info.shape = {1};
  a.info.length = 4;
  a.data = bytes.data();
  EXPECT_NE(
      writeSafetensors(dir.path("x"), {a, a}, {}).message().find("two tensors"),
      std::string::npos);
  EXPECT_NE(writeSafetensors(dir.path("x"), {a}, {{"vmpack.type.a", "x"}})
                .message()
                .find("reserved"),
            std::string::npos);
  TensorSource q = a;
  q.info.ggmlBlockType = 2;
  EXPECT_NE(writeSafetensors(dir.path("x"), {q}, {}).message().find("Q4_0"),
            std::string::npos);
  TensorSource bad = a;
  bad.info.length = 3;
  EXPECT_NE(writeSafetensors(dir.path("x"), {bad}, {})
                .message()
                .find("source holds 3"),
            std::string::npos);
  TensorSource meta = a;
  meta.info.name = "__metadata__";
  EXPECT_FALSE(writeSafetensors(dir.path("x"), {meta}, {}).isOk());
  EXPECT_TRUE(dir.files().empty()) << "failed writes leave nothing behind";
  // A file where a directory must be (missing directories are created).
  std::ofstream(dir.path("f")) << "";
  EXPECT_FALSE(writeSafetensors(dir.path("f/x"), {a}, {}).isOk());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"f"});
}

struct BadHeader {
  const char *header;
  size_t dataSize;
  const char *message;
};

TEST(SafetensorsHostile, RejectsBadHeadersWithLocatedMessages) {
  const BadHeader cases[] = {
      {"[]", 0, "does not start with '{'"},
      {"{} []", 0, "not valid JSON"},
      {"{\"a\":", 0, "not valid JSON"},
      {R"({"a":{"dtype":"F32","shape":[[1]],"data_offsets":[0,4]}})", 4,
       "nests deeper"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
       4, "repeats the key 'a'"},
      {R"({"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
       4, "repeats the key 'dtype'"},
      {R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,4]}})", 4,
       "tensor 'a': unknown dtype 'Q4'"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", 4,
       "unexpected field 'x'"},
      {R"({"a":{"dtype":"F32","shape":[1]}})", 4, "needs dtype"},
      {R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4,
       "shape holds -1"},
      {R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", 4,
       "shape holds 1.0"},
      {R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
       4, "overflows"},
      {R"({"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,4]}})",
       4, "overflows"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4,
       "hold 4 bytes, but the shape and dtype need 8"},
      {R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}})", 1,
       "do not fill whole bytes"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4,
       "ends before it begins"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4,
       "not an array [begin, end]"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
       6, "tensor 'b': data [2, 6) overlaps"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8,
       "leaving a hole"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 2,
       "runs past the end"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,0]}})",
       4, "ends before"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 5,
       "unaccounted for"},
      {R"({"__metadata__":{"k":1}})", 0, "is not a string"},
      {R"({"__metadata__":[]})", 0, "not an object"},
      {R"({"__metadata__":{"vmpack.type.z":"tensor<2xi4>"}})", 0,
       "names no tensor"},
      {R"({"__metadata__":{"vmpack.type.a":"tensor<3xq4>"},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
       2, "not a tensor type"},
      {R"({"__metadata__":{"vmpack.type.a":"tensor<5xi4>"},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
       2, "needs a 1-D U8 tensor of 3 bytes"},
      {R"({"__metadata__":{"vmpack.type.a":"tensor<3xsi8>"},"a":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}})",
       2, "needs dtype I8 with that shape, or a 1-D U8 tensor of 3 bytes"},
      {"{\"\xff\":1}", 0, "not valid JSON"},
  };
  for (const BadHeader &c : cases) {
    std::string message = readError(c.header, c.dataSize);
    EXPECT_NE(message.find(c.message), std::string::npos)
        << "header: " << c.header << "\nmessage: " << message;
  }
}

TEST(SafetensorsHostile, RejectsBadLengths) {
  EXPECT_NE(read({1, 2, 3}).status().message().find("8-byte header length"),
            std::string::npos);
  std::vector<uint8_t> huge = makeFile("{}", {});
  huge[5] = 0x10; // N = 2^44 + 2
  EXPECT_NE(read(huge).status().message().find("exceeds the limit"),
            std::string::npos);
  std::vector<uint8_t> past = makeFile("{}", {});
  past[0] = 3;
  EXPECT_NE(read(past).status().message().find("runs past the end"),
            std::string::npos);
  EXPECT_NE(read(makeFile(" {}", {})).status().message().find("start"),
            std::string::npos);
  SafetensorsLimits small;
  small.maxHeaderBytes = 4;
  AlignedBytes bytes(makeFile("{}   ", {}));
  EXPECT_FALSE(readSafetensors(bytes.data(), bytes.size, small).isOk());
}

TEST(SafetensorsHostile, DeepNestingIsRejectedWithoutRecursion) {
  std::string deep =
      "{\"a\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  EXPECT_NE(readError(deep, 0).find("nests deeper"), std::string::npos);
}

std::vector<uint8_t> sampleFile() {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  tensors.resize(12);
  EXPECT_TRUE(writeSafetensors(dir.path("s.safetensors"), sources(tensors),
                               {{"k", "v"}})
                  .isOk());
  return readFile(dir.path("s.safetensors"));
}

/// An accepted file must describe tensors inside it.
void checkAccepted(const StatusOr<SafetensorsFile> &f, size_t size) {
  if (!f.isOk()) {
    EXPECT_FALSE(f.status().message().empty());
    return;
  }
  for (const TensorInfo &t : f->tensors) {
    EXPECT_LE(t.offset, size);
    EXPECT_LE(t.length, size - t.offset);
    EXPECT_EQ(storedSize(t.elementType, t.shape, t.encoding), t.length);
  }
}

TEST(SafetensorsHostile, EveryByteFlip) {
  std::vector<uint8_t> file = sampleFile();
  ASSERT_FALSE(file.empty());
  size_t accepted = 0;
  for (size_t i = 0; i < file.size(); ++i) {
    for (uint8_t x : {0x01, 0x20, 0x80, 0xff}) {
      std::vector<uint8_t> bad = file;
      bad[i] ^= x;
      StatusOr<SafetensorsFile> f = read(bad);
      checkAccepted(f, bad.size());
      accepted += f.isOk();
    }
  }
  // Flips in tensor data (and some in names or padding) are legal files.
  EXPECT_GT(accepted, 0u);
}

TEST(SafetensorsHostile, EveryTruncation) {
  std::vector<uint8_t> file = sampleFile();
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + long(n));
    StatusOr<SafetensorsFile> f = read(cut);
    EXPECT_FALSE(f.isOk()) << "truncated to " << n << " bytes";
  }
}

} // namespace
