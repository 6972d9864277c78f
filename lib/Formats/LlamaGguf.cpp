//===- LlamaGguf.cpp - Hugging Face models as llama.cpp GGUF ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The keys, tensor names and vocabulary layout are llama.cpp's: the
// metadata keys of gguf-py/gguf/constants.py (Keys.LLM, Keys.Attention,
// Keys.Rope, Keys.Tokenizer), the tensor names of its MODEL_TENSORS for
// LLAMA and QWEN2, the hyperparameters src/llama-model.cpp's load_hparams
// reads, and the vocabulary src/llama-vocab.cpp's load reads ("gpt2": token
// strings, int32 token types, "A B" merges). docs/llama.md is the
// specification of what is written.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/LlamaGguf.h"

#include "BoundedJson.h"
#include "vmpack/Formats/DequantizeTensor.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Formats/SentencePiece.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>

using namespace vmpack;
using namespace vmpack::formats;
using json = nlohmann::json;

namespace {

/// JSON files bigger than this are refused (a tokenizer.json of a 256k
/// vocabulary is about 20 MB).
constexpr uint64_t kMaxJsonBytes = 1ull << 30;
constexpr unsigned kMaxJsonDepth = 64;

// llama.cpp's llama_ftype (include/llama.h) for general.file_type.
/// The llama_ftype (include/llama.h) of a model whose matrices are mostly
/// of ggml type `t`.
std::optional<uint32_t> llamaFileType(uint32_t t) {
  using namespace quant;
  switch (t) {
  case kGgmlF32:
    return 0; // LLAMA_FTYPE_ALL_F32
  case kGgmlF16:
    return 1; // LLAMA_FTYPE_MOSTLY_F16
  case kGgmlQ4_0:
    return 2;
  case kGgmlQ4_1:
    return 3;
  case kGgmlQ8_0:
    return 7;
  case kGgmlQ5_0:
    return 8;
  case kGgmlQ5_1:
    return 9;
  case kGgmlBF16:
    return 32;
  default:
    return std::nullopt;
  }
}

/// The ggml type of a tensor: its block type, else F32/F16/BF16.
uint32_t ggmlTypeOf(const TensorInfo &t) {
  if (t.ggmlBlockType)
    return *t.ggmlBlockType;
  switch (t.elementType.scalar.kind) {
  case ScalarKind::F16:
    return quant::kGgmlF16;
  case ScalarKind::BF16:
    return quant::kGgmlBF16;
  default:
    return quant::kGgmlF32;
  }
}
// llama_token_type (include/llama.h) for tokenizer.ggml.token_type.
// SentencePiece's piece types have the same numbers (SentencePiece.h).
constexpr int32_t kTokenNormal = 1, kTokenUnknown = 2, kTokenControl = 3,
                  kTokenUserDefined = 4, kTokenUnused = 5, kTokenByte = 6;
static_assert(kTokenNormal == SentencePieceModel::kNormal &&
                  kTokenUnknown == SentencePieceModel::kUnknown &&
                  kTokenControl == SentencePieceModel::kControl &&
                  kTokenUserDefined == SentencePieceModel::kUserDefined &&
                  kTokenUnused == SentencePieceModel::kUnused &&
                  kTokenByte == SentencePieceModel::kByte,
              "llama_token_type and SentencePiece's types agree");

bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string joinPath(const std::string &folder, const std::string &name) {
  return !folder.empty() && folder.back() == '/' ? folder + name
                                                 : folder + "/" + name;
}

/// The bytes of the file at `path` (a JSON file or a tokenizer model), at
/// most kMaxJsonBytes of them.
StatusOr<std::string> readSmallFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::ioError("'" + path + "': cannot open it");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0 || uint64_t(size) > kMaxJsonBytes)
    return Status::formatError("'" + path + "' is larger than 1 GiB");
  in.seekg(0);
  std::string text(size_t(size), '\0');
  if (!in.read(text.data(), size))
    return Status::ioError("'" + path + "': cannot read it");
  return text;
}

/// The file at `path` parsed as JSON; nullopt when absent and not required.
StatusOr<std::optional<json>> readJson(const std::string &path, bool required) {
  if (!isFile(path)) {
    if (!required)
      return std::optional<json>();
    return Status::invalidArgument("'" + path + "' is missing");
  }
  StatusOr<std::string> bytes = readSmallFile(path);
  if (!bytes)
    return bytes.status();
  const std::string &text = *bytes;
  StatusOr<json> parsed =
      parseBoundedJson(reinterpret_cast<const uint8_t *>(text.data()),
                       text.size(), kMaxJsonDepth, "'" + path + "'");
  if (!parsed)
    return parsed.status();
  return std::optional<json>(std::move(*parsed));
}

GgufValue f32Value(float v) {
  GgufValue value;
  value.type = GgufType::Float32;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  value.scalars = {bits};
  return value;
}
GgufValue boolValue(bool v) {
  GgufValue value;
  value.type = GgufType::Bool;
  value.scalars = {v ? 1u : 0u};
  return value;
}
GgufValue stringArray(std::vector<std::string> v) {
  GgufValue value;
  value.type = GgufType::Array;
  value.elementType = GgufType::String;
  value.strings = std::move(v);
  return value;
}
GgufValue f32Array(const std::vector<float> &v) {
  GgufValue value;
  value.type = GgufType::Array;
  value.elementType = GgufType::Float32;
  value.scalars.reserve(v.size());
  for (float x : v) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    value.scalars.push_back(bits);
  }
  return value;
}
GgufValue int32Array(const std::vector<int32_t> &v) {
  GgufValue value;
  value.type = GgufType::Array;
  value.elementType = GgufType::Int32;
  value.scalars.reserve(v.size());
  for (int32_t x : v)
    value.scalars.push_back(uint32_t(x));
  return value;
}

/// config.json, read with messages that name the key and the GGUF key it
/// becomes.
class Config {
public:
  Config(const json &j, std::string path) : j(j), path(std::move(path)) {}

