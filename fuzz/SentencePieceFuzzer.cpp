//===- SentencePieceFuzzer.cpp - Fuzz target: SentencePiece models --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to readSentencePieceModel as a tokenizer.model. A
// refusal is a format error with a message; what it accepts has at least
// one piece, every piece type and the model type inside their enums, and
// piece texts that lie inside the input (each is read whole, so ASan sees
// any stray read).
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/SentencePiece.h"

#include <cstdlib>

using vmpack::fuzz::check;
using namespace vmpack::formats;

static volatile size_t sink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StatusOr<SentencePieceModel> m = readSentencePieceModel(data, size);
  if (!m) {
    check(!m.status().message().empty());
    check(m.status().code() == vmpack::archive::StatusCode::Format);
    return 0;
  }
  check(!m->pieces.empty());
  check(m->modelType >= SentencePieceModel::kUnigram &&
        m->modelType <= SentencePieceModel::kChar);
  size_t total = 0;
  for (const SentencePieceModel::Piece &p : m->pieces) {
    check(p.type >= SentencePieceModel::kNormal &&
          p.type <= SentencePieceModel::kByte);
    check(p.text.size() <= size);
    for (char c : p.text)
      total += uint8_t(c);
  }
  sink = total + m->normalizerName.size();
  return 0;
}
