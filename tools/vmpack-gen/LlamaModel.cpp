//===- LlamaModel.cpp - The tensors of a llama2-shaped model --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "LlamaModel.h"

using namespace vmpack::gen;

uint64_t TensorSpec::numElements() const {
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= static_cast<uint64_t>(d);
  return n;
}

std::vector<TensorSpec> vmpack::gen::llamaTensors(const LlamaConfig &config) {
  const int64_t dim = config.dim, hidden = config.hidden;
  std::vector<TensorSpec> tensors;
  if (config.vocab)
    tensors.push_back(
        {"tok_embeddings", {config.vocab, dim}, TensorKind::Int4Weight, ""});
  for (unsigned layer = 0; layer < config.layers; ++layer) {
    std::string prefix = "layers." + std::to_string(layer) + ".";
    auto weight = [&](const char *name, int64_t rows, int64_t cols) {
      tensors.push_back(
          {prefix + name, {rows, cols}, TensorKind::Int4Weight, ""});
    };
    weight("attention.wq", dim, dim);
    weight("attention.wk", dim, dim);
    weight("attention.wv", dim, dim);
    weight("attention.wo", dim, dim);
    weight("feed_forward.w1", hidden, dim);
    weight("feed_forward.w2", dim, hidden);
    weight("feed_forward.w3", hidden, dim);
    tensors.push_back(
        {prefix + "attention_norm", {dim}, TensorKind::F16Norm, ""});
    tensors.push_back({prefix + "ffn_norm", {dim}, TensorKind::F16Norm, ""});
  }
  if (config.vocab)
    tensors.push_back({"output",
                       {config.vocab, dim},
                       TensorKind::Int4Weight,
                       config.tieEmbeddings ? "tok_embeddings" : ""});
  return tensors;
}
