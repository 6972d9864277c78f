//===- SentencePiece.cpp - SentencePiece tokenizer models -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Field numbers and defaults are those of src/sentencepiece_model.proto
// (google/sentencepiece): ModelProto { pieces = 1, trainer_spec = 2,
// normalizer_spec = 3 }, SentencePiece { piece = 1, score = 2 (float),
// type = 3 }, TrainerSpec { model_type = 3, byte_fallback = 35, unk_id =
// 40, bos_id = 41, eos_id = 42, pad_id = 43 }, NormalizerSpec { name = 1,
// precompiled_charsmap = 2, add_dummy_prefix = 3, remove_extra_whitespaces
// = 4, escape_whitespaces = 5, normalization_rule_tsv = 6 }.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/SentencePiece.h"

#include "ProtobufFields.h"

#include <cstring>
#include <limits>

using namespace vmpack::formats;
using namespace vmpack::formats::protobuf;
using namespace vmpack::formats::protobuf::wire;

namespace {

namespace model {
constexpr uint32_t kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3;
}
namespace piece {
constexpr uint32_t kPiece = 1, kScore = 2, kType = 3;
}
namespace trainer {
constexpr uint32_t kModelType = 3, kByteFallback = 35, kUnkId = 40, kBosId = 41,
                   kEosId = 42, kPadId = 43;
}
namespace normalizer {
constexpr uint32_t kName = 1, kCharsmap = 2, kAddDummyPrefix = 3,
                   kRemoveExtraWhitespaces = 4, kEscapeWhitespaces = 5,
                   kRuleTsv = 6;
}

Status wrongWire(const char *message, const Field &f) {
  return Status::formatError(std::string(message) + " field " +
                             std::to_string(f.number) + " at byte " +
                             std::to_string(f.fieldBegin) + " has wire type " +
                             std::to_string(f.wireType) + ", not the proto's");
}

/// An int32 of the proto: a varint whose 64 bits sign-extend an int32.
bool asInt32(uint64_t v, int32_t &out) {
  int64_t s = int64_t(v);
  if (s < std::numeric_limits<int32_t>::min() ||
      s > std::numeric_limits<int32_t>::max())
    return false;
  out = int32_t(s);
  return true;
}

Status readPiece(const uint8_t *base, const Field &at, size_t index,
                 SentencePieceModel::Piece &p) {
  bool sawPiece = false;
  std::string where = "piece " + std::to_string(index) + " (byte " +
                      std::to_string(at.fieldBegin) + ")";
  Status read = forEachField(
      base, at.offset, at.offset + at.length,
      "SentencePiece model: " + where + ": ", [&](const Field &f) -> Status {
        if (f.number == piece::kPiece) {
          if (f.wireType != kLen)
            return wrongWire("SentencePiece model: piece", f);
          p.text = std::string(bytesOf(base, f));
          sawPiece = true;
        } else if (f.number == piece::kScore) {
          if (f.wireType != kFixed32)
            return wrongWire("SentencePiece model: piece", f);
          uint32_t bits = uint32_t(f.value);
          std::memcpy(&p.score, &bits, 4);
        } else if (f.number == piece::kType) {
          int32_t t = 0;
          if (f.wireType != kVarint)
            return wrongWire("SentencePiece model: piece", f);
          if (!asInt32(f.value, t) || t < SentencePieceModel::kNormal ||
              t > SentencePieceModel::kByte)
            return Status::formatError("SentencePiece model: " + where +
                                       " has type " +
                                       std::to_string(int64_t(f.value)) +
                                       ", not one of the proto's (1 ... 6)");
          p.type = t;
        }
        return Status::ok();
      });
  if (!read)
    return read;
  if (!sawPiece)
    return Status::formatError("SentencePiece model: " + where +
                               " has no text (field 1)");
  return Status::ok();
}

Status readTrainer(const uint8_t *base, const Field &at,
                   SentencePieceModel &m) {
  return forEachField(
      base, at.offset, at.offset + at.length,
      "SentencePiece model: trainer_spec: ", [&](const Field &f) -> Status {
        int32_t *id = f.number == trainer::kUnkId   ? &m.unkId
                      : f.number == trainer::kBosId ? &m.bosId
                      : f.number == trainer::kEosId ? &m.eosId
                      : f.number == trainer::kPadId ? &m.padId
                                                    : nullptr;
        if (!id && f.number != trainer::kModelType &&
            f.number != trainer::kByteFallback)
          return Status::ok();
        if (f.wireType != kVarint)
          return wrongWire("SentencePiece model: trainer_spec", f);
        if (f.number == trainer::kByteFallback) {
          m.byteFallback = f.value != 0;
          return Status::ok();
        }
        int32_t v = 0;
        if (!asInt32(f.value, v))
          return Status::formatError(
              "SentencePiece model: trainer_spec field " +
              std::to_string(f.number) + " at byte " +
              std::to_string(f.fieldBegin) + " is not an int32");
        if (id) {
          *id = v;
          return Status::ok();
        }
        if (v < SentencePieceModel::kUnigram || v > SentencePieceModel::kChar)
          return Status::formatError(
              "SentencePiece model: trainer_spec.model_type is " +
              std::to_string(v) + ", not one of the proto's (1 ... 4)");
        m.modelType = v;
        return Status::ok();
      });
}

Status readNormalizer(const uint8_t *base, const Field &at,
                      SentencePieceModel &m) {
  return forEachField(
      base, at.offset, at.offset + at.length,
      "SentencePiece model: normalizer_spec: ", [&](const Field &f) -> Status {
        switch (f.number) {
        case normalizer::kName:
        case normalizer::kCharsmap:
        case normalizer::kRuleTsv:
          if (f.wireType != kLen)
            return wrongWire("SentencePiece model: normalizer_spec", f);
          if (f.number == normalizer::kName)
            m.normalizerName = std::string(bytesOf(base, f));
          else if (f.number == normalizer::kCharsmap)
            m.hasCharsmap = f.length != 0;
          else
            m.hasNormalizationRules = f.length != 0;
          break;
        case normalizer::kAddDummyPrefix:
        case normalizer::kRemoveExtraWhitespaces:
        case normalizer::kEscapeWhitespaces:
          if (f.wireType != kVarint)
            return wrongWire("SentencePiece model: normalizer_spec", f);
          (f.number == normalizer::kAddDummyPrefix ? m.addDummyPrefix
           : f.number == normalizer::kRemoveExtraWhitespaces
               ? m.removeExtraWhitespaces
               : m.escapeWhitespaces) = f.value != 0;
          break;
        default:
          break;
        }
        return Status::ok();
      });
}

} // namespace