  const json *find(const std::string &key) const {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  StatusOr<std::optional<uint64_t>> optionalUInt(const std::string &key,
                                                 uint64_t max) const {
    const json *v = find(key);
    if (!v)
      return std::optional<uint64_t>();
    if (!v->is_number_unsigned() || v->get<uint64_t>() > max)
      return bad(key, "is " + v->dump() + ", not an integer from 0 to " +
                          std::to_string(max));
    return std::optional<uint64_t>(v->get<uint64_t>());
  }
  StatusOr<uint64_t> positive(const std::string &key,
                              const std::string &gguf) const {
    StatusOr<std::optional<uint64_t>> v = optionalUInt(key, UINT32_MAX);
    if (!v)
      return v.status();
    if (!*v)
      return missing(key, gguf);
    if (**v == 0)
      return bad(key, "is 0");
    return **v;
  }
  StatusOr<std::optional<double>> optionalNumber(const std::string &key) const {
    const json *v = find(key);
    if (!v)
      return std::optional<double>();
    if (!v->is_number() || !std::isfinite(v->get<double>()))
      return bad(key, "is " + v->dump() + ", not a number");
    return std::optional<double>(v->get<double>());
  }
  StatusOr<bool> flag(const std::string &key, bool absent) const {
    const json *v = find(key);
    if (!v)
      return absent;
    if (!v->is_boolean())
      return bad(key, "is " + v->dump() + ", not true or false");
    return v->get<bool>();
  }
  Status bad(const std::string &key, const std::string &what) const {
    return Status::formatError("'" + path + "': '" + key + "' " + what);
  }
  Status missing(const std::string &key, const std::string &gguf) const {
    return Status::formatError("'" + path + "' has no '" + key +
                               "' (llama.cpp's " + gguf +
                               "); add it, as the model's Hugging Face "
                               "configuration class defines it");
  }
  const std::string &file() const { return path; }

private:
  const json &j;
  std::string path;
};

/// The hyperparameters llama.cpp's llama and qwen2 models read.
struct Hparams {
  std::string hfArchitecture, arch;
  uint64_t vocab = 0, context = 0, embd = 0, layers = 0, ff = 0, heads = 0,
           kvHeads = 0, headDim = 0;
  double rmsEps = 0, ropeTheta = 10000;
  bool tied = false, qkvBias = false, outputBias = false, permuteQK = false;
  std::optional<std::string> ropeScalingType;
  double ropeScalingFactor = 1;
  std::optional<uint64_t> ropeOriginalContext;
  /// rope_scaling of type llama3 (Llama 3.1 and later): written as the
  /// rope_freqs tensor.
  struct Llama3Rope {
    double factor, lowFreqFactor, highFreqFactor, originalContext;
  };
  std::optional<Llama3Rope> llama3Rope;
};

/// rope_freqs.weight for llama3 rope scaling: for each rotated pair i of a
/// head, the number llama.cpp divides the pair's frequency
/// theta^(-2i/head_dim) by, as convert_hf_to_gguf.py computes it for
/// LlamaModel (and transformers' _compute_llama3_parameters scales
/// inv_freq): 1 for wavelengths 2*pi/freq below original_context /
/// high_freq_factor, `factor` above original_context / low_freq_factor,
/// and 1 / ((1 - smooth) / factor + smooth) between, with smooth =
/// (original_context / wavelength - low_freq_factor) / (high_freq_factor -
/// low_freq_factor). Computed in double and rounded to float32 once.
std::vector<float> llama3RopeFactors(const Hparams &h) {
  const Hparams::Llama3Rope &r = *h.llama3Rope;
  const double lowWavelength = r.originalContext / r.lowFreqFactor;
  const double highWavelength = r.originalContext / r.highFreqFactor;
  std::vector<float> factors;
  for (uint64_t i = 0; 2 * i < h.headDim; ++i) {
    const double freq =
        1.0 / std::pow(h.ropeTheta, double(2 * i) / double(h.headDim));
    const double wavelength = 2 * M_PI / freq;
    double f;
    if (wavelength < highWavelength) {
      f = 1;
    } else if (wavelength > lowWavelength) {
      f = r.factor;
    } else {
      const double smooth = (r.originalContext / wavelength - r.lowFreqFactor) /
                            (r.highFreqFactor - r.lowFreqFactor);
      f = 1 / ((1 - smooth) / r.factor + smooth);
    }
    factors.push_back(float(f));
  }
  return factors;
}

StatusOr<Hparams> readHparams(const Config &c) {
  Hparams h;
  const json *archs = c.find("architectures");
  if (!archs || !archs->is_array() || archs->size() != 1 ||
      !(*archs)[0].is_string())
    return c.bad("architectures",
                 archs ? "is " + archs->dump() + ", not one name in a list"
                       : "is missing: vmpack needs the model class");
  h.hfArchitecture = (*archs)[0].get<std::string>();
  if (h.hfArchitecture == "LlamaForCausalLM" ||
      h.hfArchitecture == "MistralForCausalLM") {
    // convert_hf_to_gguf.py writes both as llama.cpp's "llama"; HF stores
    // q_proj and k_proj for rotate-half rope, llama.cpp's llama rope pairs
    // neighbours, so their rows are permuted.
    h.arch = "llama";
    h.permuteQK = true;
  } else if (h.hfArchitecture == "Qwen2ForCausalLM") {
    // llama.cpp's qwen2 uses NEOX (rotate-half) rope: rows as stored.
    h.arch = "qwen2";
    h.qkvBias = true;
  } else {
    return Status::unsupported(
        "'" + c.file() + "': architecture '" + h.hfArchitecture +
        "' is not one vmpack converts to a llama.cpp GGUF model "
        "(LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM)");
  }
  const std::string a = h.arch + ".";
  auto need = [&](const char *key, const std::string &gguf,
                  uint64_t &out) -> Status {
    StatusOr<uint64_t> v = c.positive(key, a + gguf);
    if (!v)
      return v.status();
    out = *v;
    return Status::ok();
  };
  for (auto [key, gguf, out] :
       {std::tuple<const char *, const char *, uint64_t *>{
            "vocab_size", "vocab_size", &h.vocab},
        {"max_position_embeddings", "context_length", &h.context},
        {"hidden_size", "embedding_length", &h.embd},
        {"num_hidden_layers", "block_count", &h.layers},
        {"intermediate_size", "feed_forward_length", &h.ff},
        {"num_attention_heads", "attention.head_count", &h.heads}})
    if (Status s = need(key, gguf, *out); !s)
      return s;
  StatusOr<std::optional<uint64_t>> kv =
      c.optionalUInt("num_key_value_heads", UINT32_MAX);
  if (!kv)
    return kv.status();
  h.kvHeads = kv->value_or(h.heads);
  if (h.kvHeads == 0 || h.heads % h.kvHeads != 0)
    return c.bad("num_key_value_heads",
                 "is " + std::to_string(h.kvHeads) +
                     ", which does not divide num_attention_heads (" +
                     std::to_string(h.heads) + ")");
  StatusOr<std::optional<uint64_t>> headDim =
      c.optionalUInt("head_dim", UINT32_MAX);
  if (!headDim)
    return headDim.status();
  if (*headDim) {
    h.headDim = **headDim;
  } else {
    if (h.embd % h.heads != 0)
      return c.bad("hidden_size", "(" + std::to_string(h.embd) +
                                      ") is not a multiple of "
                                      "num_attention_heads and there is no "
                                      "head_dim");
    h.headDim = h.embd / h.heads;
  }
  if (h.headDim == 0 || h.headDim % 2 != 0)
    return c.bad("head_dim", "is " + std::to_string(h.headDim) +
                                 ": rope needs an even, nonzero head size");
  StatusOr<std::optional<double>> eps = c.optionalNumber("rms_norm_eps");
  if (!eps)
    return eps.status();
  if (!*eps)
    return c.missing("rms_norm_eps", a + "attention.layer_norm_rms_epsilon");
  h.rmsEps = **eps;
  if (const json *act = c.find("hidden_act");
      act && !(act->is_string() && act->get<std::string>() == "silu"))
    return c.bad("hidden_act", "is " + act->dump() + ": llama.cpp's " + h.arch +
                                   " feed-forward is SwiGLU (silu)");
  if (StatusOr<std::optional<double>> f =
          c.optionalNumber("partial_rotary_factor");
      !f || (*f && **f != 1.0))
    return f ? c.bad("partial_rotary_factor",
                     "is not 1: llama.cpp's " + h.arch + " rotates whole heads")
             : f.status();
  StatusOr<bool> tied = c.flag("tie_word_embeddings", false);
  if (!tied)
    return tied.status();
  h.tied = *tied;
  if (h.arch == "llama") {
    StatusOr<bool> bias = c.flag("attention_bias", false);
    if (!bias)
      return bias.status();
    h.qkvBias = h.outputBias = *bias;
    StatusOr<bool> mlpBias = c.flag("mlp_bias", false);
    if (!mlpBias)
      return mlpBias.status();
    if (*mlpBias)
      return c.bad("mlp_bias", "is true: llama.cpp's llama feed-forward "
                               "has no biases");
  } else {
    StatusOr<bool> swa = c.flag("use_sliding_window", false);
    if (!swa)
      return swa.status();
    if (*swa)
      return c.bad("use_sliding_window",
                   "is true: llama.cpp's qwen2 attends to the whole context");
  }

  // Rope: rope_theta and rope_scaling, or transformers' newer
  // rope_parameters holding both.
  const json *params = c.find("rope_parameters");
  const json *scaling = params ? params : c.find("rope_scaling");
  std::optional<double> theta;
  if (params && params->is_object() && params->contains("rope_theta")) {
    const json &t = params->at("rope_theta");
    if (!t.is_number())
      return c.bad("rope_parameters", "has a rope_theta that is not a number");
    theta = t.get<double>();
  } else {
    StatusOr<std::optional<double>> t = c.optionalNumber("rope_theta");
    if (!t)
      return t.status();
    theta = *t;
  }
  if (theta) {
    if (!(*theta > 0))
      return c.bad("rope_theta", "is not positive");
    h.ropeTheta = *theta;
  }
  if (scaling) {
    const char *key = params ? "rope_parameters" : "rope_scaling";
    if (!scaling->is_object())
      return c.bad(key, "is " + scaling->dump() + ", not an object");
    std::string type;
    for (const char *k : {"rope_type", "type"})
      if (scaling->contains(k) && scaling->at(k).is_string()) {
        type = scaling->at(k).get<std::string>();
        break;
      }
    auto number = [&](const char *k) -> std::optional<double> {
      if (!scaling->contains(k) || !scaling->at(k).is_number())
        return std::nullopt;
      return scaling->at(k).get<double>();
    };
    if (type == "linear" || type == "yarn") {
      std::optional<double> factor = number("factor");
      if (!factor || !(*factor > 0))
        return c.bad(key, "has type '" + type + "' and no positive factor");
      h.ropeScalingType = type;
      h.ropeScalingFactor = *factor;
      if (type == "yarn") {
        std::optional<double> orig = number("original_max_position_embeddings");
        if (!orig || !(*orig >= 1) || *orig > UINT32_MAX ||
            *orig != std::floor(*orig))
          return c.bad(key, "has type 'yarn' and no integer "
                            "original_max_position_embeddings");
        h.ropeOriginalContext = uint64_t(*orig);
      }
    } else if (type == "llama3") {
      if (h.arch != "llama")
        return Status::unsupported("'" + c.file() + "': " + key +
                                   " type 'llama3' is converted for llama "
                                   "models only");
      std::optional<double> factor = number("factor");
      double low = number("low_freq_factor").value_or(1.0);
      double high = number("high_freq_factor").value_or(4.0);
      double orig = number("original_max_position_embeddings").value_or(8192.0);
      if (!factor || !(*factor > 0))
        return c.bad(key, "has type 'llama3' and no positive factor");
      if (!(low > 0) || !(high > 0) || low == high || !(orig > 0))
        return c.bad(key, "has type 'llama3' with low_freq_factor " +
                              std::to_string(low) + ", high_freq_factor " +
                              std::to_string(high) +
                              " and original_max_position_embeddings " +
                              std::to_string(orig) +
                              " (positive, the two factors different)");
      h.llama3Rope = Hparams::Llama3Rope{*factor, low, high, orig};
    } else if (!type.empty() && type != "default") {
      return Status::unsupported(
          "'" + c.file() + "': " + key + " type '" + type +
          "' is not converted (linear, yarn and llama3 are); llama.cpp "
          "would rope the model differently from Hugging Face");
    }
  }
  return h;
}

// --- tensors -------------------------------------------------------------

ElementType floatElement(ScalarKind kind) {
  ElementType t;
  t.scalar = ScalarType::floatKind(kind);
  return t;
}

float toF32(quant::FloatType type, const uint8_t *p) {
  switch (type) {
  case quant::FloatType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case quant::FloatType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return quant::halfToFloat(h);
  }
  case quant::FloatType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return quant::bfloat16ToFloat(h);
  }
  }
  return 0;
}

