//===- SentencePiece.h - SentencePiece tokenizer models -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A SentencePiece model file (tokenizer.model: a serialized
// sentencepiece.ModelProto, src/sentencepiece_model.proto of
// google/sentencepiece) read for what a GGUF vocabulary needs: every
// piece with its score and type, the trainer's model type, byte fallback
// and special ids, and the normalizer's settings. Other fields are
// skipped. The reader is hardened (every length checked, every enum
// range-checked) and fuzzed (fuzz/SentencePieceFuzzer.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_SENTENCEPIECE_H
#define VMPACK_FORMATS_SENTENCEPIECE_H

#include "vmpack/Archive/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::formats {

using archive::Status;
using archive::StatusOr;

struct SentencePieceModel {
  /// ModelProto.SentencePiece.Type. The same numbers as llama.cpp's
  /// llama_token_type (LLAMA_TOKEN_TYPE_NORMAL = 1 ... BYTE = 6).
  enum PieceType : int32_t {
    kNormal = 1,
    kUnknown = 2,
    kControl = 3,
    kUserDefined = 4,
    kUnused = 5,
    kByte = 6,
  };
  /// TrainerSpec.ModelType.
  enum ModelType : int32_t { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };

  struct Piece {
    std::string text;
    float score = 0.0f;
    int32_t type = kNormal;
  };
  std::vector<Piece> pieces;

  // TrainerSpec, with the proto's defaults where a field is absent.
  int32_t modelType = kUnigram;
  bool byteFallback = false;
  int32_t unkId = 0, bosId = 1, eosId = 2, padId = -1;

  // NormalizerSpec, with the proto's defaults.
  std::string normalizerName;
  bool hasCharsmap = false;           ///< a non-empty precompiled_charsmap
  bool hasNormalizationRules = false; ///< a non-empty normalization_rule_tsv
  bool addDummyPrefix = true;
  bool removeExtraWhitespaces = true;
  bool escapeWhitespaces = true;
};

/// The name of a TrainerSpec.ModelType ("UNIGRAM", "BPE", ...), or its
/// number.
std::string sentencePieceModelTypeName(int32_t type);

/// Reads a serialized ModelProto. Malformed protobuf, a piece type or model
/// type outside the enum, a model of no pieces and a file of 2 GiB or more
/// are format errors naming what and where (byte offsets).
StatusOr<SentencePieceModel> readSentencePieceModel(const uint8_t *data,
                                                    size_t size);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_SENTENCEPIECE_H
