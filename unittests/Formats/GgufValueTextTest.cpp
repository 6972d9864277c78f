//===- GgufValueTextTest.cpp - GGUF values as strings ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Exact text of each kind of value (docs/interop.md, "GGUF values in
// string metadata"), a property test over random bits of every type, and
// hostile text one case at a time.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/GgufValueText.h"

#include <gtest/gtest.h>

#include <random>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

GgufValue scalar(GgufType type, uint64_t bits) {
  GgufValue v;
  v.type = type;
  v.scalars = {bits};
  return v;
}

GgufValue array(GgufType type, std::vector<uint64_t> bits) {
  GgufValue v;
  v.type = GgufType::Array;
  v.elementType = type;
  v.scalars = std::move(bits);
  return v;
}

std::string encode(const GgufValue &v) {
  StatusOr<std::string> text = encodeGgufValue(v);
  EXPECT_TRUE(text) << text.status().message();
  return text ? *text : "";
}

const GgufType kScalarTypes[] = {
    GgufType::UInt8,  GgufType::Int8,  GgufType::UInt16,  GgufType::Int16,
    GgufType::UInt32, GgufType::Int32, GgufType::Float32, GgufType::Bool,
    GgufType::UInt64, GgufType::Int64, GgufType::Float64};

unsigned bytesOf(GgufType t) {
  switch (t) {
  case GgufType::UInt8:
  case GgufType::Int8:
  case GgufType::Bool:
    return 1;
  case GgufType::UInt16:
  case GgufType::Int16:
    return 2;
  case GgufType::UInt32:
  case GgufType::Int32:
  case GgufType::Float32:
    return 4;
  default:
    return 8;
  }
}

TEST(GgufValueText, ExactText) {
  EXPECT_EQ(encode(scalar(GgufType::UInt32, 32)), "uint32:32");
  EXPECT_EQ(encode(scalar(GgufType::Int8, 0xff)), "int8:-1");
  EXPECT_EQ(encode(scalar(GgufType::Int64, uint64_t(1) << 63)),
            "int64:-9223372036854775808");
  EXPECT_EQ(encode(scalar(GgufType::UInt64, ~uint64_t(0))),
            "uint64:18446744073709551615");
  EXPECT_EQ(encode(scalar(GgufType::Bool, 0)), "bool:false");
  EXPECT_EQ(encode(scalar(GgufType::Float32, 0x3f800000)), "float32:1.0");
  EXPECT_EQ(encode(scalar(GgufType::Float32, 0x3dcccccd)), "float32:0.1");
  EXPECT_EQ(encode(scalar(GgufType::Float32, 0x80000000)), "float32:-0.0");
  EXPECT_EQ(encode(scalar(GgufType::Float32, 0x7fc00001)),
            "float32:\"0x7fc00001\"");
  EXPECT_EQ(encode(scalar(GgufType::Float64, 0x3fb999999999999a)),
            "float64:0.1");
  EXPECT_EQ(encode(scalar(GgufType::Float64, 0x7ff0000000000000)),
            "float64:\"0x7ff0000000000000\"");
  EXPECT_EQ(encode(array(GgufType::Int16, {0x8000, 7})),
            "array<int16>:[-32768,7]");
  EXPECT_EQ(encode(array(GgufType::UInt8, {})), "array<uint8>:[]");
  GgufValue strings;
  strings.type = GgufType::Array;
  strings.elementType = GgufType::String;
  strings.strings = {"a\"b", "\xc3\xa9"};
  EXPECT_EQ(encode(strings), "array<string>:[\"a\\\"b\",\"\xc3\xa9\"]");
  // Top-level strings stay plain pairs; invalid UTF-8 has no JSON form.
  EXPECT_FALSE(encodeGgufValue(GgufValue::string("x")));
  strings.strings = {"\xff"};
  EXPECT_FALSE(encodeGgufValue(strings));
}

TEST(GgufValueText, RandomValuesRoundTrip) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 4000; ++round) {
    GgufType type = kScalarTypes[rng() % std::size(kScalarTypes)];
    unsigned bytes = bytesOf(type);
    auto bits = [&] {
      uint64_t v = rng();
      if (type == GgufType::Bool)
        return v & 1;
      return bytes == 8 ? v : v & ((uint64_t(1) << (8 * bytes)) - 1);
    };
    GgufValue v;
    if (rng() % 2) {
      v = scalar(type, bits());
    } else {
      std::vector<uint64_t> elements(rng() % 5);
      for (uint64_t &e : elements)
        e = bits();
      v = array(type, elements);
    }
    std::string text = encode(v);
    StatusOr<GgufValue> back = decodeGgufValue(text);
    ASSERT_TRUE(back) << text << ": " << back.status().message();
    EXPECT_TRUE(*back == v) << text;
  }
}

TEST(GgufValueText, HostileText) {
  const char *bad[] = {
      "",
      "uint32",
      "uint33:1",
      "string:\"x\"",
      "array:[1]",
      "array<array>:[]",
      "array<uint8:[1]",
      "uint8:256",
      "uint8:-1",
      "int8:128",
      "int8:-129",
      "uint32:1.5",
      "uint32:\"1\"",
      "int64:9223372036854775808",
      "bool:1",
      "float32:\"0x7fc0\"",
      "float32:\"7fc00000ab\"",
      "float32:\"0xzzzzzzzz\"",
      "float32:1e39",
      "float64:true",
      "uint32:[1]",
      "array<uint32>:1",
      "array<uint32>:[[1]]",
      "array<uint32>:[{\"a\":1}]",
      "array<string>:[1]",
      "array<uint32>:[1,",
      "uint32:1 2",
      "uint32:{}",
  };
  for (const char *text : bad)
    EXPECT_FALSE(decodeGgufValue(text)) << "accepted: " << text;
  GgufLimits limits;
  limits.maxArrayElements = 3;
  EXPECT_TRUE(decodeGgufValue("array<uint8>:[1,2,3]", limits));
  StatusOr<GgufValue> tooLong =
      decodeGgufValue("array<uint8>:[1,2,3,4]", limits);
  ASSERT_FALSE(tooLong);
  EXPECT_NE(tooLong.status().message().find("longer than 3"),
            std::string::npos);
}

TEST(GgufValueText, MetadataBothWays) {
  GgufMetadata typed = {{"general.name", GgufValue::string("m")},
                        {"general.alignment", scalar(GgufType::UInt32, 64)},
                        {"x", array(GgufType::Bool, {1, 0})}};
  StatusOr<StringMetadata> strings = ggufToStringMetadata(typed);
  ASSERT_TRUE(strings);
  StringMetadata expected = {{"general.name", "m"},
                             {"vmpack.gguf.general.alignment", "uint32:64"},
                             {"vmpack.gguf.x", "array<bool>:[true,false]"}};
  EXPECT_EQ(*strings, expected);
  StatusOr<GgufMetadata> back = stringMetadataToGguf(*strings);
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == typed);

  StatusOr<GgufMetadata> clash =
      stringMetadataToGguf({{"k", "v"}, {"vmpack.gguf.k", "uint8:1"}});
  ASSERT_FALSE(clash);
  EXPECT_NE(clash.status().message().find("'k'"), std::string::npos);
  EXPECT_FALSE(stringMetadataToGguf({{"vmpack.gguf.", "uint8:1"}}));
  StatusOr<GgufMetadata> bad =
      stringMetadataToGguf({{"vmpack.gguf.n", "uint8:300"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("vmpack.gguf.n"), std::string::npos);
}

} // namespace