std::string vmpack::formats::sentencePieceModelTypeName(int32_t type) {
  switch (type) {
  case SentencePieceModel::kUnigram:
    return "UNIGRAM";
  case SentencePieceModel::kBpe:
    return "BPE";
  case SentencePieceModel::kWord:
    return "WORD";
  case SentencePieceModel::kChar:
    return "CHAR";
  default:
    return std::to_string(type);
  }
}

StatusOr<SentencePieceModel>
vmpack::formats::readSentencePieceModel(const uint8_t *data, size_t size) {
  if (size >= (uint64_t(1) << 31))
    return Status::formatError("SentencePiece model: " + std::to_string(size) +
                               " bytes; a protobuf message is under 2 GiB");
  SentencePieceModel m;
  Status read = forEachField(
      data, 0, size, "SentencePiece model: ", [&](const Field &f) -> Status {
        if (f.number != model::kPieces && f.number != model::kTrainerSpec &&
            f.number != model::kNormalizerSpec)
          return Status::ok();
        if (f.wireType != kLen)
          return wrongWire("SentencePiece model:", f);
        if (f.number == model::kTrainerSpec)
          return readTrainer(data, f, m);
        if (f.number == model::kNormalizerSpec)
          return readNormalizer(data, f, m);
        m.pieces.emplace_back();
        return readPiece(data, f, m.pieces.size() - 1, m.pieces.back());
      });
  if (!read)
    return read;
  if (m.pieces.empty())
    return Status::formatError("SentencePiece model: it has no pieces (a "
                               "ModelProto lists its vocabulary in field 1)");
  return m;
}