/// Reads stored bytes [first, first + n) of `source`.
void readSource(const TensorSource &source, uint64_t first, uint64_t n,
                uint8_t *out) {
  if (source.produce)
    source.produce(first, n, out);
  else
    std::memcpy(out, source.data + first, n);
}

/// `source` (rows of `rowBytes` stored bytes) written with its rows
/// reordered within groups of `group` rows (a head): row r of the result
/// is row llamaRopeSourceRow(r, group) of the source when `permute`, else
/// row r; with `widen` every f16/bf16/f32 element becomes f32. A source
/// group is read once per call, in one piece.
TensorSource rowsOf(const TensorSource &source, uint64_t rowBytes,
                    uint64_t group, bool permute, bool widen) {
  std::optional<quant::FloatType> from;
  if (!source.info.isOpaque())
    from = floatTypeOf(source.info.elementType);
  const uint64_t inBytes = from ? quant::floatTypeBytes(*from) : 1;
  const uint64_t outRow = widen ? rowBytes / inBytes * 4 : rowBytes;
  const uint64_t rows = source.info.length / rowBytes;
  TensorSource out;
  out.info = source.info;
  out.info.offset = 0;
  if (widen)
    out.info.elementType = floatElement(ScalarKind::F32);
  out.info.length = rows * outRow;
  auto shared = std::make_shared<TensorSource>(source);
  out.produce = [=](uint64_t first, uint64_t n, uint8_t *dst) {
    std::vector<uint8_t> groupBytes, row;
    uint64_t loaded = UINT64_MAX;
    while (n > 0) {
      const uint64_t r = first / outRow, at = first % outRow;
      const uint64_t take = std::min(n, outRow - at);
      const uint64_t g = r / group;
      if (g != loaded) {
        const uint64_t count = std::min(group, rows - g * group);
        groupBytes.resize(count * rowBytes);
        readSource(*shared, g * group * rowBytes, count * rowBytes,
                   groupBytes.data());
        loaded = g;
      }
      const uint64_t inGroup =
          permute ? llamaRopeSourceRow(r, group) - g * group : r - g * group;
      const uint8_t *src = groupBytes.data() + inGroup * rowBytes;
      if (!widen) {
        std::memcpy(dst, src + at, take);
      } else {
        row.resize(outRow);
        for (uint64_t e = at / 4; e * 4 < at + take; ++e) {
          float f = toF32(*from, src + e * inBytes);
          std::memcpy(row.data() + e * 4, &f, 4);
        }
        std::memcpy(dst, row.data() + at, take);
      }
      first += take;
      dst += take;
      n -= take;
    }
  };
  return out;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The checkpoint's tensors by name, taken as they are needed; what is
/// left at the end was not expected.
class TensorTable {
public:
  explicit TensorTable(std::string folder) : folder(std::move(folder)) {}
  void add(TensorSource s, std::string file) {
    std::string name = s.info.name;
    byName.emplace(std::move(name),
                   std::make_pair(std::move(s), std::move(file)));
  }
  bool has(const std::string &name) const { return byName.count(name) != 0; }
  /// Removes `name` and checks its shape (HF order) and type.
  StatusOr<TensorSource> take(const std::string &name,
                              const std::vector<int64_t> &shape,
                              const std::string &why, bool blocks = false) {
    auto it = byName.find(name);
    if (it == byName.end())
      return Status::formatError("the checkpoint in '" + folder +
                                 "' has no tensor '" + name + "' (" + why +
                                 ")");
    TensorSource s = std::move(it->second.first);
    std::string file = std::move(it->second.second);
    byName.erase(it);
    if (s.info.isOpaque() ? !blocks : !floatTypeOf(s.info.elementType))
      return Status::unsupported(
          "'" + file + "': tensor '" + name + "' is " +
          (s.info.isOpaque() ? std::string("a ggml block type")
                             : toString(s.info.elementType)) +
          "; vmpack converts f32, f16 and bf16 " +
          (blocks ? "weights" : "vectors") + " to a llama.cpp model");
    if (s.info.shape != shape)
      return Status::formatError("'" + file + "': tensor '" + name +
                                 "' has shape " + shapeText(s.info.shape) +
                                 " but config.json makes it " +
                                 shapeText(shape) + " (" + why + ")");
    return s;
  }
  /// Drops tensors that carry nothing llama.cpp reads.
  void dropIgnored() {
    for (auto it = byName.begin(); it != byName.end();) {
      const std::string &n = it->first;
      const std::string suffix = "rotary_emb.inv_freq";
      if (n.size() >= suffix.size() &&
          n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        it = byName.erase(it);
      else
        ++it;
    }
  }
  Status checkEmpty(const std::string &arch) const {
    if (byName.empty())
      return Status::ok();
    const auto &[name, entry] = *byName.begin();
    return Status::formatError(
        "'" + entry.second + "': tensor '" + name + "' is not part of " + arch +
        " as llama.cpp runs it (" + std::to_string(byName.size()) +
        " unexpected tensor(s)); is config.json the checkpoint's?");
  }

private:
  std::string folder;
  std::map<std::string, std::pair<TensorSource, std::string>> byName;
};

// --- tokenizer -----------------------------------------------------------

// The pre-tokenizer regular expressions of tokenizer.json that
// tokenizer.ggml.pre names (docs/llama.md, "Pre-tokenizer"): Llama 3's and
// Qwen2's Split patterns.
constexpr const char *kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char *kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/// tokenizer.ggml.pre for tokenizer.json's pre_tokenizer, or an error
/// asking for --tokenizer-pre.
StatusOr<std::string> preTokenizerName(const json &pre,
                                       const std::string &path) {
  auto isByteLevel = [](const json &p, bool regex) {
    return p.is_object() && p.value("type", "") == "ByteLevel" &&
           p.value("use_regex", true) == regex &&
           !p.value("add_prefix_space", false);
  };
  if (isByteLevel(pre, true))
    return std::string("gpt-2");
  if (pre.is_object() && pre.value("type", "") == "Sequence" &&
      pre.contains("pretokenizers") && pre["pretokenizers"].is_array() &&
      pre["pretokenizers"].size() == 2) {
    const json &split = pre["pretokenizers"][0];
    if (split.is_object() && split.value("type", "") == "Split" &&
        split.value("behavior", "") == "Isolated" &&
        !split.value("invert", false) && split.contains("pattern") &&
        split["pattern"].is_object() && split["pattern"].contains("Regex") &&
        split["pattern"]["Regex"].is_string() &&
        isByteLevel(pre["pretokenizers"][1], false)) {
      const std::string regex = split["pattern"]["Regex"];
      if (regex == kLlama3Pattern)
        return std::string("llama-bpe");
      if (regex == kQwen2Pattern)
        return std::string("qwen2");
    }
  }
  return Status::unsupported(
      "'" + path +
      "': its pre_tokenizer is not one vmpack names for "
      "llama.cpp (GPT-2's ByteLevel, Llama 3's or Qwen2's Split regex: "
      "docs/llama.md); pass --tokenizer-pre=NAME with the name llama.cpp "
      "gives it (src/llama-vocab.cpp), or --no-vocab");
}

/// A special token of tokenizer_config.json: "content" or {"content": ...}.
std::optional<std::string> specialContent(const json &config, const char *key) {
  auto it = config.find(key);
  if (it == config.end())
    return std::nullopt;
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_object() && it->contains("content") &&
      (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  return std::nullopt;
}

/// The special token ids, add_bos/add_eos and the chat template, for both
/// vocabularies: tokenizer_config.json's special tokens by content first,
/// then config.json's ids, then `fallback`'s (the order of gguf-py's
/// SpecialVocab); add_bos_token and add_eos_token from
/// tokenizer_config.json, else from tokenizer.json's TemplateProcessing
/// (`tj`, when there is one), else llama.cpp's defaults for the vocabulary
/// (a SentencePiece one adds BOS).
Status addSpecialTokens(GgufMetadata &md,
                        const std::map<std::string, uint64_t> &idOf,
                        const std::map<std::string, uint64_t> &fallback,
                        const json &tc, const json *tj, const json &config,
                        const Hparams &h, const std::string &path,
                        const std::string &configPath, bool spmDefaults) {
  std::map<std::string, uint64_t> special;
  for (auto [key, gguf] :
       {std::pair<const char *, const char *>{"bos_token", "bos"},
        {"eos_token", "eos"},
        {"unk_token", "unknown"},
        {"pad_token", "padding"}}) {
    std::optional<std::string> content = specialContent(tc, key);
    if (!content)
      continue;
    auto it = idOf.find(*content);
    if (it == idOf.end())
      return Status::formatError("'" + configPath + "': " + key + " '" +
                                 *content + "' is not a token of '" + path +
                                 "'");
    special[gguf] = it->second;
  }
  for (auto [key, gguf] :
       {std::pair<const char *, const char *>{"bos_token_id", "bos"},
        {"eos_token_id", "eos"},
        {"pad_token_id", "padding"}}) {
    if (special.count(gguf))
      continue;
    auto it = config.find(key);
    if (it == config.end() || it->is_null())
      continue;
    const json &v = it->is_array() && !it->empty() ? (*it)[0] : *it;
    if (!v.is_number_unsigned() || v.get<uint64_t>() >= h.vocab)
      return Status::formatError("config.json: '" + std::string(key) + "' is " +
                                 it->dump() +
                                 ", not a token id below vocab_size");
    special[gguf] = v.get<uint64_t>();
  }
  for (const auto &[name, id] : fallback)
    special.emplace(name, id);
  // add_bos_token/add_eos_token: tokenizer_config.json's, else whether
  // tokenizer.json's TemplateProcessing puts a special token first (last).
  auto addSpecial = [&](const char *key, bool first) -> bool {
    if (tc.contains(key) && tc[key].is_boolean())
      return tc[key].get<bool>();
    const bool byDefault = first && spmDefaults;
    if (!tj || !tj->contains("post_processor") ||
        !(*tj)["post_processor"].is_object())
      return byDefault;
    const json *pp = &(*tj)["post_processor"];
    if (pp->value("type", "") == "Sequence" && pp->contains("processors") &&
        (*pp)["processors"].is_array()) {
      const json *found = nullptr;
      for (const json &p : (*pp)["processors"])
        if (p.is_object() && p.value("type", "") == "TemplateProcessing")
          found = &p;
      if (!found)
        return byDefault;
      pp = found;
    }
    if (pp->value("type", "") != "TemplateProcessing" ||
        !pp->contains("single") || !(*pp)["single"].is_array() ||
        (*pp)["single"].empty())
      return byDefault;
    const json &piece =
        first ? (*pp)["single"].front() : (*pp)["single"].back();
    return piece.is_object() && piece.contains("SpecialToken");
  };

  for (const char *name : {"bos", "eos", "unknown", "padding"})
    if (special.count(name))
      md.push_back({std::string("tokenizer.ggml.") + name + "_token_id",
                    GgufValue::uint32(uint32_t(special[name]))});
  md.push_back({"tokenizer.ggml.add_bos_token",
                boolValue(addSpecial("add_bos_token", true))});
  md.push_back({"tokenizer.ggml.add_eos_token",
                boolValue(addSpecial("add_eos_token", false))});
  if (tc.contains("chat_template") && tc["chat_template"].is_string())
    md.push_back({"tokenizer.chat_template",
                  GgufValue::string(tc["chat_template"].get<std::string>())});
  return Status::ok();
}

/// ggml's does_token_look_special (convert_hf_to_gguf.py): added tokens
/// that models mark as not special but that are control tokens.
bool looksSpecial(const std::string &t) {
  auto wraps = [&](std::string_view open, std::string_view close) {
    return t.size() >= open.size() + close.size() &&
           t.compare(0, open.size(), open) == 0 &&
           t.compare(t.size() - close.size(), close.size(), close) == 0;
  };
  return t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]" ||
         wraps("<|", "|>") || wraps("<\xef\xbd\x9c", "\xef\xbd\x9c>") ||
         wraps("<unused", ">");
}

/// tokenizer.model (SentencePiece) as llama.cpp's "llama" vocabulary, as
/// convert_hf_to_gguf.py's _create_vocab_sentencepiece builds it
/// (docs/llama.md, "SentencePiece vocabulary").
Status addSentencePieceVocabulary(GgufMetadata &md, const std::string &folder,
                                  const std::string &path, const Hparams &h,
                                  const json &config) {
  StatusOr<std::string> bytes = readSmallFile(path);
  if (!bytes)
    return bytes.status();
  StatusOr<SentencePieceModel> spm = readSentencePieceModel(
      reinterpret_cast<const uint8_t *>(bytes->data()), bytes->size());
  if (!spm)
    return spm.status().withContext("'" + path + "': ");
  auto cannot = [&](const std::string &what) {
    return Status::unsupported(
        "'" + path + "': " + what +
        ", which llama.cpp's SentencePiece vocabulary (tokenizer.ggml.model "
        "llama) does not do; pass --no-vocab to write the model without a "
        "vocabulary");
  };
  // llama.cpp's SPM tokenizer merges the best-scoring pair first, which is
  // SentencePiece's BPE; it does no normalization but escaping spaces as
  // U+2581 and the optional leading space.
  if (spm->modelType != SentencePieceModel::kBpe)
    return cannot("the model is " + sentencePieceModelTypeName(spm->modelType) +
                  " (trainer_spec.model_type), not BPE: its segmentation "
                  "differs from BPE's merges");
  if (spm->hasCharsmap || spm->hasNormalizationRules ||
      !(spm->normalizerName.empty() || spm->normalizerName == "identity"))
    return cannot("it normalizes text ('" + spm->normalizerName + "' rules)");
  if (spm->removeExtraWhitespaces)
    return cannot("it removes extra whitespace "
                  "(normalizer_spec.remove_extra_whitespaces)");
  if (!spm->escapeWhitespaces)
    return cannot("it keeps spaces unescaped "
                  "(normalizer_spec.escape_whitespaces is false)");
  if (spm->pieces.size() > h.vocab)
    return Status::formatError(
        "'" + path + "': " + std::to_string(spm->pieces.size()) +
        " pieces, more than config.json's vocab_size " +
        std::to_string(h.vocab) + " (the rows of the embedding)");

  std::vector<std::string> tokens(h.vocab);
  std::vector<float> scores(h.vocab, -10000.0f);
  std::vector<int32_t> types(h.vocab, kTokenUnused);
  for (uint64_t i = 0; i < h.vocab; ++i)
    tokens[i] = "[PAD" + std::to_string(i) + "]";
  for (size_t i = 0; i < spm->pieces.size(); ++i) {
    const SentencePieceModel::Piece &p = spm->pieces[i];
    tokens[i] = p.text;
    scores[i] = p.score;
    // The converter keeps NORMAL for USER_DEFINED pieces.
    types[i] =
        p.type == SentencePieceModel::kUserDefined ? kTokenNormal : p.type;
  }
  auto place = [&](const std::string &file, uint64_t id,
                   const std::string &text, int32_t type) -> Status {
    if (id >= h.vocab)
      return Status::formatError(
          "'" + file + "': token id " + std::to_string(id) + " ('" + text +
          "') is beyond config.json's vocab_size " + std::to_string(h.vocab));
    if (text.empty())
      return cannot("'" + file + "' adds an empty token");
    tokens[id] = text;
    scores[id] = -1000.0f;
    types[id] = type;
    return Status::ok();
  };
  // added_tokens.json, then tokenizer_config.json's added_tokens_decoder.
  const std::string addedPath = joinPath(folder, "added_tokens.json");
  StatusOr<std::optional<json>> added = readJson(addedPath, false);
  if (!added)
    return added.status();
  if (*added) {
    if (!(*added)->is_object())
      return Status::formatError("'" + addedPath +
                                 "' is not an object of token ids");
    for (const auto &[text, id] : (*added)->items()) {
      if (!id.is_number_unsigned())
        return Status::formatError("'" + addedPath + "': '" + text +
                                   "' is not a token id");
      if (Status st =
              place(addedPath, id.get<uint64_t>(), text, kTokenUserDefined);
          !st)
        return st;
    }
  }
  const std::string configPath = joinPath(folder, "tokenizer_config.json");
  StatusOr<std::optional<json>> tokConfig = readJson(configPath, false);
  if (!tokConfig)
    return tokConfig.status();
  const json tc = *tokConfig ? **tokConfig : json::object();
  if (tc.contains("added_tokens_decoder")) {
    const json &decoder = tc["added_tokens_decoder"];
    if (!decoder.is_object())
      return Status::formatError("'" + configPath +
                                 "': added_tokens_decoder is not an object");
    for (const auto &[key, t] : decoder.items()) {
      char *end = nullptr;
      unsigned long long id = std::strtoull(key.c_str(), &end, 10);
      if (key.empty() || *end || !t.is_object() || !t.contains("content") ||
          !t["content"].is_string())
        return Status::formatError("'" + configPath +
                                   "': added_tokens_decoder['" + key +
                                   "'] is not a token id with its content");
      std::string text = t["content"].get<std::string>();
      int32_t type = kTokenControl;
      if (!t.value("special", false) && !looksSpecial(text)) {
        // A user-defined token is pre-normalized: U+2581 back to spaces.
        for (size_t at; (at = text.find("\xe2\x96\x81")) != std::string::npos;)
          text.replace(at, 3, " ");
        type = kTokenUserDefined;
      }
      if (Status st = place(configPath, id, text, type); !st)
        return st;
    }
  }
  std::map<std::string, uint64_t> idOf;
  for (uint64_t i = 0; i < h.vocab; ++i)
    if (!idOf.emplace(tokens[i], i).second)
      return cannot("token '" + tokens[i] + "' has two ids (" +
                    std::to_string(idOf[tokens[i]]) + " and " +
                    std::to_string(i) + ")");

  // The trainer's ids (-1: none) are the last resort, as llama.cpp's own
  // defaults for this vocabulary are the trainer's defaults.
  std::map<std::string, uint64_t> fallback;
  for (auto [name, id] : {std::pair<const char *, int32_t>{"bos", spm->bosId},
                          {"eos", spm->eosId},
                          {"unknown", spm->unkId},
                          {"padding", spm->padId}})
    if (id >= 0 && uint64_t(id) < spm->pieces.size())
      fallback[name] = uint64_t(id);

  StatusOr<std::optional<json>> tokJson =
      readJson(joinPath(folder, "tokenizer.json"), false);
  if (!tokJson)
    return tokJson.status();
  md.push_back({"tokenizer.ggml.model", GgufValue::string("llama")});
  md.push_back({"tokenizer.ggml.pre", GgufValue::string("default")});
  md.push_back({"tokenizer.ggml.tokens", stringArray(std::move(tokens))});
  md.push_back({"tokenizer.ggml.scores", f32Array(scores)});
  md.push_back({"tokenizer.ggml.token_type", int32Array(types)});
  md.push_back(
      {"tokenizer.ggml.add_space_prefix", boolValue(spm->addDummyPrefix)});
  return addSpecialTokens(md, idOf, fallback, tc,
                          *tokJson ? &**tokJson : nullptr, config, h, path,
                          configPath, true);
}

Status addVocabulary(GgufMetadata &md, const std::string &folder,
                     const Hparams &h, const json &config,
                     const LlamaGgufOptions &options) {
  if (options.noVocab) {
    md.push_back({"tokenizer.ggml.model", GgufValue::string("none")});
    return Status::ok();
  }
  // tokenizer.model first, as llama.cpp's converter does for these models.
  const std::string spmPath = joinPath(folder, "tokenizer.model");
  if (isFile(spmPath))
    return addSentencePieceVocabulary(md, folder, spmPath, h, config);
  const std::string path = joinPath(folder, "tokenizer.json");
  if (!isFile(path))
    return Status::invalidArgument(
        "'" + path +
        "' is missing: vmpack reads the vocabulary from a SentencePiece "
        "tokenizer.model or a Hugging Face tokenizer.json (BPE); pass "
        "--no-vocab to write a model without one");
  StatusOr<std::optional<json>> tokJson = readJson(path, true);
  if (!tokJson)
    return tokJson.status();
  const std::string configPath = joinPath(folder, "tokenizer_config.json");
  StatusOr<std::optional<json>> tokConfig = readJson(configPath, false);
  if (!tokConfig)
    return tokConfig.status();
  const json &tj = **tokJson;
  const json tc = *tokConfig ? **tokConfig : json::object();
  auto bad = [&](const std::string &what) {
    return Status::formatError("'" + path + "': " + what);
  };
  auto cannot = [&](const std::string &what) {
    return Status::unsupported("'" + path + "': " + what +
                               ", which llama.cpp's BPE vocabulary "
                               "(tokenizer.ggml.model gpt2) cannot "
                               "represent; pass --no-vocab to write the "
                               "model without a vocabulary");
  };
  if (!tj.is_object() || !tj.contains("model") || !tj["model"].is_object())
    return bad("there is no \"model\" object");
  const json &model = tj["model"];
  const std::string type = model.value("type", "");
  if (type != "BPE")
    return cannot("the tokenizer model is '" + type + "', not BPE");
  if (model.value("byte_fallback", false))
    return cannot("the BPE falls back to <0xNN> byte tokens "
                  "(byte_fallback, SentencePiece style: its tokenizer.model "
                  "converts, when it is in the folder)");
  if (tj.contains("normalizer") && !tj["normalizer"].is_null() &&
      !(tj["normalizer"].is_object() &&
        tj["normalizer"].value("type", "") == "NFC"))
    return cannot("it has a normalizer (" + tj["normalizer"].dump(-1) + ")");
  std::string pre;
  if (options.tokenizerPre) {
    pre = *options.tokenizerPre;
  } else {
    StatusOr<std::string> name = preTokenizerName(
        tj.contains("pre_tokenizer") ? tj["pre_tokenizer"] : json(), path);
    if (!name)
      return name.status();
    pre = *name;
  }

  // Tokens by id: the BPE vocabulary, then the added tokens (which may
  // extend it), padded to vocab_size as llama.cpp's converter does.
  if (!model.contains("vocab") || !model["vocab"].is_object())
    return bad("model.vocab is not an object");
  std::vector<std::optional<std::string>> tokens;
  std::vector<int32_t> types;
  auto place = [&](uint64_t id, const std::string &text,
                   int32_t tokenType) -> Status {
    if (id >= h.vocab)
      return Status::formatError(
          "'" + path + "': token id " + std::to_string(id) + " ('" + text +
          "') is beyond config.json's vocab_size " + std::to_string(h.vocab) +
          ", the rows of the embedding");
    if (tokens.size() <= id) {
      tokens.resize(id + 1);
      types.resize(id + 1, kTokenNormal);
    }
    if (tokens[id] && *tokens[id] != text)
      return bad("token id " + std::to_string(id) + " is both '" + *tokens[id] +
                 "' and '" + text + "'");
    tokens[id] = text;
    types[id] = tokenType;
    return Status::ok();
  };
  for (const auto &[text, id] : model["vocab"].items()) {
    if (!id.is_number_unsigned())
      return bad("model.vocab['" + text + "'] is not a token id");
    if (text.empty())
      return cannot("the vocabulary has an empty token");
    if (Status s = place(id.get<uint64_t>(), text, kTokenNormal); !s)
      return s;
  }
  if (tj.contains("added_tokens")) {
    if (!tj["added_tokens"].is_array())
      return bad("added_tokens is not a list");
    for (const json &t : tj["added_tokens"]) {
      if (!t.is_object() || !t.contains("id") ||
          !t["id"].is_number_unsigned() || !t.contains("content") ||
          !t["content"].is_string())
        return bad("an added token has no id and content");
      if (t["content"].get<std::string>().empty())
        return cannot("an added token is empty");
      if (Status s = place(
              t["id"].get<uint64_t>(), t["content"].get<std::string>(),
              t.value("special", false) ? kTokenControl : kTokenUserDefined);
          !s)
        return s;
    }
  }
  std::vector<std::string> texts(h.vocab);
  types.resize(h.vocab, kTokenUnused);
  std::map<std::string, uint64_t> idOf;
  tokens.resize(h.vocab);
  for (uint64_t i = 0; i < h.vocab; ++i) {
    if (tokens[i]) {
      texts[i] = *tokens[i];
    } else {
      texts[i] = "[PAD" + std::to_string(i) + "]";
      types[i] = kTokenUnused;
    }
    if (!idOf.emplace(texts[i], i).second)
      return cannot("token '" + texts[i] + "' has two ids (" +
                    std::to_string(idOf[texts[i]]) + " and " +
                    std::to_string(i) + ")");
  }

  // Merges: "A B" strings, or [A, B] pairs in newer tokenizer.json files.
  std::vector<std::string> merges;
  if (model.contains("merges")) {
    if (!model["merges"].is_array())
      return bad("model.merges is not a list");
    merges.reserve(model["merges"].size());
    for (const json &m : model["merges"]) {
      std::string a, b;
      if (m.is_string()) {
        std::string s = m.get<std::string>();
        size_t space = s.find(' ', 1);
        if (space == std::string::npos ||
            s.find(' ', space + 1) != std::string::npos)
          return bad("merge '" + s + "' is not two tokens");
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() &&
                 m[1].is_string()) {
        a = m[0].get<std::string>();
        b = m[1].get<std::string>();
        if (a.empty() || b.empty() || a.find(' ') != std::string::npos ||
            b.find(' ') != std::string::npos)
          return cannot("merge ['" + a + "', '" + b +
                        "'] has a token with a space or an empty one");
      } else {
        return bad("a merge is neither \"A B\" nor [\"A\", \"B\"]");
      }
      merges.push_back(a + " " + b);
    }
  }

  std::map<std::string, uint64_t> fallback;
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = idOf.find(model["unk_token"].get<std::string>());
    if (it != idOf.end())
      fallback["unknown"] = it->second;
  }
  md.push_back({"tokenizer.ggml.model", GgufValue::string("gpt2")});
  md.push_back({"tokenizer.ggml.pre", GgufValue::string(pre)});
  md.push_back({"tokenizer.ggml.tokens", stringArray(std::move(texts))});
  md.push_back({"tokenizer.ggml.token_type", int32Array(types)});
  md.push_back({"tokenizer.ggml.merges", stringArray(std::move(merges))});
  return addSpecialTokens(md, idOf, fallback, tc, &tj, config, h, path,
                          configPath, false);
}

std::string folderName(std::string folder) {
  while (folder.size() > 1 && folder.back() == '/')
    folder.pop_back();
  size_t slash = folder.find_last_of('/');
  return slash == std::string::npos ? folder : folder.substr(slash + 1);
}

} // namespace

