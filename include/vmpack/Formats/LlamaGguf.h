//===- LlamaGguf.h - Hugging Face models as llama.cpp GGUF ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A Hugging Face model folder (config.json, model.safetensors or a sharded
// set with its index, tokenizer.json, tokenizer_config.json) of a
// LlamaForCausalLM, MistralForCausalLM or Qwen2ForCausalLM described as the
// GGUF file llama.cpp runs: its architecture ("llama", "qwen2"), the
// hyperparameters under the keys llama.cpp reads, the tensors under
// llama.cpp's names (with the Q/K row permutation its rope needs for llama
// weights) and the tokenizer as tokenizer.ggml.* keys. Nothing is read into
// memory but the JSON files: the tensors stay in the mapped inputs, and a
// tensor that changes (permuted rows, norms widened to f32) is produced
// chunk by chunk while the writer asks for it. docs/llama.md specifies every
// key and tensor.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_LLAMAGGUF_H
#define VMPACK_FORMATS_LLAMAGGUF_H

#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Quant/Dequantize.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vmpack::formats {

struct LlamaGgufOptions {
  /// tokenizer.ggml.pre; default: from tokenizer.json's pre-tokenizer
  /// (docs/llama.md, "Pre-tokenizer").
  std::optional<std::string> tokenizerPre;
  /// Write tokenizer.ggml.model = "none" and no vocabulary.
  bool noVocab = false;
  /// general.name; default: the folder's name.
  std::optional<std::string> name;
  /// Quantized checkpoints (HfQuant.h): the ggml type of every quantized
  /// linear (default: hfGgmlTarget's choice, Q4_0 for symmetric 4-bit
  /// codes), exact or refused; or, with `dequantize`, floats.
  std::optional<uint32_t> ggmlType;
  /// With ggmlType: a linear that is not exact in it is requantized from its
  /// values by ggml's reference quantizer (GgmlConvert.h) instead of
  /// refused; a warning gives the largest errors.
  bool allowRounding = false;
  std::optional<quant::FloatType> dequantize;
  /// The threads that decode `dequantize`'s floats (hfLinearAsFloats).
  unsigned threads = 1;
};

struct HfQuantModel;

/// What the GGUF writer needs, and the mapped inputs it reads from.
struct LlamaGgufPlan {
  std::string architecture;
  GgufMetadata metadata;
  std::vector<TensorSource> tensors;
  std::vector<std::unique_ptr<WeightFile>> files;
  /// A quantized checkpoint's reader, which the tensors read from.
  std::shared_ptr<HfQuantModel> quantModel;
  /// What the reader noticed (a zero-point format found from the data).
  std::vector<std::string> warnings;
};

/// Whether `path` is a folder whose config.json names LlamaForCausalLM,
/// MistralForCausalLM or Qwen2ForCausalLM.
bool isLlamaFamilyFolder(const std::string &path);

/// Whether `path` is a folder with a config.json that has no
/// quantization_config, and no quantize_config.json or quant_config.json
/// (those are HfQuant.h's).
bool isDenseHfModelFolder(const std::string &path);

/// Reads the folder and checks it against llama.cpp's model: an
/// unsupported architecture, a missing hyperparameter, a tensor missing,
/// unexpected or of the wrong shape or type, or a tokenizer llama.cpp
/// cannot represent are errors naming the file and what is wrong.
StatusOr<LlamaGgufPlan> planLlamaGguf(const std::string &folder,
                                      const LlamaGgufOptions &options);

/// The row order llama.cpp's rope (interleaved pairs) needs for a Hugging
/// Face q_proj or k_proj weight or bias (rotate-half halves): row `row` of
/// the written tensor is row llamaRopeSourceRow(row, headDim) of the
/// checkpoint's, heads being `headDim` consecutive rows. Within a head,
/// written row 2i + j is checkpoint row j * headDim / 2 + i.
uint64_t llamaRopeSourceRow(uint64_t row, uint64_t headDim);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_LLAMAGGUF_H
