//===- LlamaModel.h - The tensors of a llama2-shaped model -------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The weights of a llama2 transformer, layer by layer, named as in Meta's
// reference checkpoints. Shapes default to llama2-7b (dim 4096, hidden
// 11008); smaller dimensions make test-sized models with the same structure.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACKGEN_LLAMAMODEL_H
#define VMPACK_TOOLS_VMPACKGEN_LLAMAMODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::gen {

struct LlamaConfig {
  unsigned layers = 1;
  int64_t dim = 4096;
  int64_t hidden = 11008;
  /// Vocabulary size; 0 leaves out the token embedding and output
  /// projection.
  int64_t vocab = 0;
  /// The output projection is the token embedding, as in models with tied
  /// embeddings: one tensor, read by two globals.
  bool tieEmbeddings = false;
};

enum class TensorKind {
  Int4Weight, ///< a quantized projection matrix
  F16Norm,    ///< an RMSNorm scale vector
};

struct TensorSpec {
  std::string name; ///< e.g. "layers.0.attention.wq"
  std::vector<int64_t> shape;
  TensorKind kind;
  /// Non-empty: this tensor is the one named here (tied weights).
  std::string tiedTo;

  uint64_t numElements() const;
};

/// Every tensor of the model, in a fixed order: per layer wq, wk, wv, wo,
/// w1, w2, w3 (int4), then attention_norm and ffn_norm (f16). A tensor's
/// position in this list keys its weight stream.
std::vector<TensorSpec> llamaTensors(const LlamaConfig &config);

} // namespace vmpack::gen

#endif // VMPACK_TOOLS_VMPACKGEN_LLAMAMODEL_H