uint64_t vmpack::formats::llamaRopeSourceRow(uint64_t row, uint64_t headDim) {
  const uint64_t head = row / headDim, k = row % headDim;
  return head * headDim + (k % 2) * (headDim / 2) + k / 2;
}

bool vmpack::formats::isLlamaFamilyFolder(const std::string &path) {
  if (!isDirectory(path) || !isFile(joinPath(path, "config.json")))
    return false;
  StatusOr<std::optional<json>> config =
      readJson(joinPath(path, "config.json"), true);
  if (!config || !(*config)->is_object())
    return false;
  auto it = (*config)->find("architectures");
  if (it == (*config)->end() || !it->is_array() || it->size() != 1 ||
      !(*it)[0].is_string())
    return false;
  const std::string a = (*it)[0].get<std::string>();
  return a == "LlamaForCausalLM" || a == "MistralForCausalLM" ||
         a == "Qwen2ForCausalLM";
}

bool vmpack::formats::isDenseHfModelFolder(const std::string &path) {
  if (!isDirectory(path) || !isFile(joinPath(path, "config.json")) ||
      isFile(joinPath(path, "quantize_config.json")) ||
      isFile(joinPath(path, "quant_config.json")))
    return false;
  // A config.json that does not parse is reported by planLlamaGguf.
  StatusOr<std::optional<json>> config =
      readJson(joinPath(path, "config.json"), true);
  return !config || !(*config)->is_object() ||
         !(*config)->contains("quantization_config");
}

