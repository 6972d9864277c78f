//===- Convert.cpp - vmpack-convert as a library function -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Tools/Convert.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/DequantSplit.h"
#include "vmpack/Formats/DequantizeTensor.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/GgufValueText.h"
#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Formats/LlamaGguf.h"
#include "vmpack/Formats/Onnx.h"
#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlQuantize.h"
#include "vmpack/Tools/ToolSupport.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>

using namespace vmpack;
using namespace vmpack::tools;
using namespace vmpack::formats;

namespace {

/// Every input's metadata as typed GGUF pairs, merged in input order:
/// safetensors, .vmpk and MLIR string pairs (with "vmpack.gguf." entries
/// decoded to their GGUF type), GGUF pairs as they are. Shards repeat their
/// metadata: equal values merge, different ones are an error.
class MetadataMerger {
public:
  Status addStrings(const StringMetadata &metadata, const std::string &path) {
    StatusOr<GgufMetadata> typed = stringMetadataToGguf(metadata);
    if (!typed)
      return typed.status().withContext("'" + path + "': ");
    return addGguf(*typed, path);
  }
  Status addGguf(const GgufMetadata &metadata, const std::string &path) {
    for (const GgufKeyValue &kv : metadata) {
      auto [it, added] =
          owner.emplace(kv.key, std::make_pair(all.size(), path));
      if (added) {
        all.push_back(kv);
        continue;
      }
      if (!(all[it->second.first].value == kv.value))
        return Status::invalidArgument(
            "metadata key '" + kv.key + "' differs between '" +
            it->second.second + "' and '" + path + "'");
    }
    return Status::ok();
  }
  const GgufMetadata &merged() const { return all; }
  GgufMetadata &merged() { return all; }
  /// Drops `key` (a record of what is converted), as if never added.
  void erase(const std::string &key) {
    auto it = owner.find(key);
    if (it == owner.end())
      return;
    const size_t at = it->second.first;
    owner.erase(it);
    all.erase(all.begin() + int64_t(at));
    for (auto &kv : owner)
      if (kv.second.first > at)
        --kv.second.first;
  }

private:
  GgufMetadata all;
  std::map<std::string, std::pair<size_t, std::string>> owner;
};

std::string stem(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

bool isMlir(Format f) { return f == Format::Mlir || f == Format::Mlirbc; }

Status notFor(const char *option, Format to, const char *why) {
  return Status::invalidArgument(std::string(option) + " does not apply to " +
                                 formatInfo(to).description + " (" +
                                 formatName(to) + "): " + why);
}

/// Reads stored bytes [first, first + n) of `source`.
void readSource(const TensorSource &source, uint64_t first, uint64_t n,
                uint8_t *out) {
  if (source.produce)
    source.produce(first, n, out);
  else
    std::memcpy(out, source.data + first, n);
}

/// `source` stored in `to` instead of its own encoding: the bytes are
/// converted by the Pack layer while the writer asks for them, a granule
/// run at a time.
TensorSource reencoded(TensorSource source, Encoding to, uint64_t length) {
  auto shared = std::make_shared<TensorSource>(std::move(source));
  const ElementType type = shared->info.elementType;
  const uint32_t bits = type.scalarBits();
  const Encoding from = shared->info.encoding;
  const uint64_t scalars =
      *numElements(shared->info.shape) * type.scalarsPerElement();
  TensorSource out;
  out.info = shared->info;
  out.info.encoding = to;
  out.info.length = length;
  out.produce = [shared, from, to, bits, scalars](uint64_t first, uint64_t n,
                                                  uint8_t *dst) {
    const uint64_t granule = elementGranule(bits);
    const uint64_t granuleBytes = granuleByteOffset(to, bits, granule);
    // Whole granules around [first, first + n) of the output.
    uint64_t g0 = first / granuleBytes;
    uint64_t g1 = (first + n + granuleBytes - 1) / granuleBytes;
    uint64_t e0 = g0 * granule;
    uint64_t e1 = std::min(scalars, g1 * granule);
    uint64_t srcFirst = granuleByteOffset(from, bits, e0);
    uint64_t srcLength = *encodedSize(from, bits, e1 - e0);
    std::vector<uint8_t> src(srcLength),
        converted(*encodedSize(to, bits, e1 - e0));
    readSource(*shared, srcFirst, srcLength, src.data());
    vmpack::convert(from, to, bits, src.data(), converted.data(), e1 - e0);
    std::memcpy(dst, converted.data() + (first - g0 * granuleBytes), n);
  };
  return out;
}

/// The .vmpk encoding of every tensor whose elements vmpack describes, as
/// vmpack-compile stores them: `encoding` where it is defined for the type,
/// else the tensor's own.
Status applyEncoding(std::vector<TensorSource> &tensors, Encoding encoding) {
  for (TensorSource &t : tensors) {
    if (t.info.isOpaque() || t.info.encoding == encoding ||
        !isEncodable(encoding, t.info.elementType.scalarBits()))
      continue;
    std::optional<uint64_t> length =
        storedSize(t.info.elementType, t.info.shape, encoding);
    if (!length)
      return Status::invalidArgument(
          "tensor " + quoteName(t.info.name) + " is too large for the '" +
          std::string(encodingName(encoding)) + "' encoding");
    bool sameBytes =
        *length == t.info.length && t.info.elementType.scalarBits() % 8 == 0;
    if (sameBytes) {
      // Whole-byte scalars are the same bytes in every encoding.
      t.info.encoding = encoding;
      continue;
    }
    t = reencoded(std::move(t), encoding, *length);
  }
  return Status::ok();
}

/// --quant's value for a Hugging Face checkpoint: a ggml block type
/// hfGgmlTarget makes (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0), or 0 for a Hugging
/// Face scheme; nullopt for the targets that are for ggml blocks only.
std::optional<uint32_t> hfQuantTarget(const std::string &name) {
  std::optional<QuantTarget> t = parseQuantTarget(name);
  if (!t)
    return std::nullopt;
  if (t->kind == QuantTarget::HfScheme)
    return 0u;
  if (t->kind == QuantTarget::Ggml && quant::hasGgmlQuantizer(t->ggmlType))
    return t->ggmlType;
  return std::nullopt;
}

Status notForHf(const std::string &quant, const std::string &path) {
  return Status::unsupported(
      "--quant=" + quant + ": '" + path +
      "' is a Hugging Face checkpoint, whose quantized weights become q4_0, "
      "q4_1, q5_0, q5_1 or q8_0 blocks, gptq, gptq_v2, awq, "
      "compressed-tensors, mlx or bnb-nf4 tensors, or planar sets; " +
      quant + " is for ggml blocks and planar sets");
}

/// The com.microsoft MatMulNBits nodes of an ONNX template, by the name of
/// the weight each takes (docs/interop.md, "Writing MatMulNBits"): B's
/// initializer name without the "_Q<bits>" that onnxruntime's
/// MatMulNBitsQuantizer appends to the MatMul weight's name, else B's name.
StatusOr<std::map<std::string, MatMulNBitsTarget>>
matMulNBitsTargets(const std::string &templatePath) {
  OnnxModel model;
  StatusOr<std::unique_ptr<WeightFile>> file =
      openOnnx(templatePath, OnnxLimits(), &model);
  if (!file)
    return file.status().withContext("--onnx-template: ");
  StatusOr<std::vector<OnnxQuantizedWeight>> weights =
      onnxQuantizedWeights(model, **file);
  if (!weights)
    return weights.status().withContext("--onnx-template '" + templatePath +
                                        "': ");
  std::map<std::string, MatMulNBitsTarget> byWeight;
  const std::vector<TensorInfo> &infos = (*file)->tensors;
  for (const OnnxQuantizedWeight &w : *weights) {
    if (!w.matMulNBits)
      continue;
    MatMulNBitsTarget t;
    t.bits = w.bits;
    t.blockSize = uint64_t(w.blockSize);
    t.codes = infos[size_t(w.codes)];
    t.scales = infos[size_t(w.scales)];
    if (w.zeroPoints >= 0)
      t.zeroPoints = infos[size_t(w.zeroPoints)];
    t.packedZeroPoints = w.packedZeroPoints;
    std::string name = t.codes.name;
    const std::string suffix = "_Q" + std::to_string(w.bits);
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      name.resize(name.size() - suffix.size());
    byWeight.emplace(std::move(name), std::move(t));
  }
  return byWeight;
}

/// -o DIR/: a Hugging Face model directory.
bool isModelDirectoryOutput(const std::string &output) {
  return output.size() > 1 && output.back() == '/';
}

/// Copies the file `from` to `to` (the model directory's tokenizer and
/// other files), through a temporary file and a rename.
Status copyWholeFile(const std::string &from, const std::string &to) {
  StatusOr<std::unique_ptr<archive::MappedFile>> in =
      archive::MappedFile::open(from);
  if (!in)
    return in.status();
  StatusOr<std::unique_ptr<OutputFile>> out =
      OutputFile::create(to, (*in)->size());
  if (!out)
    return out.status();
  if ((*in)->size())
    if (Status s = (*out)->write(0, (*in)->data(), (*in)->size()); !s)
      return s;
  return (*out)->commit();
}

/// Writes `text` to `path` through a temporary file and a rename.
Status writeText(const std::string &path, const std::string &text) {
  StatusOr<std::unique_ptr<OutputFile>> out =
      OutputFile::create(path, text.size());
  if (!out)
    return out.status();
  if (Status s = (*out)->write(0, text.data(), text.size()); !s)
    return s;
  return (*out)->commit();
}

/// Counts for the summary line of one scheme.
struct SchemeCounts {
  std::map<std::string, size_t> repacked, rounded, rewritten;
  size_t stored = 0, dequantized = 0, others = 0;
};

/// -o DIR/: DIR/model.safetensors (or a shard set with its index), DIR's
/// config.json (the input's, its quantization_config that of the scheme
/// written, or none when nothing quantized is left) and every other file of
/// the input directory (tokenizer, generation config, ...).
Status
writeModelDirectory(const ConvertOptions &options,
                    const std::vector<TensorSource> &tensors,
                    const GgufMetadata &metadata,
                    const std::vector<std::unique_ptr<HfQuantModel>> &models,
                    const std::vector<const HfQuantLinear *> &quantized,
                    ConvertResult &result) {
  const std::string &dir = options.output;
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return Status::ioError("cannot create the directory '" + dir +
                           "': " + std::strerror(errno));
  StatusOr<StringMetadata> strings = ggufToStringMetadata(metadata);
  if (!strings)
    return strings.status();
  // The quantization_config of what is written.
  std::string quantization;
  const HfQuantLinear *firstStored =
      quantized.empty() ? nullptr : quantized.front();
  const HfQuantModel *owner = nullptr;
  for (const auto &m : models)
    if (firstStored && !m->linears.empty() &&
        firstStored >= m->linears.data() &&
        firstStored < m->linears.data() + m->linears.size())
      owner = m.get();
  // Written as the input's own compressed-tensors or MLX scheme: the
  // tensors as stored.
  const bool ownScheme =
      owner && options.quant &&
      ((*options.quant == "compressed-tensors" &&
        owner->config.method == HfQuantMethod::CompressedTensors) ||
       (*options.quant == "mlx" &&
        owner->config.method == HfQuantMethod::Mlx) ||
       (*options.quant == "bnb-nf4" &&
        owner->config.method == HfQuantMethod::Bitsandbytes));
  bool mlx = false;
  if (owner && (!options.quant || ownScheme) &&
      (owner->config.method == HfQuantMethod::CompressedTensors ||
       owner->config.method == HfQuantMethod::Mlx ||
       owner->config.method == HfQuantMethod::Bitsandbytes)) {
    mlx = owner->config.method == HfQuantMethod::Mlx;
    // Kept as stored: the input's own quantization object.
    for (const HfQuantLinear *l : quantized)
      if (l->method != owner->config.method)
        return Status::unsupported("tensor " + quoteName(l->weight.name) +
                                   " is " + hfQuantMethodName(l->method) +
                                   ", " + quoteName(firstStored->weight.name) +
                                   " " +
                                   hfQuantMethodName(owner->config.method) +
                                   ": one quantization_config cannot say both");
    quantization = owner->config.sourceJson;
  } else if (!quantized.empty() && options.quant &&
             (*options.quant == "compressed-tensors" ||
              *options.quant == "mlx")) {
    mlx = *options.quant == "mlx";
    StatusOr<std::string> q = hfTargetConfigJson(*options.quant, quantized);
    if (!q)
      return q.status();
    quantization = std::move(*q);
  } else if (!quantized.empty()) {
    const HfQuantLinear &first = *quantized.front();
    std::string scheme = options.quant ? *options.quant
                         : first.method == HfQuantMethod::Awq
                             ? "awq"
                             : (first.zerosMinusOne ? "gptq" : "gptq_v2");
    // One group size for every linear, or -1 (GPTQ's and AutoAWQ's one
    // group per row) when each has one group per row of its own length.
    bool sym = true, descAct = false, perRow = true;
    for (const HfQuantLinear *l : quantized)
      perRow = perRow && l->groupSize == uint64_t(l->in);
    for (const HfQuantLinear *l : quantized) {
      if (l->bits != first.bits || (l->groupSize != first.groupSize && !perRow))
        return Status::unsupported(
            "tensor " + quoteName(l->weight.name) + " has " +
            std::to_string(l->bits) + "-bit codes in groups of " +
            std::to_string(l->groupSize) + ", " + quoteName(first.weight.name) +
            " " + std::to_string(first.bits) + " in groups of " +
            std::to_string(first.groupSize) +
            ": one quantization_config cannot say both");
      sym = sym && hfZerosSymmetric(*l);
      descAct = descAct || !l->weight.groupIndex.empty();
    }
    const bool sameGroups = std::all_of(
        quantized.begin(), quantized.end(), [&](const HfQuantLinear *l) {
          return l->groupSize == first.groupSize;
        });
    quantization = hfQuantConfigJson(scheme, first.bits,
                                     sameGroups ? int64_t(first.groupSize) : -1,
                                     sym, descAct && scheme != "awq");
  }
  std::string inputDir;
  for (const auto &m : models)
    if (!m->directory.empty()) {
      inputDir = m->directory;
      break;
    }
  std::string config;
  const std::string inputConfig = inputDir + "/config.json";
  struct stat st;
  if (!inputDir.empty() && ::stat(inputConfig.c_str(), &st) == 0) {
    StatusOr<std::unique_ptr<archive::MappedFile>> map =
        archive::MappedFile::open(inputConfig);
    if (!map)
      return map.status();
    StatusOr<std::string> text = rewriteHfConfig(
        (*map)->data(), (*map)->size(), quantization, inputConfig, mlx);
    if (!text)
      return text.status();
    config = std::move(*text);
  } else {
    std::string empty = "{}";
    StatusOr<std::string> text =
        rewriteHfConfig(reinterpret_cast<const uint8_t *>(empty.data()),
                        empty.size(), quantization, "config.json", mlx);
    if (!text)
      return text.status();
    config = std::move(*text);
  }
  const std::string weights = dir + "model.safetensors";
  if (options.maxShardSize) {
    StatusOr<std::vector<std::string>> written = writeShardedSafetensors(
        weights, tensors, *strings, *options.maxShardSize);
    if (!written)
      return written.status();
    result.files = std::move(*written);
  } else {
    if (Status s = writeSafetensors(weights, tensors, *strings); !s)
      return s;
    result.files.push_back(weights);
  }
  if (Status s = writeText(dir + "config.json", config); !s)
    return s;
  result.files.push_back(dir + "config.json");
  if (inputDir.empty())
    return Status::ok();
  // The input directory's other files.
  std::vector<std::string> names;
  if (DIR *d = ::opendir(inputDir.c_str())) {
    while (dirent *e = ::readdir(d))
      names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  auto endsWith = [](const std::string &n, const char *suffix) {
    size_t k = std::strlen(suffix);
    return n.size() >= k && n.compare(n.size() - k, k, suffix) == 0;
  };
  for (const std::string &n : names) {
    const std::string from = inputDir + "/" + n;
    if (n == "config.json" || n == "quantize_config.json" ||
        n == "quant_config.json" || endsWith(n, ".safetensors") ||
        endsWith(n, ".safetensors.index.json") || ::stat(from.c_str(), &st) ||
        !S_ISREG(st.st_mode))
      continue;
    if (Status s = copyWholeFile(from, dir + n); !s)
      return s;
    result.files.push_back(dir + n);
  }
  return Status::ok();
}

/// The MLIR spelling a planar part is checked against: signless integers
/// (what --dequant-split writes, and what readers give back for si4) as
/// the signed ones they are.
std::string planarTypeSpelling(const ElementType &type) {
  std::string t = toString(type);
  if (t.size() > 1 && t[0] == 'i' &&
      t.find_first_not_of("0123456789", 1) == std::string::npos)
    return "s" + t;
  return t;
}

const std::string *stringValue(const GgufMetadata &metadata,
                               const std::string &key) {
  for (const GgufKeyValue &kv : metadata)
    if (kv.key == key)
      return kv.value.type == GgufType::String && kv.value.strings.size() == 1
                 ? &kv.value.strings[0]
                 : nullptr;
  return nullptr;
}

bool hasKey(const GgufMetadata &metadata, const std::string &key) {
  for (const GgufKeyValue &kv : metadata)
    if (kv.key == key)
      return true;
  return false;
}

void eraseKey(GgufMetadata &metadata, const std::string &key) {
  for (auto it = metadata.begin(); it != metadata.end(); ++it)
    if (it->key == key) {
      metadata.erase(it);
      return;
    }
}

} // namespace

/// --quant=planar|ggml|TYPE (and --dequant-split) on the tensors of every
/// input: ggml block tensors split into planar sets (recorded in
/// `metadata`), planar sets joined into blocks (their records dropped),
/// blocks converted into TYPE. docs/quant.md, section 9.
Status vmpack::tools::applyQuantTarget(const ConvertOptions &options,
                                       std::vector<TensorSource> &tensors,
                                       GgufMetadata &metadata) {
  auto warn = [&](const std::string &m) {
    if (options.warning)
      options.warning(m);
  };
  auto progress = [&](const std::string &m) {
    if (options.progress)
      options.progress(m);
  };
  QuantTarget target;
  if (options.dequantSplit) {
    target.kind = QuantTarget::Planar;
  } else if (options.quant) {
    std::optional<QuantTarget> parsed = parseQuantTarget(*options.quant);
    if (!parsed)
      return Status::invalidArgument("--quant=" + *options.quant +
                                     " names no quantization target");
    target = *parsed;
  } else {
    return Status::ok();
  }
  if (target.kind == QuantTarget::HfScheme)
    return Status::ok();
  std::vector<TensorSource> out;
  if (target.kind == QuantTarget::Planar) {
    for (TensorSource &t : tensors) {
      if (!t.info.isOpaque() ||
          !quant::hasGgmlPlanarForm(*t.info.ggmlBlockType)) {
        out.push_back(std::move(t));
        continue;
      }
      if (Status s = checkGgmlBlockTensor(t.info); !s)
        return s;
      const std::string key = planarRecordKey(t.info.name);
      eraseKey(metadata, key);
      metadata.push_back(
          {key, GgufValue::string(
                    quant::ggmlTypeTraits(*t.info.ggmlBlockType)->name)});
      progress("'" + t.info.name + "': ggml " +
               quant::ggmlTypeTraits(*t.info.ggmlBlockType)->name +
               " -> planar");
      for (TensorSource &p : planarSplit(t, options.dequantSplit))
        out.push_back(std::move(p));
    }
  } else {
    // Planar sets: NAME.q with its parts beside it, of the type recorded
    // for NAME, else (unrecorded) the one type --quant names or, for
    // --quant=ggml, the one type whose planar form they fit.
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < tensors.size(); ++i)
      byName.emplace(tensors[i].info.name, i);
    const std::string prefix = planarRecordKey("");
    for (const GgufKeyValue &kv : metadata)
      if (kv.key.compare(0, prefix.size(), prefix) == 0 &&
          !byName.count(kv.key.substr(prefix.size()) + ".q"))
        return Status::formatError(
            "metadata key " + quoteName(kv.key) +
            " records a planar set, but there is no tensor " +
            quoteName(kv.key.substr(prefix.size()) + ".q"));
    std::vector<bool> taken(tensors.size(), false);
    std::map<size_t, TensorSource> joined; // at the codes' position
    for (size_t i = 0; i < tensors.size(); ++i) {
      const std::string &full = tensors[i].info.name;
      if (tensors[i].info.isOpaque() || full.size() < 3 ||
          full.compare(full.size() - 2, 2, ".q") != 0)
        continue;
      const std::string name = full.substr(0, full.size() - 2);
      std::vector<quant::PlanarTensorInfo> infos;
      std::vector<size_t> members;
      for (size_t j = 0; j < tensors.size(); ++j) {
        const TensorInfo &t = tensors[j].info;
        if (t.name.compare(0, name.size() + 1, name + ".") != 0 || t.isOpaque())
          continue;
        std::optional<uint64_t> packed =
            storedSize(t.elementType, t.shape, Encoding::Packed);
        infos.push_back({t.name, planarTypeSpelling(t.elementType), t.shape,
                         packed ? *packed : t.length});
        members.push_back(j);
      }
      const std::string key = planarRecordKey(name);
      std::optional<uint32_t> type;
      if (hasKey(metadata, key)) {
        const std::string *value = stringValue(metadata, key);
        type = value ? parsePlanarRecord(*value) : std::nullopt;
        if (!type && value && *value == kHfPlanarRecord)
          return Status::unsupported(
              "metadata key " + quoteName(key) + " records " +
              quoteName(name + ".*") +
              " as a group planar set (a Hugging Face checkpoint's weight, "
              "docs/quant.md section 8), which is not joined into ggml "
              "blocks; --quant=planar keeps it");
        if (!type)
          return Status::formatError(
              "metadata key " + quoteName(key) + " is " +
              (value ? quoteName(*value) : std::string("not a string")) +
              ", not the name of a ggml type with a planar form "
              "(docs/quant.md, section 9)");
        if (Status s = quant::checkPlanarSet(*type, name, infos); !s)
          return s.withContext("the planar set recorded by " + quoteName(key) +
                               ": ");
      } else if (target.kind == QuantTarget::Ggml) {
        if (quant::checkPlanarSet(target.ggmlType, name, infos).isOk())
          type = target.ggmlType;
      } else {
        for (const quant::GgmlTypeTraits &g : quant::ggmlTypes())
          if (quant::hasGgmlPlanarForm(g.type) &&
              quant::checkPlanarSet(g.type, name, infos).isOk()) {
            if (type)
              return Status::formatError("tensors " + quoteName(name + ".*") +
                                         " fit the planar forms of both " +
                                         quant::ggmlTypeTraits(*type)->name +
                                         " and " + g.name + ", and no " +
                                         quoteName(key) +
                                         " says which: give --quant=TYPE");
            type = g.type;
          }
      }
      if (!type)
        continue;
      const std::vector<quant::PlanarPart> &layout =
          quant::ggmlPlanarParts(*type);
      std::vector<TensorSource> parts;
      for (const quant::PlanarPart &p : layout) {
        size_t j = byName.at(name + "." + p.suffix);
        TensorSource part = tensors[j];
        uint64_t packed = *storedSize(part.info.elementType, part.info.shape,
                                      Encoding::Packed);
        if (part.info.encoding != Encoding::Packed &&
            !(part.info.length == packed &&
              part.info.elementType.scalarBits() % 8 == 0))
          part = reencoded(std::move(part), Encoding::Packed, packed);
        parts.push_back(std::move(part));
      }
      for (size_t j : members)
        taken[j] = true;
      eraseKey(metadata, key);
      progress("'" + name + "': planar " + quant::ggmlTypeTraits(*type)->name +
               " -> ggml blocks");
      joined.emplace(i, joinPlanar(*type, name, std::move(parts)));
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
      auto it = joined.find(i);
      if (it != joined.end())
        out.push_back(std::move(it->second));
      else if (!taken[i])
        out.push_back(std::move(tensors[i]));
    }
    if (target.kind == QuantTarget::Ggml)
      for (TensorSource &t : out) {
        if (!t.info.isOpaque() || *t.info.ggmlBlockType == target.ggmlType)
          continue;
        const std::string from =
            std::string("ggml ") +
            quant::ggmlTypeTraits(*t.info.ggmlBlockType)->name;
        RoundingReport report;
        StatusOr<TensorSource> converted = convertGgmlTensor(
            t, target.ggmlType, options.allowRounding, &report);
        if (!converted)
          return converted.status();
        if (report.roundedBlocks)
          warn(roundingReportText(t.info.name, from, target.ggmlType,
                                  t.info.shape, report));
        else
          progress("'" + t.info.name + "': " + from + " -> " +
                   quant::ggmlTypeTraits(target.ggmlType)->name + ", exact");
        t = std::move(*converted);
      }
  }
  std::set<std::string> names;
  for (const TensorSource &t : out)
    if (!names.insert(t.info.name).second)
      return Status::invalidArgument("tensor " + quoteName(t.info.name) +
                                     " would be written twice (a planar "
                                     "part's name is taken)");
  tensors = std::move(out);
  return Status::ok();
}

StatusOr<Format>
vmpack::tools::checkOutputOptions(const ConvertOptions &options) {
  if (options.output.empty())
    return Status::invalidArgument("no output given (-o OUT)");
  StatusOr<Format> to =
      isModelDirectoryOutput(options.output)
          ? StatusOr<Format>(Format::Safetensors)
          : outputFormat(options.output, options.to, "--to", Tool::Convert);
  if (!to)
    return to.status();
  if (options.dense && !isMlir(*to))
    return notFor("--dense", *to, "it is for MLIR outputs (.mlir, .mlirbc)");
  if ((options.onnxTemplate || options.onnxInline) && *to != Format::Onnx)
    return notFor(options.onnxTemplate ? "--onnx-template" : "--onnx-inline",
                  *to, "it is for ONNX outputs (.onnx)");
  if (*to == Format::Onnx && isStdout(options.output) && !options.onnxInline)
    return Status::invalidArgument(
        "-o - is one stream, and an ONNX model's data goes to a second file: "
        "name the model, or add --onnx-inline");
  if (options.maxShardSize && *to == Format::Onnx)
    return Status::invalidArgument(
        "--max-shard-size: ONNX keeps large data in external data files, "
        "not shards; write one .onnx with its .data file");
  if (options.maxShardSize && (*to == Format::Irpa || isMlir(*to)))
    return Status::invalidArgument(
        std::string("--max-shard-size: ") +
        (isMlir(*to) ? "MLIR has no sharding convention; write one "
                       "module per input instead"
                     : "IREE's .irpa has no sharding convention; write "
                       "one .irpa per input instead") +
        " (shards are written for .safetensors, .gguf and .vmpk)");
  if (options.maxShardSize && isStdout(options.output))
    return Status::invalidArgument(
        "--max-shard-size writes several files, and -o - is one stream: "
        "name the first file instead");
  if (options.moduleName &&
      (*to == Format::Safetensors || *to == Format::Gguf ||
       *to == Format::Irpa || *to == Format::Onnx))
    return notFor("--module-name", *to,
                  "it names a .vmpk or MLIR module, and this format has "
                  "no module name");
  if (options.alignment && *to == Format::Onnx && options.onnxInline)
    return notFor("--alignment", *to,
                  "it aligns tensors in the external data file, and "
                  "--onnx-inline writes none");
  if (options.alignment && (*to == Format::Safetensors || *to == Format::Irpa))
    return notFor("--alignment", *to,
                  *to == Format::Irpa
                      ? "IREE's builder layout aligns every entry to 64"
                      : "safetensors stores tensors back to back, unpadded");
  if (options.alignment && *to == Format::Gguf && *options.alignment < 8)
    return Status::invalidArgument(
        "--alignment=" + std::to_string(*options.alignment) +
        ": GGUF alignment must be a multiple of 8 (general.alignment)");
  if (options.encoding && *to != Format::Vmpk)
    return notFor("--encoding", *to,
                  "it chooses how a .vmpk stores sub-byte elements; other "
                  "formats have one layout (docs/interop.md)");
  return *to;
}

StatusOr<Format>
vmpack::tools::checkConvertOptions(const ConvertOptions &options) {
  if (options.inputs.empty())
    return Status::invalidArgument("no input given");
  if (options.from) {
    std::optional<Format> f = parseFormat(*options.from);
    if (!f)
      return Status::invalidArgument("--from=" + *options.from +
                                     ": vmpack-convert reads " +
                                     formatList(toolInfo(Tool::Convert).reads));
  }
  StatusOr<Format> to = checkOutputOptions(options);
  if (!to)
    return to.status();
  if (isModelDirectoryOutput(options.output)) {
    if (options.to && parseFormat(*options.to) != Format::Safetensors)
      return Status::invalidArgument(
          "-o " + options.output +
          " writes a model directory, whose weights are safetensors; --to=" +
          *options.to + " does not apply");
    std::optional<QuantTarget> t =
        options.quant ? parseQuantTarget(*options.quant) : std::nullopt;
    if (options.quant && t && t->kind == QuantTarget::Planar)
      return Status::invalidArgument(
          "--quant=planar -o " + options.output +
          ": a model directory is a Hugging Face checkpoint, and no Hugging "
          "Face loader reads planar sets; write them to one file (-o "
          "FILE.safetensors, .vmpk, .irpa or .gguf), or give a Hugging "
          "Face scheme (--quant=gptq, gptq_v2, awq, compressed-tensors or "
          "mlx) for a model directory");
    if (options.quant && (!t || t->kind != QuantTarget::HfScheme))
      return Status::invalidArgument(
          "--quant=" + *options.quant +
          ": a model directory holds safetensors "
          "weights, which have no ggml block types; write -o FILE.gguf");
  }
  if (options.dequantSplit && options.dequantize)
    return Status::invalidArgument(
        "--dequant-split and --dequantize exclude each other");
  if (options.quant && !parseQuantTarget(*options.quant))
    return Status::invalidArgument(
        "--quant=" + *options.quant +
        ": the targets are planar (ggml blocks split into NAME.q, NAME.d, "
        "...), ggml (planar sets joined into the type they record), a ggml "
        "type with a planar form (q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl, "
        "mxfp4, nvfp4, q2_k, q3_k, q4_k, q5_k, q6_k; exact or refused), and "
        "gptq, gptq_v2, awq (Hugging Face checkpoints)");
  if (options.threads && !options.dequantize)
    return Status::invalidArgument(
        "--threads: vmpack-convert's threads decode --dequantize's blocks; "
        "without --dequantize it does its work on one thread");
  if (options.threads && *options.threads > kMaxThreads)
    return Status::invalidArgument("--threads needs a number from 0 (all "
                                   "cores) to " +
                                   std::to_string(kMaxThreads));
  if (options.quant && options.dequantize)
    return Status::invalidArgument(
        "--quant and --dequantize exclude each other");
  if (options.quant && options.dequantSplit)
    return Status::invalidArgument(
        "--dequant-split is --quant=planar; give one of them");
  if (options.allowRounding &&
      (!options.quant ||
       parseQuantTarget(*options.quant)->kind != QuantTarget::Ggml))
    return Status::invalidArgument(
        "--allow-rounding is for --quant=TYPE with a ggml type (q4_0, "
        "q4_1, q5_0, q5_1, q8_0 are the types vmpack rounds into)");
  if ((options.tokenizerPre || options.noVocab) && *to != Format::Gguf)
    return notFor(options.noVocab ? "--no-vocab" : "--tokenizer-pre", *to,
                  "it is for a Hugging Face model folder becoming a "
                  "llama.cpp GGUF model");
  if (options.tokenizerPre && options.noVocab)
    return Status::invalidArgument(
        "--tokenizer-pre and --no-vocab exclude each other");
  if (options.tokenizerPre && options.tokenizerPre->empty())
    return Status::invalidArgument("--tokenizer-pre needs a name");
  return *to;
}

StatusOr<ConvertResult>
vmpack::tools::convertFiles(const ConvertOptions &options) {
  StatusOr<Format> checked = checkConvertOptions(options);
  if (!checked)
    return checked.status();
  const Format to = *checked;
  std::optional<Format> from =
      options.from ? parseFormat(*options.from) : std::nullopt;
  auto warn = [&](const std::string &m) {
    if (options.warning)
      options.warning(m);
  };
  auto progress = [&](const std::string &m) {
    if (options.progress)
      options.progress(m);
  };
  auto needMlir = [&](const std::string &path) -> Status {
    if (options.mlir)
      return Status::ok();
    return Status::unsupported(
        "'" + path +
        "': this vmpack-convert was built without MLIR "
        "(VMPACK_ENABLE_MLIR=OFF), so it cannot read or write "
        ".mlir and .mlirbc files; rebuild with "
        "-DVMPACK_ENABLE_MLIR=ON");
  };
  if (isMlir(to))
    if (Status s = needMlir(options.output); !s)
      return s;

  // Metadata: typed pairs in input order; GGUF keeps them as they are,
  // the string-keyed formats hold values that are not strings under
  // "vmpack.gguf." keys (docs/interop.md).
  MetadataMerger merger;
  ConvertResult result;
  std::vector<std::unique_ptr<WeightFile>> files;
  std::vector<std::unique_ptr<MlirInput>> mlirFiles;
  std::vector<TensorSource> tensors;
  std::map<std::string, std::string> owner; // tensor name -> input
  auto addSources = [&](std::vector<TensorSource> sources,
                        const std::string &path) -> Status {
    for (TensorSource &source : sources) {
      std::vector<TensorSource> parts;
      if (options.dequantize && source.info.isOpaque()) {
        StatusOr<TensorSource> floats = dequantizeTensor(
            source, *options.dequantize, options.threads.value_or(1));
        if (!floats)
          return floats.status();
        parts.push_back(std::move(*floats));
      } else {
        parts.push_back(std::move(source));
      }
      for (TensorSource &s : parts) {
        auto [it, added] = owner.emplace(s.info.name, path);
        if (!added)
          return Status::invalidArgument("tensor '" + s.info.name +
                                         "' is in both '" + it->second +
                                         "' and '" + path + "'");
        tensors.push_back(std::move(s));
      }
    }
    return Status::ok();
  };
  std::vector<std::unique_ptr<HfQuantModel>> hfModels;
  // The quantized linears written in a Hugging Face scheme, for -o DIR/'s
  // config.json.
  std::vector<const HfQuantLinear *> hfOut;
  std::map<std::string, SchemeCounts> schemes;
  // A checkpoint's quantized linears, each written as --quant,
  // --dequantize and the output say; the other tensors pass through.
  // `opened` is a Hugging Face model directory (or a file named with
  // --scheme) or a file of group planar sets (openHfPlanarModel, whose
  // metadata the merger has already).
  auto addHfModel =
      [&](const std::string &path,
          StatusOr<std::unique_ptr<HfQuantModel>> opened) -> Status {
    if (!opened)
      return opened.status();
    HfQuantModel &m = **opened;
    const bool planarInput = m.config.method == HfQuantMethod::Planar;
    for (const std::string &w : m.warnings)
      warn(w);
    if (Status s = merger.addStrings(m.metadata, path); !s)
      return s;
    const char *method = hfQuantMethodName(m.config.method);
    SchemeCounts &counts = schemes[method];
    std::optional<uint32_t> target;
    std::optional<QuantTarget> parsedTarget;
    if (options.quant)
      parsedTarget = parseQuantTarget(*options.quant);
    // --quant=planar: each linear in the group planar form (docs/quant.md
    // section 8, "Planar"), MLX mxfp4 as ggml MXFP4 blocks, which
    // applyQuantTarget then splits.
    const bool planar =
        parsedTarget && parsedTarget->kind == QuantTarget::Planar;
    // --quant=ggml joins a group planar set into the ggml type a GGUF
    // output takes by default (hfGgmlTarget).
    const bool defaultGgml = planarInput && parsedTarget &&
                             parsedTarget->kind == QuantTarget::Recorded;
    if (options.quant && !planar && !defaultGgml) {
      target = hfQuantTarget(*options.quant);
      if (!target)
        return notForHf(*options.quant, path);
    }
    // A group planar set kept as stored keeps its record; the others are
    // dropped with the sets they record, and written again for what is
    // written as a planar set.
    StringMetadata planarRecords;
    if (planarInput) {
      for (const HfQuantLinear &l : m.linears)
        merger.erase(planarRecordKey(l.weight.name));
      if (isModelDirectoryOutput(options.output) && !options.quant &&
          !options.dequantize && !m.linears.empty())
        return Status::invalidArgument(
            "'" + path + "': tensor " + quoteName(m.linears[0].weight.name) +
            " is a group planar set, and a model directory holds a Hugging "
            "Face scheme: give --quant=gptq, gptq_v2, awq, "
            "compressed-tensors or mlx (or --dequantize), or write -o "
            "FILE.safetensors to keep the planar sets");
    }
    // An ONNX template's MatMulNBits nodes take the linears named after
    // their weights.
    std::map<std::string, MatMulNBitsTarget> nbits;
    if (to == Format::Onnx && options.onnxTemplate && !options.dequantize &&
        !target) {
      StatusOr<std::map<std::string, MatMulNBitsTarget>> found =
          matMulNBitsTargets(*options.onnxTemplate);
      if (!found)
        return found.status();
      nbits = std::move(*found);
    }
    std::vector<TensorSource> sources;
    for (const HfQuantModel::Entry &e : m.order) {
      if (e.linear < 0) {
        sources.push_back(m.others[e.other]);
        ++counts.others;
        continue;
      }
      const HfQuantLinear &l = m.linears[size_t(e.linear)];
      auto node = nbits.find(l.weight.name);
      if (node != nbits.end()) {
        StatusOr<std::vector<TensorSource>> parts =
            hfLinearAsMatMulNBits(l, node->second);
        if (!parts)
          return parts.status().withContext("'" + path + "': ");
        for (TensorSource &t : *parts)
          sources.push_back(std::move(t));
        ++counts.rewritten["MatMulNBits"];
      } else if (planar && !options.dequantize && l.mxfp4) {
        StatusOr<TensorSource> blocks = hfLinearAsGgml(l, quant::kGgmlMXFP4);
        if (!blocks)
          return blocks.status().withContext("'" + path + "': ");
        sources.push_back(std::move(*blocks));
        ++counts.rewritten["planar (MXFP4)"];
      } else if (planar && !options.dequantize) {
        StatusOr<std::vector<TensorSource>> parts = hfLinearAsPlanar(l);
        if (!parts)
          return parts.status().withContext("'" + path + "': ");
        for (TensorSource &t : *parts)
          sources.push_back(std::move(t));
        planarRecords.push_back(
            {planarRecordKey(l.weight.name), kHfPlanarRecord});
        ++counts.rewritten["planar"];
      } else if (options.dequantize) {
        StatusOr<TensorSource> f = hfLinearAsFloats(
            l, *options.dequantize, options.threads.value_or(1));
        if (!f)
          return f.status();
        sources.push_back(std::move(*f));
        ++counts.dequantized;
      } else if ((target && *target != 0) || defaultGgml ||
                 (!target && !planarInput && to == Format::Gguf)) {
        StatusOr<HfGgmlBlocks> blocks = hfLinearToGgml(
            l, target ? std::optional<uint32_t>(*target) : std::nullopt,
            options.allowRounding, path);
        if (!blocks)
          return blocks.status();
        const char *name = quant::ggmlTypeTraits(blocks->ggmlType)->name;
        if (!blocks->rounding.empty()) {
          warn(blocks->rounding);
          ++counts.rounded[name];
        } else {
          ++counts.repacked[name];
        }
        sources.push_back(std::move(blocks->blocks));
      } else if (target) {
        StatusOr<std::vector<TensorSource>> parts =
            hfLinearAsScheme(l, *options.quant);
        if (!parts)
          return parts.status().withContext("'" + path + "': ");
        for (TensorSource &t : *parts)
          sources.push_back(std::move(t));
        ++counts.rewritten[*options.quant];
        hfOut.push_back(&l);
      } else {
        for (TensorSource &t : hfLinearStored(l))
          sources.push_back(std::move(t));
        if (planarInput)
          planarRecords.push_back(
              {planarRecordKey(l.weight.name), kHfPlanarRecord});
        ++counts.stored;
        hfOut.push_back(&l);
      }
    }
    if (Status s = merger.addStrings(planarRecords, path); !s)
      return s;
    result.inputFiles += m.files.size();
    hfModels.push_back(std::move(*opened));
    return addSources(std::move(sources), path);
  };
  std::vector<std::shared_ptr<HfQuantModel>> llamaQuantModels;
  for (const std::string &path : options.inputs) {
    if (!from && !options.scheme &&
        (isDenseHfModelFolder(path) ||
         (to == Format::Gguf && isLlamaFamilyFolder(path)))) {
      // A Hugging Face llama-family model folder (or any dense one, to be
      // told what is converted): llama.cpp's names, metadata and
      // vocabulary (docs/llama.md). Other quantized folders are read
      // below.
      if (to != Format::Gguf)
        return Status::unsupported(
            "'" + path +
            "' is a Hugging Face model folder: vmpack-convert writes it as "
            "a llama.cpp GGUF model (-o MODEL.gguf), not as " +
            formatName(to));
      if (options.inputs.size() != 1)
        return Status::invalidArgument(
            "'" + path +
            "' is a Hugging Face model folder: convert it alone (one "
            "folder is one model)");
      progress("reading '" + path + "' as a Hugging Face model folder");
      LlamaGgufOptions llama;
      llama.tokenizerPre = options.tokenizerPre;
      llama.noVocab = options.noVocab;
      llama.dequantize = options.dequantize;
      llama.threads = options.threads.value_or(1);
      llama.allowRounding = options.allowRounding;
      if (options.quant) {
        llama.ggmlType = hfQuantTarget(*options.quant);
        if (!llama.ggmlType)
          return notForHf(*options.quant, path);
        if (llama.ggmlType == 0u)
          return Status::unsupported(
              "--quant=" + *options.quant +
              ": llama.cpp runs ggml blocks, not Hugging Face's " +
              *options.quant + " tensors; use q4_0, q4_1, q5_0, q5_1 or q8_0");
      }
      StatusOr<LlamaGgufPlan> plan = planLlamaGguf(path, llama);
      if (!plan)
        return plan.status();
      for (const std::string &w : plan->warnings)
        warn(w);
      if (plan->quantModel)
        llamaQuantModels.push_back(plan->quantModel);
      if (Status s = merger.addGguf(plan->metadata, path); !s)
        return s;
      if (Status s = addSources(std::move(plan->tensors), path); !s)
        return s;
      for (std::unique_ptr<WeightFile> &file : plan->files)
        files.push_back(std::move(file));
      continue;
    }
    if (options.tokenizerPre || options.noVocab)
      return Status::invalidArgument(
          std::string(options.noVocab ? "--no-vocab" : "--tokenizer-pre") +
          " is for a dense Hugging Face model folder, and '" + path +
          "' is not one (a folder with a config.json and no quantization "
          "config)");
    if (options.scheme || isHfModelDirectory(path)) {
      progress("reading '" + path + "' as a Hugging Face quantized checkpoint");
      if (Status s = addHfModel(path, openHfQuantModel(path, options.scheme));
          !s)
        return s;
      continue;
    }
    StatusOr<Format> format = inputFormat(path, Tool::Convert, from);
    if (!format)
      return format.status();
    progress("reading '" + path + "' as " + formatName(*format));
    if (isMlir(*format)) {
      if (Status s = needMlir(path); !s)
        return s;
      StatusOr<std::unique_ptr<MlirInput>> file = options.mlir->open(path);
      if (!file)
        return file.status();
      if (Status s = merger.addStrings((*file)->metadata, path); !s)
        return s;
      if (!hfPlanarRecords((*file)->metadata).empty()) {
        StatusOr<std::unique_ptr<HfQuantModel>> model =
            openHfPlanarModel((*file)->tensors, (*file)->metadata, path);
        mlirFiles.push_back(std::move(*file));
        if (Status s = addHfModel(path, std::move(model)); !s)
          return s;
        continue;
      }
      if (Status s = addSources(std::move((*file)->tensors), path); !s)
        return s;
      mlirFiles.push_back(std::move(*file));
      continue;
    }
    StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
        std::vector<std::unique_ptr<WeightFile>>();
    if (*format == Format::Onnx) {
      OnnxModel parsed;
      StatusOr<std::unique_ptr<WeightFile>> model =
          openOnnx(path, OnnxLimits(), &parsed);
      if (!model)
        return model.status();
      if (options.dequantize) {
        // MatMulNBits and 4-bit DequantizeLinear weights become floats
        // under the codes' name; their scales and zero points go.
        StatusOr<std::vector<OnnxQuantizedWeight>> quantized =
            onnxQuantizedWeights(parsed, **model);
        if (!quantized)
          return quantized.status().withContext("'" + path + "': ");
        std::vector<TensorSource> sources = (*model)->sources();
        std::map<int64_t, TensorSource> replaced;
        std::set<int64_t> dropped;
        for (const OnnxQuantizedWeight &w : *quantized) {
          replaced[w.codes] = onnxDequantizedSource(
              w, **model, *options.dequantize, options.threads.value_or(1));
          dropped.insert(w.scales);
          if (w.zeroPoints >= 0)
            dropped.insert(w.zeroPoints);
          progress("'" + w.weight.name +
                   "': " + quant::describe(w.weight.scheme) + " -> " +
                   quant::floatTypeName(*options.dequantize));
        }
        std::vector<TensorSource> kept;
        for (size_t i = 0; i < sources.size(); ++i) {
          auto it = replaced.find(int64_t(i));
          if (it != replaced.end())
            kept.push_back(std::move(it->second));
          else if (!dropped.count(int64_t(i)))
            kept.push_back(std::move(sources[i]));
        }
        if (Status st = merger.addStrings((*model)->stringMetadata, path); !st)
          return st;
        if (Status st = addSources(std::move(kept), path); !st)
          return st;
        files.push_back(std::move(*model));
        continue;
      }
      set->push_back(std::move(*model));
    } else {
      set = openWeightSet(path, *formatInfo(*format).fileFormat);
    }
    if (!set)
      return set.status();
    for (std::unique_ptr<WeightFile> &file : *set) {
      Status added = file->format == FileFormat::Gguf
                         ? merger.addGguf(file->ggufMetadata, file->path)
                         : merger.addStrings(file->stringMetadata, file->path);
      if (!added)
        return added;
    }
    // Group planar sets (docs/quant.md section 8, "Planar") are quantized
    // weights, read as a checkpoint's linears.
    if (!hfPlanarRecords(*set).empty()) {
      if (Status s = addHfModel(path, openHfPlanarModel(std::move(*set), path));
          !s)
        return s;
      continue;
    }
    for (std::unique_ptr<WeightFile> &file : *set) {
      if (Status s = addSources(file->sources(), file->path); !s)
        return s;
      files.push_back(std::move(file));
    }
  }

  // A Hugging Face scheme is written from quantized linears only; with
  // none in any input there is nothing to write as it.
  if (options.quant &&
      parseQuantTarget(*options.quant)->kind == QuantTarget::HfScheme) {
    size_t linears = 0;
    for (const auto &m : hfModels)
      linears += m->linears.size();
    if (linears == 0)
      return Status::invalidArgument(
          "--quant=" + *options.quant +
          ": no input holds quantized weights to write as " + *options.quant +
          " (a Hugging Face checkpoint's, or group planar sets recorded by "
          "vmpack.planar.NAME = \"group\", which .irpa files do not keep)");
  }
  if (Status s = applyQuantTarget(options, tensors, merger.merged()); !s)
    return s;
  result.format = to;
  result.tensors = tensors.size();
  result.inputFiles += files.size() + mlirFiles.size();
  for (const auto &[name, c] : schemes) {
    std::string line = name + ":";
    bool any = false;
    auto add = [&](size_t n, const std::string &what) {
      if (!n)
        return;
      line +=
          std::string(any ? "," : "") + " " + std::to_string(n) + " " + what;
      any = true;
    };
    for (const auto &[type, n] : c.repacked)
      add(n, (n == 1 ? "weight" : "weights") +
                 std::string(" repacked exactly to ") + type);
    for (const auto &[type, n] : c.rounded)
      add(n, (n == 1 ? "weight" : "weights") +
                 std::string(" requantized (rounded) to ") + type);
    for (const auto &[scheme, n] : c.rewritten)
      add(n, (n == 1 ? "weight" : "weights") +
                 std::string(" written exactly as ") + scheme);
    add(c.stored,
        c.stored == 1 ? "weight kept as stored" : "weights kept as stored");
    add(c.dequantized,
        c.dequantized == 1
            ? "weight dequantized to " +
                  std::string(quant::floatTypeName(*options.dequantize))
            : "weights dequantized to " +
                  std::string(quant::floatTypeName(*options.dequantize)));
    add(c.others, c.others == 1 ? "other tensor passed through"
                                : "other tensors passed through");
    result.summary.push_back(line);
  }
  if (isModelDirectoryOutput(options.output)) {
    if (Status s = writeModelDirectory(options, tensors, merger.merged(),
                                       hfModels, hfOut, result);
        !s)
      return s;
    return result;
  }
  StatusOr<std::vector<std::string>> written =
      writeTensorFile(options, std::move(tensors), merger.merged());
  if (!written)
    return written.status();
  result.files = std::move(*written);
  return result;
}

StatusOr<std::vector<std::string>>
vmpack::tools::writeTensorFile(const ConvertOptions &options,
                               std::vector<TensorSource> tensors,
                               const GgufMetadata &metadata) {
  StatusOr<Format> checked = checkOutputOptions(options);
  if (!checked)
    return checked.status();
  const Format to = *checked;
  if (isModelDirectoryOutput(options.output))
    return Status::invalidArgument(
        "'" + options.output +
        "' names a directory: a model directory is written from a Hugging "
        "Face model's files");
  if (isMlir(to) && !options.mlir)
    return Status::unsupported(
        "'" + options.output +
        "': this build has no MLIR (VMPACK_ENABLE_MLIR=OFF), so it cannot "
        "write .mlir and .mlirbc files; rebuild with -DVMPACK_ENABLE_MLIR=ON");
  auto warn = [&](const std::string &m) {
    if (options.warning)
      options.warning(m);
  };
  if (to == Format::Vmpk)
    if (Status s =
            applyEncoding(tensors, options.encoding.value_or(Encoding::Packed));
        !s)
      return s;
  StatusOr<OutputPath> out = OutputPath::create(options.output, to);
  if (!out)
    return out.status();
  const std::string &path = out->path();
  std::vector<std::string> files;
  auto sharded = [&](StatusOr<std::vector<std::string>> written) {
    if (!written)
      return written.status();
    files = std::move(*written);
    return Status::ok();
  };
  GgufMetadata gguf = metadata;
  StringMetadata strings;
  if (to != Format::Gguf) {
    StatusOr<StringMetadata> asStrings = ggufToStringMetadata(gguf);
    if (!asStrings)
      return asStrings.status();
    strings = std::move(*asStrings);
  }
  const std::optional<uint64_t> &maxShard = options.maxShardSize;
  Status written = Status::ok();
  switch (to) {
  case Format::Mlir:
  case Format::Mlirbc: {
    MlirOutputOptions o;
    o.bytecode = to == Format::Mlirbc;
    o.dense = options.dense;
    o.alignment = options.alignment.value_or(16);
    o.moduleName = options.moduleName.value_or("");
    o.producer = "vmpack-convert";
    written = options.mlir->write(path, tensors, strings, o);
  } break;
  case Format::Safetensors:
    written = maxShard ? sharded(writeShardedSafetensors(path, tensors, strings,
                                                         *maxShard))
                       : writeSafetensors(path, tensors, strings);
    break;
  case Format::Gguf:
    if (options.alignment) {
      for (auto it = gguf.begin(); it != gguf.end(); ++it)
        if (it->key == kGgufAlignmentKey) {
          gguf.erase(it);
          break;
        }
      gguf.push_back({std::string(kGgufAlignmentKey),
                      GgufValue::uint32(*options.alignment)});
    }
    written = maxShard
                  ? sharded(writeShardedGguf(path, tensors, gguf, *maxShard))
                  : writeGguf(path, tensors, gguf);
    break;
  case Format::Irpa:
    if (!gguf.empty())
      warn(std::to_string(gguf.size()) +
           " metadata entries have no .irpa form and are not written");
    written = writeIrpa(path, tensors);
    break;
  case Format::Onnx: {
    OnnxWriteOptions o;
    o.templatePath = options.onnxTemplate.value_or("");
    o.inlineData = options.onnxInline;
    o.alignment = options.alignment.value_or(o.alignment);
    if (o.templatePath.empty())
      o.metadata = strings;
    else if (!strings.empty())
      warn(std::to_string(strings.size()) +
           " metadata entries are not written; the template's "
           "metadata_props are kept");
    written = writeOnnx(path, tensors, o);
  } break;
  case Format::Vmpk: {
    std::string name = options.moduleName.value_or(isStdout(options.output)
                                                       ? std::string("module")
                                                       : stem(options.output));
    uint32_t align =
        options.alignment.value_or(archive::kDefaultSegmentAlignment);
    written = maxShard ? sharded(writeShardedVmpk(path, tensors, strings, name,
                                                  align, *maxShard))
                       : writeVmpk(path, tensors, strings, name, align);
  } break;
  }
  if (!written)
    return written;
  if (Status s = out->finish(); !s)
    return s;
  if (files.empty())
    files.push_back(out->display());
  return files;
}
