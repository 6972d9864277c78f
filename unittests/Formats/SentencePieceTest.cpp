//===- SentencePieceTest.cpp - SentencePiece model files ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// readSentencePieceModel on ModelProto bytes written here field by field
// (the wire format of protobuf.dev/programming-guides/encoding, the field
// numbers of sentencepiece_model.proto), with the proto's defaults where a
// field is absent, and on damaged bytes. Models trained by SentencePiece
// itself are converted and run in llama.cpp by
// python/tests/test_llama_cpp.py.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/SentencePiece.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace vmpack::formats;

namespace {

std::string varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(char(b | (v ? 0x80 : 0)));
  } while (v);
  return out;
}
std::string tag(uint32_t field, uint32_t wire) {
  return varint(uint64_t(field) << 3 | wire);
}
std::string lenField(uint32_t field, const std::string &payload) {
  return tag(field, 2) + varint(payload.size()) + payload;
}
std::string varintField(uint32_t field, uint64_t v) {
  return tag(field, 0) + varint(v);
}
std::string floatField(uint32_t field, float f) {
  std::string out = tag(field, 5);
  char b[4];
  std::memcpy(b, &f, 4);
  return out + std::string(b, 4);
}
std::string piece(const std::string &text, float score, int type = 0) {
  std::string p = lenField(1, text) + floatField(2, score);
  if (type)
    p += varintField(3, uint64_t(type));
  return lenField(1, p);
}

StatusOr<SentencePieceModel> read(const std::string &bytes) {
  return readSentencePieceModel(reinterpret_cast<const uint8_t *>(bytes.data()),
                                bytes.size());
}

} // namespace

TEST(SentencePiece, ReadsPiecesTrainerAndNormalizer) {
  std::string trainer =
      varintField(3, 2) + varintField(35, 1) + varintField(40, 0) +
      varintField(41, 1) + varintField(42, 2) +
      varintField(43, uint64_t(int64_t(-1))) + lenField(2, "prefix"); // skipped
  std::string normalizer =
      lenField(1, "identity") + varintField(3, 1) + varintField(4, 0);
  std::string bytes = piece("<unk>", 0, 2) + piece("<s>", 0, 3) +
                      piece("</s>", 0, 3) + piece("<0x41>", 0, 6) +
                      piece("\xe2\x96\x81the", -1.5f) + lenField(2, trainer) +
                      lenField(3, normalizer) +
                      lenField(4, "self-test data, skipped");
  StatusOr<SentencePieceModel> m = read(bytes);
  ASSERT_TRUE(m) << m.status().message();
  ASSERT_EQ(m->pieces.size(), 5u);
  EXPECT_EQ(m->pieces[0].text, "<unk>");
  EXPECT_EQ(m->pieces[0].type, SentencePieceModel::kUnknown);
  EXPECT_EQ(m->pieces[3].type, SentencePieceModel::kByte);
  EXPECT_EQ(m->pieces[4].text, "\xe2\x96\x81the");
  EXPECT_EQ(m->pieces[4].score, -1.5f);
  EXPECT_EQ(m->pieces[4].type, SentencePieceModel::kNormal); // the default
  EXPECT_EQ(m->modelType, SentencePieceModel::kBpe);
  EXPECT_TRUE(m->byteFallback);
  EXPECT_EQ(m->padId, -1);
  EXPECT_EQ(m->normalizerName, "identity");
  EXPECT_TRUE(m->addDummyPrefix);
  EXPECT_FALSE(m->removeExtraWhitespaces);
  EXPECT_TRUE(m->escapeWhitespaces); // the default
  EXPECT_FALSE(m->hasCharsmap);
}

TEST(SentencePiece, AbsentSpecsHaveTheProtoDefaults) {
  StatusOr<SentencePieceModel> m = read(piece("a", 0));
  ASSERT_TRUE(m) << m.status().message();
  EXPECT_EQ(m->modelType, SentencePieceModel::kUnigram);
  EXPECT_FALSE(m->byteFallback);
  EXPECT_EQ(m->unkId, 0);
  EXPECT_EQ(m->bosId, 1);
  EXPECT_EQ(m->eosId, 2);
  EXPECT_EQ(m->padId, -1);
  EXPECT_TRUE(m->removeExtraWhitespaces);
  EXPECT_EQ(sentencePieceModelTypeName(m->modelType), "UNIGRAM");
}

TEST(SentencePiece, DamagedModelsAreFormatErrors) {
  const std::string good = piece("a", 0) + piece("b", -1);
  struct Case {
    std::string bytes;
    const char *message;
  } cases[] = {
      {"", "it has no pieces"},
      {lenField(2, varintField(3, 2)), "it has no pieces"},
      {good.substr(0, good.size() - 2), "runs past the end"},
      {piece("a", 0, 7), "piece 0 (byte 0) has type 7"},
      {piece("a", 0, 0) + lenField(1, floatField(2, 1)),
       "piece 1 (byte 10) has no text"},
      {lenField(1, varintField(1, 5)), "has wire type 0, not the proto's"},
      {lenField(2, varintField(3, 9)), "model_type is 9"},
      {lenField(2, varintField(40, uint64_t(1) << 40)), "is not an int32"},
      {good + tag(9, 3), "a group"},
      {good + std::string("\x80", 1), "malformed field tag"},
  };
  for (const Case &c : cases) {
    StatusOr<SentencePieceModel> m = read(c.bytes);
    ASSERT_FALSE(m) << c.message;
    EXPECT_EQ(m.status().code(), vmpack::archive::StatusCode::Format);
    EXPECT_NE(m.status().message().find(c.message), std::string::npos)
        << m.status().message();
    EXPECT_EQ(m.status().message().rfind("SentencePiece model", 0), 0u)
        << m.status().message();
  }
}