StatusOr<LlamaGgufPlan>
vmpack::formats::planLlamaGguf(const std::string &folder,
                               const LlamaGgufOptions &options) {
  const std::string configPath = joinPath(folder, "config.json");
  StatusOr<std::optional<json>> configJson = readJson(configPath, true);
  if (!configJson)
    return configJson.status();
  if (!(*configJson)->is_object())
    return Status::formatError("'" + configPath + "' is not a JSON object");
  const json &cj = **configJson;
  Config config(cj, configPath);
  StatusOr<Hparams> hp = readHparams(config);
  if (!hp)
    return hp.status();
  const Hparams &h = *hp;

  LlamaGgufPlan plan;
  plan.architecture = h.arch;

  TensorTable table(folder);
  const bool quantized = cj.contains("quantization_config") ||
                         isFile(joinPath(folder, "quantize_config.json")) ||
                         isFile(joinPath(folder, "quant_config.json"));
  if (quantized) {
    // GPTQ/AWQ linears as ggml blocks (exact, else refused) or floats.
    StatusOr<std::unique_ptr<HfQuantModel>> opened = openHfQuantModel(folder);
    if (!opened)
      return opened.status();
    HfQuantModel &m = **opened;
    plan.warnings = m.warnings;
    for (TensorSource &t : m.others)
      table.add(std::move(t), folder);
    for (const HfQuantLinear &l : m.linears) {
      StatusOr<TensorSource> t = [&]() -> StatusOr<TensorSource> {
        if (options.dequantize)
          return hfLinearAsFloats(l, *options.dequantize, options.threads);
        StatusOr<HfGgmlBlocks> blocks =
            hfLinearToGgml(l, options.ggmlType, options.allowRounding, folder);
        if (!blocks)
          return blocks.status();
        if (!blocks->rounding.empty())
          plan.warnings.push_back(blocks->rounding);
        return std::move(blocks->blocks);
      }();
      if (!t)
        return t.status();
      table.add(std::move(*t), folder);
    }
    plan.files = std::move(m.files);
    plan.quantModel = std::shared_ptr<HfQuantModel>(std::move(*opened));
  } else {
    // The weights: a sharded set by its index, or one file.
    std::string weights = joinPath(folder, "model.safetensors.index.json");
    if (!isFile(weights))
      weights = joinPath(folder, "model.safetensors");
    if (!isFile(weights))
      return Status::invalidArgument(
          "'" + folder +
          "' has neither model.safetensors nor model.safetensors.index.json "
          "(vmpack reads safetensors checkpoints, not pytorch_model.bin)");
    StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
        openWeightSet(weights, FileFormat::Safetensors);
    if (!set)
      return set.status();
    for (std::unique_ptr<WeightFile> &file : *set) {
      for (TensorSource &s : file->sources())
        table.add(std::move(s), file->path);
      plan.files.push_back(std::move(file));
    }
  }
  table.dropIgnored();

  const int64_t embd = int64_t(h.embd), vocab = int64_t(h.vocab),
                ff = int64_t(h.ff), qRows = int64_t(h.heads * h.headDim),
                kvRows = int64_t(h.kvHeads * h.headDim);
  std::map<uint32_t, uint64_t> matrixTypes;
  auto emit = [&](TensorSource s, const std::string &name) {
    s.info.name = name;
    s.info.offset = 0;
    if (s.info.shape.size() == 2)
      matrixTypes[ggmlTypeOf(s.info)]++;
    plan.tensors.push_back(std::move(s));
  };
  auto plain = [&](const std::string &hf, const std::string &gguf,
                   std::vector<int64_t> shape,
                   const std::string &why) -> Status {
    StatusOr<TensorSource> s = table.take(hf, shape, why, true);
    if (!s)
      return s.status();
    emit(std::move(*s), gguf);
    return Status::ok();
  };
  // Norm weights and biases: f32, as llama.cpp's converter writes them
  // (ggml's CPU binary ops take f32 operands), rows permuted for q/k rope.
  auto vector = [&](const std::string &hf, const std::string &gguf, int64_t n,
                    bool permute, const std::string &why) -> Status {
    StatusOr<TensorSource> s = table.take(hf, {n}, why);
    if (!s)
      return s.status();
    const uint64_t elementBytes = s->info.length / uint64_t(n);
    emit(permute ? rowsOf(*s, elementBytes, h.headDim, true, true)
                 : rowsOf(*s, s->info.length, 1, false, true),
         gguf);
    return Status::ok();
  };
  auto permuted = [&](const std::string &hf, const std::string &gguf,
                      int64_t rows, const std::string &why) -> Status {
    StatusOr<TensorSource> s = table.take(hf, {rows, embd}, why, true);
    if (!s)
      return s.status();
    emit(rowsOf(*s, s->info.length / uint64_t(rows), h.headDim, true, false),
         gguf);
    return Status::ok();
  };

  if (h.llama3Rope) {
    // Computed here: the first tensor, as llama.cpp's converter writes it.
    auto factors =
        std::make_shared<const std::vector<float>>(llama3RopeFactors(h));
    TensorSource rope;
    rope.info.elementType = floatElement(ScalarKind::F32);
    rope.info.encoding = interopEncoding(rope.info.elementType);
    rope.info.shape = {int64_t(factors->size())};
    rope.info.length = factors->size() * 4;
    rope.produce = [factors](uint64_t first, uint64_t n, uint8_t *dst) {
      std::memcpy(
          dst, reinterpret_cast<const uint8_t *>(factors->data()) + first, n);
    };
    emit(std::move(rope), "rope_freqs.weight");
  }
  if (Status s = plain("model.embed_tokens.weight", "token_embd.weight",
                       {vocab, embd}, "vocab_size x hidden_size");
      !s)
    return s;
  for (uint64_t i = 0; i < h.layers; ++i) {
    const std::string hf = "model.layers." + std::to_string(i) + ".";
    const std::string g = "blk." + std::to_string(i) + ".";
    const std::string qWhy = "num_attention_heads x head_dim rows",
                      kvWhy = "num_key_value_heads x head_dim rows";
    Status st = vector(hf + "input_layernorm.weight", g + "attn_norm.weight",
                       embd, false, "hidden_size");
    if (st && h.permuteQK)
      st = permuted(hf + "self_attn.q_proj.weight", g + "attn_q.weight", qRows,
                    qWhy);
    else if (st)
      st = plain(hf + "self_attn.q_proj.weight", g + "attn_q.weight",
                 {qRows, embd}, qWhy);
    if (st && h.permuteQK)
      st = permuted(hf + "self_attn.k_proj.weight", g + "attn_k.weight", kvRows,
                    kvWhy);
    else if (st)
      st = plain(hf + "self_attn.k_proj.weight", g + "attn_k.weight",
                 {kvRows, embd}, kvWhy);
    if (st)
      st = plain(hf + "self_attn.v_proj.weight", g + "attn_v.weight",
                 {kvRows, embd}, kvWhy);
    if (st && h.qkvBias)
      st = vector(hf + "self_attn.q_proj.bias", g + "attn_q.bias", qRows,
                  h.permuteQK, qWhy);
    if (st && h.qkvBias)
      st = vector(hf + "self_attn.k_proj.bias", g + "attn_k.bias", kvRows,
                  h.permuteQK, kvWhy);
    if (st && h.qkvBias)
      st = vector(hf + "self_attn.v_proj.bias", g + "attn_v.bias", kvRows,
                  false, kvWhy);
    if (st)
      st = plain(hf + "self_attn.o_proj.weight", g + "attn_output.weight",
                 {embd, qRows}, "hidden_size x num_attention_heads x head_dim");
    if (st && h.outputBias)
      st = vector(hf + "self_attn.o_proj.bias", g + "attn_output.bias", embd,
                  false, "hidden_size");
    if (st)
      st = vector(hf + "post_attention_layernorm.weight", g + "ffn_norm.weight",
                  embd, false, "hidden_size");
    if (st)
      st = plain(hf + "mlp.gate_proj.weight", g + "ffn_gate.weight", {ff, embd},
                 "intermediate_size x hidden_size");
    if (st)
      st = plain(hf + "mlp.up_proj.weight", g + "ffn_up.weight", {ff, embd},
                 "intermediate_size x hidden_size");
    if (st)
      st = plain(hf + "mlp.down_proj.weight", g + "ffn_down.weight", {embd, ff},
                 "hidden_size x intermediate_size");
    if (!st)
      return st;
  }
  if (Status s = vector("model.norm.weight", "output_norm.weight", embd, false,
                        "hidden_size");
      !s)
    return s;
  if (h.tied) {
    // llama.cpp uses token_embd when there is no output tensor.
    if (table.has("lm_head.weight"))
      if (StatusOr<TensorSource> s =
              table.take("lm_head.weight", {vocab, embd}, "tied");
          !s)
        return s.status();
  } else if (Status s = plain("lm_head.weight", "output.weight", {vocab, embd},
                              "vocab_size x hidden_size; config.json's "
                              "tie_word_embeddings is false");
             !s) {
    return s;
  }
  if (Status s = table.checkEmpty(h.hfArchitecture); !s)
    return s;

  // Metadata, in the order llama.cpp's converter writes it.
  GgufMetadata &md = plan.metadata;
  const std::string a = h.arch + ".";
  md.push_back({"general.architecture", GgufValue::string(h.arch)});
  md.push_back({"general.type", GgufValue::string("model")});
  md.push_back({"general.name",
                GgufValue::string(options.name.value_or(folderName(folder)))});
  md.push_back({a + "vocab_size", GgufValue::uint32(uint32_t(h.vocab))});
  md.push_back({a + "context_length", GgufValue::uint32(uint32_t(h.context))});
  md.push_back({a + "embedding_length", GgufValue::uint32(uint32_t(h.embd))});
  md.push_back({a + "block_count", GgufValue::uint32(uint32_t(h.layers))});
  md.push_back({a + "feed_forward_length", GgufValue::uint32(uint32_t(h.ff))});
  md.push_back(
      {a + "attention.head_count", GgufValue::uint32(uint32_t(h.heads))});
  md.push_back(
      {a + "attention.head_count_kv", GgufValue::uint32(uint32_t(h.kvHeads))});
  if (h.headDim * h.heads != h.embd) {
    md.push_back(
        {a + "attention.key_length", GgufValue::uint32(uint32_t(h.headDim))});
    md.push_back(
        {a + "attention.value_length", GgufValue::uint32(uint32_t(h.headDim))});
  }
  md.push_back(
      {a + "attention.layer_norm_rms_epsilon", f32Value(float(h.rmsEps))});
  md.push_back({a + "rope.freq_base", f32Value(float(h.ropeTheta))});
  md.push_back(
      {a + "rope.dimension_count", GgufValue::uint32(uint32_t(h.headDim))});
  if (h.ropeScalingType) {
    md.push_back(
        {a + "rope.scaling.type", GgufValue::string(*h.ropeScalingType)});
    md.push_back(
        {a + "rope.scaling.factor", f32Value(float(h.ropeScalingFactor))});
    if (h.ropeOriginalContext)
      md.push_back({a + "rope.scaling.original_context_length",
                    GgufValue::uint32(uint32_t(*h.ropeOriginalContext))});
  }
  // The type most matrices have (llama_ftype).
  uint32_t dominant = quant::kGgmlF32;
  uint64_t most = 0;
  for (auto [t, n] : matrixTypes)
    if (n > most) {
      most = n;
      dominant = t;
    }
  md.push_back({"general.file_type",
                GgufValue::uint32(llamaFileType(dominant).value_or(0))});
  if (dominant != quant::kGgmlF32 && dominant != quant::kGgmlF16 &&
      dominant != quant::kGgmlBF16)
    // GGML_QNT_VERSION, which llama.cpp's converter writes for ggml blocks.
    md.push_back({"general.quantization_version", GgufValue::uint32(2)});
  try {
    if (Status s = addVocabulary(md, folder, h, cj, options); !s)
      return s;
  } catch (const json::exception &e) {
    return Status::formatError("'" + joinPath(folder, "tokenizer.json") +
                               "': unexpected JSON value: " + e.what());
  }
  return plan;
}
