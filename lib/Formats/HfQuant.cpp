//===- HfQuant.cpp - Hugging Face quantized checkpoints -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The layouts (docs/quant.md section 8) come from the packers of AutoGPTQ
// (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py, pack()), GPTQModel
// (gptqmodel/utils/model.py, convert_gptq_v1_to_v2_format) and AutoAWQ
// (awq/modules/linear/gemm.py, WQLinear_GEMM.from_linear); the code here is
// vmpack's own.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/HfQuant.h"

#include "vmpack/Formats/DequantizeTensor.h"

#include "BoundedJson.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Quant/GgmlTypes.h"
#include "vmpack/Quant/HfRepack.h"
#include "vmpack/Quant/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <functional>
#include <limits>
#include <map>
#include <sys/stat.h>

using namespace vmpack;
using namespace vmpack::formats;
using json = nlohmann::json;

const char *vmpack::formats::hfQuantMethodName(HfQuantMethod method) {
  switch (method) {
  case HfQuantMethod::Gptq:
    return "gptq";
  case HfQuantMethod::Awq:
    return "awq";
  case HfQuantMethod::CompressedTensors:
    return "compressed-tensors";
  case HfQuantMethod::Mlx:
    return "mlx";
  case HfQuantMethod::Bitsandbytes:
    return "bitsandbytes";
  case HfQuantMethod::Planar:
    return "planar";
  }
  return "?";
}

// bitsandbytes' tables as its dequantization kernels hold them
// (csrc/kernels.cu nf4_dequantization_lut, fp4_dequantization_lut times the
// sign bit; csrc/cpu_ops.cpp nf4_lut, fp4_lut).
static constexpr float kBnbNf4[16] = {-1.0f,
                                      -0.6961928009986877f,
                                      -0.5250730514526367f,
                                      -0.39491748809814453f,
                                      -0.28444138169288635f,
                                      -0.18477343022823334f,
                                      -0.09105003625154495f,
                                      0.0f,
                                      0.07958029955625534f,
                                      0.16093020141124725f,
                                      0.24611230194568634f,
                                      0.33791524171829224f,
                                      0.44070982933044434f,
                                      0.5626170039176941f,
                                      0.7229568362236023f,
                                      1.0f};
static constexpr float kBnbFp4[16] = {
    0.0f,         0.005208333333f, 0.66666667f,  1.0f,  0.33333333f,
    0.5f,         0.16666667f,     0.25f,        -0.0f, -0.005208333333f,
    -0.66666667f, -1.0f,           -0.33333333f, -0.5f, -0.16666667f,
    -0.25f};

const float *vmpack::formats::bnbCodeValues(std::string_view quantType) {
  return quantType == "nf4" ? kBnbNf4 : quantType == "fp4" ? kBnbFp4 : nullptr;
}

namespace {

Status configError(const std::string &where, const std::string &what) {
  return Status::formatError("'" + where + "': " + what);
}

/// An integer field, or nullopt when absent; a field of another type is an
/// error.
StatusOr<std::optional<int64_t>> intField(const json &o, const char *key,
                                          const std::string &where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return std::optional<int64_t>();
  if (!it->is_number_integer())
    return configError(where, std::string("\"") + key +
                                  "\" is not an integer: " + it->dump());
  return std::optional<int64_t>(it->get<int64_t>());
}

StatusOr<std::optional<bool>> boolField(const json &o, const char *key,
                                        const std::string &where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return std::optional<bool>();
  if (!it->is_boolean())
    return configError(where, std::string("\"") + key +
                                  "\" is not true or false: " + it->dump());
  return std::optional<bool>(it->get<bool>());
}

StatusOr<std::optional<std::string>> stringField(const json &o, const char *key,
                                                 const std::string &where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return std::optional<std::string>();
  if (!it->is_string())
    return configError(where, std::string("\"") + key +
                                  "\" is not a string: " + it->dump());
  return std::optional<std::string>(it->get<std::string>());
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// One compressed-tensors config group's weight arguments
/// (QuantizationArgs, quant_args.py: num_bits 8, type int, symmetric,
/// strategy from group_size when absent).
StatusOr<HfCtWeightArgs> parseCtWeights(const json &w, const std::string &key,
                                        const std::string &format,
                                        const std::string &where) {
  const std::string at = "config group \"" + key + "\" weights: ";
  HfCtWeightArgs a;
  a.group = key;
  a.format = format;
  if (!w.is_object())
    return configError(where, at + "not an object");
  auto bits = intField(w, "num_bits", where);
  if (!bits)
    return bits.status();
  int64_t b = bits->value_or(8);
  auto type = stringField(w, "type", where);
  if (!type)
    return type.status();
  std::string t = lower(type->value_or("int"));
  a.floatType = t == "float";
  if (t != "int" && !a.floatType)
    return Status::unsupported("'" + where + "': " + at + "type \"" + t +
                               "\" is not read (int and float are)");
  if (a.floatType != (format == "float-quantized"))
    return Status::unsupported(
        "'" + where + "': " + at + "type \"" + t + "\" in " + format +
        " is not read (float-quantized holds float codes, the others int)");
  if (a.floatType && b != 8)
    return Status::unsupported("'" + where + "': " + at + "float num_bits " +
                               std::to_string(b) +
                               " is not read (FP8 E4M3, num_bits 8, is)");
  if (b < 2 || b > 8)
    return configError(where, at + "num_bits " + std::to_string(b) +
                                  " is not one vmpack reads (2..8)");
  if (format != "pack-quantized" && b != 8)
    return Status::unsupported("'" + where + "': " + at + "num_bits " +
                               std::to_string(b) + " in " + format +
                               " is not read (int8 codes are)");
  a.bits = unsigned(b);
  auto sym = boolField(w, "symmetric", where);
  if (!sym)
    return sym.status();
  a.symmetric = sym->value_or(true);
  if (a.floatType && !a.symmetric)
    return Status::unsupported("'" + where + "': " + at +
                               "asymmetric float codes are not read");
  auto group = intField(w, "group_size", where);
  if (!group)
    return group.status();
  auto strategy = stringField(w, "strategy", where);
  if (!strategy)
    return strategy.status();
  a.strategy = *strategy       ? lower(**strategy)
               : !*group       ? "tensor"
               : **group == -1 ? "channel"
                               : "group";
  if (a.strategy == "group") {
    if (!*group || **group <= 0)
      return configError(where, at + "strategy \"group\" needs a positive "
                                     "group_size");
    a.groupSize = **group;
  } else if (a.strategy == "block" && a.floatType) {
    auto bs = w.find("block_structure");
    if (bs == w.end() || !bs->is_array() || bs->size() != 2 ||
        !(*bs)[0].is_number_integer() || !(*bs)[1].is_number_integer() ||
        (*bs)[0].get<int64_t>() <= 0 || (*bs)[1].get<int64_t>() <= 0 ||
        (*bs)[0].get<int64_t>() > (int64_t(1) << 30) ||
        (*bs)[1].get<int64_t>() > (int64_t(1) << 30))
      return configError(where, at + "strategy \"block\" needs "
                                     "\"block_structure\", two positive "
                                     "sizes");
    a.blockRows = (*bs)[0].get<int64_t>();
    a.blockCols = (*bs)[1].get<int64_t>();
  } else if (a.strategy != "channel" && a.strategy != "tensor") {
    return Status::unsupported(
        "'" + where + "': " + at + "strategy \"" + a.strategy +
        "\" is not read (group, channel and tensor are; block for float "
        "codes)");
  }
  auto it = w.find("actorder");
  if (it != w.end() && !it->is_null()) {
    if (it->is_boolean())
      a.actorder = it->get<bool>();
    else if (it->is_string())
      a.actorder = true;
    else
      return configError(where, at +
                                    "\"actorder\" is not a string, true or "
                                    "false: " +
                                    it->dump());
  }
  return a;
}

/// compressed-tensors' quantization_config (quant_config.py
/// QuantizationConfig).
Status parseCompressedTensors(const json &q, HfQuantConfig &c) {
  const std::string &where = c.where;
  c.method = HfQuantMethod::CompressedTensors;
  auto format = stringField(q, "format", where);
  if (!format)
    return format.status();
  std::string global = format->value_or("dense");
  auto readable = [](const std::string &f) {
    return f == "pack-quantized" || f == "naive-quantized" ||
           f == "int-quantized" || f == "float-quantized";
  };
  auto groups = q.find("config_groups");
  if (groups == q.end() || !groups->is_object() || groups->empty())
    return configError(where, "a compressed-tensors config needs "
                              "\"config_groups\", an object of schemes");
  for (auto g = groups->begin(); g != groups->end(); ++g) {
    const json &v = g.value();
    if (v.is_array()) {
      // A preset (quant_scheme.py): the key names the scheme.
      HfCtWeightArgs a;
      a.group = g.key();
      a.format = global;
      a.strategy = "group";
      a.groupSize = 128;
      if (g.key() == "W4A16" || g.key() == "W4A16_ASYM") {
        a.bits = 4;
        a.symmetric = g.key() == "W4A16";
      } else if (g.key() == "W8A16") {
        a.bits = 8;
        a.strategy = "channel";
        a.groupSize = 0;
      } else {
        return Status::unsupported(
            "'" + where + "': the preset scheme \"" + g.key() +
            "\" is not read (W4A16, W4A16_ASYM and W8A16 are)");
      }
      if (!readable(a.format))
        return Status::unsupported("'" + where + "': format \"" + a.format +
                                   "\" is not read (pack-quantized, "
                                   "naive-quantized and float-quantized are)");
      c.ctGroups.push_back(a);
      continue;
    }
    if (!v.is_object())
      return configError(where, "config group \"" + g.key() +
                                    "\" is neither a scheme nor a list");
    auto w = v.find("weights");
    if (w == v.end() || w->is_null())
      continue; // activations only
    auto own = stringField(v, "format", where);
    if (!own)
      return own.status();
    std::string f = own->value_or(global);
    if (!readable(f))
      return Status::unsupported("'" + where + "': config group \"" + g.key() +
                                 "\" has format \"" + f +
                                 "\", which is not read (pack-quantized, "
                                 "naive-quantized and float-quantized are)");
    StatusOr<HfCtWeightArgs> a = parseCtWeights(*w, g.key(), f, where);
    if (!a)
      return a.status();
    c.ctGroups.push_back(std::move(*a));
  }
  if (c.ctGroups.empty())
    return configError(where, "no config group quantizes weights");
  c.bits = c.ctGroups.front().bits;
  c.groupSize = c.ctGroups.front().groupSize;
  c.sym = c.ctGroups.front().symmetric;
  return Status::ok();
}

/// One MLX bits/group-size pair (mlx/ops.cpp affine_quantize: bits 2, 3, 4,
/// 5, 6, 8; group sizes 32, 64, 128).
StatusOr<HfMlxLayer> parseMlxEntry(const json &o, const std::string &what,
                                   const std::string &where) {
  HfMlxLayer l;
  auto bits = intField(o, "bits", where);
  if (!bits)
    return bits.status();
  auto group = intField(o, "group_size", where);
  if (!group)
    return group.status();
  auto mode = stringField(o, "mode", where);
  if (!mode)
    return mode.status();
  if (*mode && **mode != "affine" && **mode != "mxfp4")
    return Status::unsupported("'" + where + "': " + what + "mode \"" + **mode +
                               "\" is not read (affine and mxfp4 are)");
  if (*mode && **mode == "mxfp4") {
    // fp_quantize: E2M1 codes in groups of 32 (mlx/ops.cpp).
    if (bits->value_or(4) != 4 || group->value_or(32) != 32)
      return configError(where, what +
                                    "mode \"mxfp4\" has bits 4 and "
                                    "group_size 32, not bits " +
                                    std::to_string(bits->value_or(4)) +
                                    " and group_size " +
                                    std::to_string(group->value_or(32)));
    l.bits = 4;
    l.groupSize = 32;
    l.mxfp4 = true;
    return l;
  }
  int64_t b = bits->value_or(4);
  if (b < 2 || b > 8 || b == 7)
    return configError(where, what + "bits " + std::to_string(b) +
                                  " is not one MLX packs (2, 3, 4, 5, 6, 8)");
  int64_t gs = group->value_or(64);
  if (gs != 32 && gs != 64 && gs != 128)
    return configError(where, what + "group_size " + std::to_string(gs) +
                                  " is not one MLX packs (32, 64, 128)");
  l.bits = unsigned(b);
  l.groupSize = gs;
  return l;
}

/// MLX's "quantization" (mlx-lm utils.py): group_size, bits, mode and, for
/// modules quantized otherwise, MODULE: {group_size, bits} or false.
Status parseMlx(const json &q, HfQuantConfig &c) {
  c.method = HfQuantMethod::Mlx;
  StatusOr<HfMlxLayer> d = parseMlxEntry(q, "", c.where);
  if (!d)
    return d.status();
  c.bits = d->bits;
  c.groupSize = d->groupSize;
  c.mlxDefault = *d;
  c.sym = false;
  for (auto it = q.begin(); it != q.end(); ++it) {
    const std::string &k = it.key();
    if (k == "bits" || k == "group_size" || k == "mode" || k == "quant_method")
      continue;
    if (it->is_boolean()) {
      HfMlxLayer off;
      off.quantized = it->get<bool>();
      if (off.quantized)
        off = *d;
      c.mlxLayers.emplace_back(k, off);
    } else if (it->is_object()) {
      StatusOr<HfMlxLayer> l =
          parseMlxEntry(*it, "module \"" + k + "\": ", c.where);
      if (!l)
        return l.status();
      c.mlxLayers.emplace_back(k, *l);
    }
    // Other keys (numbers, strings) are MLX's own settings.
  }
  return Status::ok();
}

/// transformers' BitsAndBytesConfig (quant_method bitsandbytes):
/// load_in_4bit, bnb_4bit_quant_type (default fp4),
/// bnb_4bit_use_double_quant.
Status parseBitsandbytes(const json &q, HfQuantConfig &c) {
  const std::string &where = c.where;
  c.method = HfQuantMethod::Bitsandbytes;
  auto in8 = boolField(q, "load_in_8bit", where);
  if (!in8)
    return in8.status();
  auto in4 = boolField(q, "load_in_4bit", where);
  if (!in4)
    return in4.status();
  if (in8->value_or(false) || !in4->value_or(false))
    return Status::unsupported(
        "'" + where + "': bitsandbytes " +
        (in8->value_or(false) ? std::string("load_in_8bit (LLM.int8) weights")
                              : std::string("weights without load_in_4bit")) +
        " are not read (load_in_4bit nf4 and fp4 are)");
  auto type = stringField(q, "bnb_4bit_quant_type", where);
  if (!type)
    return type.status();
  c.bnbQuantType = type->value_or("fp4");
  if (!bnbCodeValues(c.bnbQuantType))
    return configError(where, "bnb_4bit_quant_type \"" + c.bnbQuantType +
                                  "\" is neither nf4 nor fp4");
  auto dq = boolField(q, "bnb_4bit_use_double_quant", where);
  if (!dq)
    return dq.status();
  c.bnbDoubleQuant = dq->value_or(false);
  c.bits = 4;
  c.groupSize = 64;
  c.sym = true;
  return Status::ok();
}

/// The fields of one quantization config object.
StatusOr<HfQuantConfig> parseConfigObject(const json &q,
                                          const std::string &where) {
  HfQuantConfig c;
  c.where = where;
  c.sourceJson = q.dump();
  auto method = stringField(q, "quant_method", where);
  if (!method)
    return method.status();
  if (*method && lower(**method) == "bitsandbytes") {
    if (Status st = parseBitsandbytes(q, c); !st)
      return st;
    return c;
  }
  if (*method && lower(**method) == "compressed-tensors") {
    if (Status s = parseCompressedTensors(q, c); !s)
      return s;
    return c;
  }
  // AutoAWQ's quant_config.json names no method but has w_bit.
  std::string m = *method ? lower(**method)
                  : q.contains("w_bit") || q.contains("q_group_size") ? "awq"
                                                                      : "gptq";
  if (m == "gptq")
    c.method = HfQuantMethod::Gptq;
  else if (m == "awq")
    c.method = HfQuantMethod::Awq;
  else
    return Status::unsupported("'" + where + "': quant_method \"" + m +
                               "\" is not a scheme vmpack reads (gptq, awq, "
                               "compressed-tensors and bitsandbytes are)");
  bool awq = c.method == HfQuantMethod::Awq;
  auto bits = intField(q, awq && q.contains("w_bit") ? "w_bit" : "bits", where);
  if (!bits)
    return bits.status();
  if (!*bits)
    return configError(where, "the quantization config has no \"bits\"");
  int64_t b = **bits;
  if (awq ? b != 4 : (b != 2 && b != 3 && b != 4 && b != 8))
    return configError(where,
                       "bits " + std::to_string(b) + " is not one " +
                           hfQuantMethodName(c.method) +
                           (awq ? " packs (4 is)" : " packs (2, 3, 4, 8)"));
  c.bits = unsigned(b);
  auto group = intField(
      q, awq && q.contains("q_group_size") ? "q_group_size" : "group_size",
      where);
  if (!group)
    return group.status();
  c.groupSize = group->value_or(128);
  if (c.groupSize == 0 || c.groupSize < -1)
    return configError(where, "group_size " + std::to_string(c.groupSize) +
                                  " is neither -1 nor positive");
  if (awq) {
    auto zp = boolField(q, "zero_point", where);
    if (!zp)
      return zp.status();
    c.sym = !zp->value_or(true);
    auto version = stringField(q, "version", where);
    if (!version)
      return version.status();
    if (*version && lower(**version) != "gemm")
      return Status::unsupported(
          "'" + where + "': AWQ version \"" + **version +
          "\" is not read (its packing differs from GEMM's, the one vmpack "
          "reads)");
    return c;
  }
  auto sym = boolField(q, "sym", where);
  if (!sym)
    return sym.status();
  c.sym = sym->value_or(true);
  auto desc = boolField(q, "desc_act", where);
  if (!desc)
    return desc.status();
  c.descAct = desc->value_or(false);
  auto format = stringField(q, "checkpoint_format", where);
  if (!format)
    return format.status();
  if (*format) {
    if (**format != "gptq" && **format != "gptq_v2")
      return Status::unsupported(
          "'" + where + "': checkpoint_format \"" + **format +
          "\" is not one vmpack reads (gptq and gptq_v2 are)");
    c.checkpointFormat = **format;
  }
  return c;
}

} // namespace

StatusOr<std::optional<HfQuantConfig>>
vmpack::formats::parseHfQuantConfig(const uint8_t *data, size_t size,
                                    const std::string &where) {
  StatusOr<json> parsed = parseBoundedJson(data, size, 64, "'" + where + "'");
  if (!parsed)
    return parsed.status();
  const json &root = *parsed;
  if (!root.is_object())
    return configError(where, "is not a JSON object");
  const json *q = &root;
  auto it = root.find("quantization_config");
  if (it != root.end() && !it->is_object())
    return configError(where, "\"quantization_config\" is not an object");
  // MLX writes "quantization" (and the same object as a
  // quantization_config without a quant_method).
  auto mlx = root.find("quantization");
  if (mlx != root.end() && mlx->is_object() &&
      (it == root.end() || !it->contains("quant_method"))) {
    HfQuantConfig c;
    c.where = where;
    c.sourceJson = mlx->dump();
    if (Status s = parseMlx(*mlx, c); !s)
      return s;
    return std::optional<HfQuantConfig>(std::move(c));
  }
  if (mlx != root.end() && !mlx->is_object() && !mlx->is_null() &&
      it == root.end())
    return configError(where, "\"quantization\" is not an object");
  if (it != root.end()) {
    q = &*it;
  } else if (!root.contains("bits") && !root.contains("w_bit")) {
    return std::optional<HfQuantConfig>();
  }
  StatusOr<HfQuantConfig> c = parseConfigObject(*q, where);
  if (!c)
    return c.status();
  return std::optional<HfQuantConfig>(std::move(*c));
}

StatusOr<HfBnbState>
vmpack::formats::parseBnbQuantState(const uint8_t *data, size_t size,
                                    const std::string &where) {
  StatusOr<json> parsed = parseBoundedJson(data, size, 16, "'" + where + "'");
  if (!parsed)
    return parsed.status();
  const json &o = *parsed;
  if (!o.is_object())
    return configError(where, "is not a JSON object");
  static const char *const kKeys[] = {
      "quant_type",       "blocksize",    "dtype",        "shape",
      "nested_blocksize", "nested_dtype", "nested_offset"};
  for (auto it = o.begin(); it != o.end(); ++it)
    if (std::none_of(std::begin(kKeys), std::end(kKeys),
                     [&](const char *k) { return it.key() == k; }))
      return configError(where, "\"" + it.key() +
                                    "\" is not a key of bitsandbytes' "
                                    "QuantState");
  HfBnbState st;
  auto type = stringField(o, "quant_type", where);
  if (!type)
    return type.status();
  st.quantType = type->value_or("");
  if (!bnbCodeValues(st.quantType))
    return configError(where, "quant_type \"" + st.quantType +
                                  "\" is neither nf4 nor fp4");
  auto bs = intField(o, "blocksize", where);
  if (!bs)
    return bs.status();
  int64_t b = bs->value_or(0);
  if (b < 32 || b > 4096 || (b & (b - 1)) != 0)
    return configError(where, "blocksize " + std::to_string(b) +
                                  " is not one bitsandbytes dequantizes "
                                  "(32, 64, ..., 4096)");
  st.blocksize = uint64_t(b);
  auto dtype = stringField(o, "dtype", where);
  if (!dtype)
    return dtype.status();
  st.dtype = dtype->value_or("");
  if (st.dtype != "float16" && st.dtype != "bfloat16" && st.dtype != "float32")
    return configError(where, "dtype \"" + st.dtype +
                                  "\" is not float16, bfloat16 or float32");
  auto shape = o.find("shape");
  if (shape == o.end() || !shape->is_array() || shape->size() != 2)
    return configError(where, "\"shape\" is not a list of two sizes");
  for (const json &d : *shape) {
    if (!d.is_number_integer() || d.get<int64_t>() <= 0 ||
        d.get<int64_t>() > (int64_t(1) << 40))
      return configError(where, "\"shape\" holds " + d.dump() +
                                    ", not a positive size");
    st.shape.push_back(d.get<int64_t>());
  }
  st.nested = o.contains("nested_blocksize") || o.contains("nested_dtype") ||
              o.contains("nested_offset");
  if (st.nested) {
    auto nbs = intField(o, "nested_blocksize", where);
    if (!nbs)
      return nbs.status();
    if (!*nbs || **nbs <= 0 || **nbs > (int64_t(1) << 30))
      return configError(where, "nested_blocksize is missing or not "
                                "positive");
    st.nestedBlocksize = uint64_t(**nbs);
    auto ndt = stringField(o, "nested_dtype", where);
    if (!ndt)
      return ndt.status();
    if (ndt->value_or("") != "float32")
      return configError(where, "nested_dtype \"" + ndt->value_or("") +
                                    "\" is not float32 (the absmax "
                                    "bitsandbytes double-quantizes)");
    auto off = o.find("nested_offset");
    if (off == o.end() || !off->is_number())
      return configError(where, "nested_offset is missing or not a number");
    // torch.tensor(float(...)): the double rounded to float32.
    st.nestedOffset = float(off->get<double>());
  }
  return st;
}

std::optional<HfQuantConfig>
vmpack::formats::hfQuantConfigForScheme(std::string_view name) {
  HfQuantConfig c;
  c.where = "--scheme=" + std::string(name);
  c.bits = 0; // from the tensors
  c.groupSize = 0;
  if (name == "gptq" || name == "gptq_v2") {
    c.method = HfQuantMethod::Gptq;
    c.checkpointFormat = std::string(name);
    c.sym = false; // the data decides
    return c;
  }
  if (name == "awq") {
    c.method = HfQuantMethod::Awq;
    c.sym = false;
    return c;
  }
  return std::nullopt;
}

// --- Opening a model
// -----------------------------------------------------------

namespace {

bool isFile(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool isDir(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *const kConfigNames[] = {"config.json", "quantize_config.json",
                                    "quant_config.json"};

std::string joinPath(const std::string &dir, const std::string &name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

void store32le(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

uint32_t loadU32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/// Element `e` (bits wide) of a little-endian bit stream in 32-bit words.
uint32_t streamCode(const uint8_t *words, uint64_t e, unsigned bits) {
  uint64_t bit = e * bits;
  uint64_t w = bit >> 5;
  unsigned s = unsigned(bit & 31);
  uint64_t v = loadU32(words + w * 4) >> s;
  if (s + bits > 32)
    v |= uint64_t(loadU32(words + (w + 1) * 4)) << (32 - s);
  return uint32_t(v & ((1u << bits) - 1));
}

/// Element `e` (bits wide, bits <= 8) of a little-endian bit stream of
/// `length` bytes (the `packed` layout), read a byte at a time.
uint32_t packedCode(const uint8_t *data, uint64_t length, uint64_t e,
                    unsigned bits) {
  const uint64_t bit = e * bits, at = bit >> 3;
  uint32_t v = data[at];
  if (at + 1 < length)
    v |= uint32_t(data[at + 1]) << 8;
  return (v >> (bit & 7)) & ((1u << bits) - 1);
}

/// Elements [e0, e0 + count) of a `packed` stream of `length` bytes, one
/// per byte at `out`.
void unpackPacked(const uint8_t *data, uint64_t length, uint64_t e0,
                  uint64_t count, unsigned bits, uint8_t *out) {
  if (bits == 8) {
    std::memcpy(out, data + e0, count);
    return;
  }
  if (bits == 4 && e0 % 2 == 0) {
    const uint8_t *p = data + e0 / 2;
    uint64_t k = 0;
    for (; k + 1 < count; k += 2, ++p) {
      out[k] = *p & 15;
      out[k + 1] = *p >> 4;
    }
    if (k < count)
      out[k] = *p & 15;
    return;
  }
  for (uint64_t k = 0; k < count; ++k)
    out[k] = uint8_t(packedCode(data, length, e0 + k, bits));
}

/// AWQ GEMM's order: nibble k of a word holds column kAwqOrder[k] of its 8;
/// column j is in nibble kAwqNibble[j].
constexpr unsigned kAwqNibble[8] = {0, 4, 1, 5, 2, 6, 3, 7};

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string dtypeText(const TensorInfo &t) {
  const char *d = toSafetensorsDtype(t.elementType);
  return d ? d : toString(t.elementType);
}

/// Whether `t` is stored as the safetensors dtype `dtype`.
bool isType(const TensorInfo &t, const char *dtype) {
  return !t.isOpaque() && t.elementType == *fromSafetensorsDtype(dtype);
}

/// compressed-tensors' codes per int32 word (pack_to_int32: 32 // bits,
/// the word's high bits unused when bits does not divide 32).
unsigned ctPerWord(unsigned bits) { return 32 / bits; }

/// The stored zero point of group g, row r (compressed-tensors: q + 2^(b-1)
/// as weight_zero_point packs it, 2^(b-1) when symmetric).
uint32_t storedZero(const HfQuantLinear &l, uint64_t g, uint64_t r) {
  if (l.method == HfQuantMethod::Gptq)
    return streamCode(l.qzeros.data + g * (uint64_t(l.out) * l.bits / 8), r,
                      l.bits);
  if (l.method == HfQuantMethod::CompressedTensors) {
    const uint32_t half = 1u << (l.bits - 1);
    if (!l.qzeros.data)
      return half;
    const uint64_t groups = l.oneScale ? 1 : uint64_t(l.in) / l.groupSize;
    if (l.naive)
      return uint32_t(int32_t(int8_t(l.qzeros.data[r * groups + g])) +
                      int32_t(half));
    const unsigned per = ctPerWord(l.bits);
    uint32_t w = loadU32(l.qzeros.data + ((r / per) * groups + g) * 4);
    return (w >> (l.bits * (r % per))) & ((1u << l.bits) - 1);
  }
  if (l.method == HfQuantMethod::Planar) {
    // NAME.m [out, in / G], packed; none when symmetric.
    if (!l.qzeros.data)
      return 1u << (l.bits - 1);
    return packedCode(l.qzeros.data, l.qzeros.info.length,
                      r * (uint64_t(l.in) / l.groupSize) + g, l.bits);
  }
  uint32_t w = loadU32(l.qzeros.data + (g * (l.out / 8) + r / 8) * 4);
  return (w >> (4 * kAwqNibble[r % 8])) & 15;
}

/// The byte offset of the scale (or MLX bias) of group g, row r.
uint64_t scaleIndex(const HfQuantLinear &l, uint64_t g, uint64_t r) {
  if (l.method == HfQuantMethod::Gptq || l.method == HfQuantMethod::Awq)
    return g * uint64_t(l.out) + r;
  if (l.oneScale)
    return 0;
  return r * (uint64_t(l.in) / l.groupSize) + g;
}

/// The scales' type, or an error naming the tensor.
Status scaleTypeOf(HfQuantLinear &l, const TensorSource &t) {
  const TensorInfo &sc = t.info;
  if (isType(sc, "F16"))
    l.scaleType = "f16";
  else if (isType(sc, "BF16"))
    l.scaleType = "bf16";
  else if (isType(sc, "F32"))
    l.scaleType = "f32";
  else
    return Status::formatError("tensor " + quoteName(sc.name) +
                               ": scales are F16, BF16 or F32, not " +
                               dtypeText(sc));
  return Status::ok();
}

/// The Quant layer's description of a checked linear.
void describeScheme(HfQuantLinear &l) {
  quant::QuantScheme &s = l.weight.scheme;
  s.name = hfQuantMethodName(l.method);
  s.codeType = "ui" + std::to_string(l.bits);
  s.groupSize = l.groupSize;
  s.scales = {{l.scaleType, l.groupSize}};
  if (l.affine) {
    s.offsetKind = quant::OffsetKind::AddMinimum;
    s.offsets = {{l.scaleType, l.groupSize}};
  } else {
    s.offsetKind = quant::OffsetKind::ZeroPoint;
    s.offsets = {{"ui" + std::to_string(l.bits), l.groupSize}};
  }
  l.weight.shape = {l.out, l.in};
  l.weight.axis = 1;
}

/// compressed-tensors pack-quantized (weight_packed I32 [out, ceil(in /
/// (32 / bits))], weight_shape [2]) or naive-quantized (weight I8 [out,
/// in]); weight_scale [out, groups] ([out, 1] per channel, one value per
/// tensor); weight_zero_point (asymmetric: packed I32 [ceil(out / (32 /
/// bits)), groups], or I8 [out, groups] when naive); weight_g_idx [in].
/// The config group is the one whose arguments fit the tensors.
Status checkCtLinear(HfQuantLinear &l, const HfQuantConfig &config) {
  auto bad = [&](const TensorSource &t, const std::string &why) {
    return Status::formatError("tensor " + quoteName(t.info.name) + ": " + why);
  };
  const TensorInfo &qw = l.qweight.info;
  if (!l.scales.data)
    return Status::formatError(
        "tensor " +
        quoteName(l.weight.name.substr(0, l.weight.name.size() - 7) +
                  ".weight_scale") +
        " is missing (the scales of " + quoteName(qw.name) + ")");
  if (Status s = scaleTypeOf(l, l.scales); !s)
    return s;
  if (l.naive) {
    if (!isType(qw, l.fp8 ? "F8_E4M3" : "I8") || qw.shape.size() != 2 ||
        qw.shape[0] <= 0 || qw.shape[1] <= 0)
      return bad(l.qweight, std::string(l.fp8 ? "a float-quantized weight "
                                                "is a 2-D F8_E4M3 tensor"
                                              : "a naive-quantized weight "
                                                "is a 2-D I8 tensor") +
                                ", not " + dtypeText(qw) + " " +
                                shapeText(qw.shape));
    l.out = qw.shape[0];
    l.in = qw.shape[1];
  } else {
    if (!isType(qw, "I32") || qw.shape.size() != 2 || qw.shape[0] <= 0 ||
        qw.shape[1] <= 0)
      return bad(l.qweight, "weight_packed is a 2-D I32 tensor, not " +
                                dtypeText(qw) + " " + shapeText(qw.shape));
    const std::string shapeName =
        qw.name.substr(0, qw.name.size() - 6) + "shape";
    if (!l.shapeTensor.data)
      return Status::formatError("tensor " + quoteName(shapeName) +
                                 " is missing (the unpacked shape of " +
                                 quoteName(qw.name) + ")");
    const TensorInfo &st = l.shapeTensor.info;
    bool i64 = isType(st, "I64");
    if ((!i64 && !isType(st, "I32")) || st.shape.size() != 1 ||
        st.shape[0] != 2)
      return bad(l.shapeTensor, "weight_shape is I32 or I64 [2], not " +
                                    dtypeText(st) + " " + shapeText(st.shape));
    int64_t dims[2];
    for (int d = 0; d < 2; ++d) {
      if (i64)
        std::memcpy(&dims[d], l.shapeTensor.data + 8 * d, 8);
      else
        dims[d] = int32_t(loadU32(l.shapeTensor.data + 4 * d));
    }
    if (dims[0] != qw.shape[0] || dims[1] <= 0 || dims[1] > (int64_t(1) << 40))
      return bad(l.shapeTensor, "the shape [" + std::to_string(dims[0]) + ", " +
                                    std::to_string(dims[1]) +
                                    "] does not fit " + quoteName(qw.name) +
                                    " " + shapeText(qw.shape) +
                                    " (its rows are the output features)");
    l.out = dims[0];
    l.in = dims[1];
  }
  const TensorInfo &sc = l.scales.info;
  uint64_t scaleCount = 1;
  for (int64_t d : sc.shape)
    scaleCount *= uint64_t(std::max<int64_t>(d, 0));
  const bool scale2d = sc.shape.size() == 2 && sc.shape[0] == l.out;
  // Which config group fits: the format, the packed width, the scales'
  // shape for the strategy, the zero points' presence.
  std::vector<std::string> why;
  const HfCtWeightArgs *pick = nullptr;
  for (const HfCtWeightArgs &a : config.ctGroups) {
    std::string no;
    const bool packed = a.format == "pack-quantized";
    const uint64_t per = ctPerWord(a.bits);
    if (packed == l.naive || a.floatType != l.fp8)
      no = "its format is " + a.format;
    else if (a.strategy == "block" &&
             !(sc.shape.size() == 2 &&
               sc.shape[0] == (l.out + a.blockRows - 1) / a.blockRows &&
               sc.shape[1] == (l.in + a.blockCols - 1) / a.blockCols))
      no = "block_structure [" + std::to_string(a.blockRows) + ", " +
           std::to_string(a.blockCols) + "] needs scales [" +
           std::to_string((l.out + a.blockRows - 1) / a.blockRows) + ", " +
           std::to_string((l.in + a.blockCols - 1) / a.blockCols) + "]";
    else if (packed &&
             uint64_t(qw.shape[1]) != (uint64_t(l.in) + per - 1) / per)
      no = "num_bits " + std::to_string(a.bits) + " packs " +
           std::to_string(l.in) + " codes in " +
           std::to_string((uint64_t(l.in) + per - 1) / per) + " words, not " +
           std::to_string(qw.shape[1]);
    else if (a.strategy == "group" && (l.in % a.groupSize != 0 || !scale2d ||
                                       sc.shape[1] != l.in / a.groupSize))
      no = "group_size " + std::to_string(a.groupSize) + " needs scales [" +
           std::to_string(l.out) + ", " + std::to_string(l.in / a.groupSize) +
           "]" +
           (l.in % a.groupSize ? " and does not divide " +
                                     std::to_string(l.in) + " input features"
                               : "");
    else if (a.strategy == "channel" && !(scale2d && sc.shape[1] == 1))
      no = "strategy \"channel\" needs scales [" + std::to_string(l.out) +
           ", 1]";
    else if (a.strategy == "tensor" && scaleCount != 1)
      no = "strategy \"tensor\" needs one scale";
    else if (a.symmetric == bool(l.qzeros.data))
      no = a.symmetric ? "it is symmetric, and a weight_zero_point is stored"
                       : "it is asymmetric, and no weight_zero_point is "
                         "stored";
    else if (a.strategy == "tensor" && !a.symmetric)
      no = "asymmetric per-tensor codes are not read";
    if (!no.empty()) {
      why.push_back("config group \"" + a.group + "\": " + no);
      continue;
    }
    if (pick &&
        (pick->bits != a.bits || pick->symmetric != a.symmetric ||
         pick->strategy != a.strategy || pick->groupSize != a.groupSize ||
         pick->actorder != a.actorder))
      return bad(l.qweight,
                 "config groups \"" + pick->group + "\" and \"" + a.group +
                     "\" both fit its tensors and say different things; "
                     "vmpack does not match config_groups' targets");
    if (!pick)
      pick = &a;
  }
  if (!pick) {
    std::string all;
    for (const std::string &w : why)
      all += (all.empty() ? "" : "; ") + w;
    return bad(l.qweight, "no config group of '" + config.where +
                              "' fits its tensors (" + all + ")");
  }
  l.ctGroup = pick->group;
  l.bits = pick->bits;
  l.oneScale = pick->strategy == "tensor";
  l.blockRows = pick->blockRows;
  l.blockCols = pick->blockCols;
  if (l.fp8) {
    // value = e4m3(q) * s: no zero point, no act-order, no ggml form.
    if (l.gIdx.data)
      return bad(l.gIdx, "float-quantized weights have no weight_g_idx");
    l.groupSize = pick->strategy == "group" ? uint64_t(pick->groupSize)
                  : l.blockCols             ? uint64_t(l.blockCols)
                                            : uint64_t(l.in);
    l.symmetric = true;
    quant::QuantScheme &fs = l.weight.scheme;
    fs.name = hfQuantMethodName(l.method);
    fs.codeType = "f8E4M3FN";
    fs.groupSize = l.groupSize;
    fs.scales = {{l.scaleType, l.groupSize}};
    l.weight.shape = {l.out, l.in};
    l.weight.axis = 1;
    return Status::ok();
  }
  l.groupSize =
      pick->strategy == "group" ? uint64_t(pick->groupSize) : uint64_t(l.in);
  const int64_t groups = l.in / int64_t(l.groupSize);
  if (l.qzeros.data) {
    const TensorInfo &zp = l.qzeros.info;
    const int64_t per = ctPerWord(l.bits);
    std::vector<int64_t> want =
        l.naive ? std::vector<int64_t>{l.out, groups}
                : std::vector<int64_t>{(l.out + per - 1) / per, groups};
    if (!isType(zp, l.naive ? "I8" : "I32") || zp.shape != want)
      return bad(l.qzeros, "weight_zero_point is " +
                               std::string(l.naive ? "I8 " : "I32 ") +
                               shapeText(want) + ", not " + dtypeText(zp) +
                               " " + shapeText(zp.shape));
  }
  if (l.gIdx.data) {
    const TensorInfo &gi = l.gIdx.info;
    if (!isType(gi, "I32") || gi.shape.size() != 1 || gi.shape[0] != l.in)
      return bad(l.gIdx, "weight_g_idx is I32 [" + std::to_string(l.in) +
                             "], not " + dtypeText(gi) + " " +
                             shapeText(gi.shape));
    // -1 everywhere: not initialized, the columns in order (forward.py).
    bool unset = true, trivial = true;
    std::vector<int32_t> idx(size_t(l.in));
    for (int64_t i = 0; i < l.in; ++i) {
      int32_t g = int32_t(loadU32(l.gIdx.data + 4 * i));
      idx[size_t(i)] = g;
      unset = unset && g == -1;
    }
    for (int64_t i = 0; i < l.in && !unset; ++i) {
      int32_t g = idx[size_t(i)];
      if (g < 0 || g >= groups)
        return bad(l.gIdx, "weight_g_idx[" + std::to_string(i) + "] is " +
                               std::to_string(g) + ", outside 0.." +
                               std::to_string(groups - 1));
      trivial = trivial && uint64_t(g) == uint64_t(i) / l.groupSize;
    }
    if (!unset && !trivial)
      l.weight.groupIndex = std::move(idx);
  }
  bool allHalf = true;
  const uint32_t half = 1u << (l.bits - 1);
  for (int64_t g = 0; g < groups && allHalf && l.qzeros.data; ++g)
    for (int64_t r = 0; r < l.out && allHalf; ++r)
      allHalf = storedZero(l, uint64_t(g), uint64_t(r)) == half;
  l.symmetric = allHalf;
  describeScheme(l);
  return Status::ok();
}

/// MLX affine: weight U32 [out, in * bits / 32] (each row a little-endian
/// bit stream), scales and biases [out, in / group_size].
Status checkMlxLinear(HfQuantLinear &l, const HfQuantConfig &config) {
  const std::string module =
      l.weight.name.substr(0, l.weight.name.size() - std::strlen(".weight"));
  auto bad = [&](const TensorSource &t, const std::string &why) {
    return Status::formatError("tensor " + quoteName(t.info.name) + ": " + why);
  };
  HfMlxLayer args = config.mlxDefault;
  for (const auto &[name, layer] : config.mlxLayers)
    if (name == module)
      args = layer;
  if (!args.quantized)
    return bad(l.scales, "'" + config.where + "' says \"" + module +
                             "\": false (not quantized), but its weight "
                             "has scales and biases");
  const TensorInfo &qw = l.qweight.info;
  if (!isType(qw, "U32") || qw.shape.size() != 2 || qw.shape[0] <= 0 ||
      qw.shape[1] <= 0)
    return bad(l.qweight, "an MLX quantized weight is a 2-D U32 tensor, not " +
                              dtypeText(qw) + " " + shapeText(qw.shape));
  if (args.mxfp4) {
    // fp_quantize's mxfp4: weight U32 [out, in / 8], scales U8 E8M0
    // [out, in / 32], no biases.
    const TensorInfo &sc = l.scales.info;
    if (l.qzeros.data)
      return bad(l.qzeros,
                 "'" + config.where + "' says mode mxfp4, which has no biases");
    l.out = qw.shape[0];
    l.in = qw.shape[1] * 8;
    if (!isType(sc, "U8") || sc.shape != std::vector<int64_t>{l.out, l.in / 32})
      return bad(l.scales, "mxfp4 scales are U8 (E8M0) [" +
                               std::to_string(l.out) + ", " +
                               std::to_string(l.in / 32) + "], not " +
                               dtypeText(sc) + " " + shapeText(sc.shape));
    l.bits = 4;
    l.groupSize = 32;
    l.mxfp4 = true;
    l.scaleType = "e8m0";
    l.symmetric = true;
    quant::QuantScheme &ms = l.weight.scheme;
    ms.name = "mlx.mxfp4";
    ms.codeType = "f4E2M1FN";
    ms.codeBook = quant::CodeBook::Fp4E2M1;
    ms.groupSize = 32;
    ms.scales = {{"f8E8M0FNU", 32}};
    l.weight.shape = {l.out, l.in};
    l.weight.axis = 1;
    return Status::ok();
  }
  if (!l.qzeros.data)
    return Status::formatError("tensor " + quoteName(module + ".biases") +
                               " is missing (the biases of " +
                               quoteName(qw.name) +
                               "; MLX's affine mode stores them)");
  if (Status s = scaleTypeOf(l, l.scales); !s)
    return s;
  const TensorInfo &sc = l.scales.info, &bi = l.qzeros.info;
  if (sc.shape.size() != 2 || sc.shape[0] != qw.shape[0] || sc.shape[1] <= 0)
    return bad(l.scales, "scales are [" + std::to_string(qw.shape[0]) +
                             ", groups], not " + shapeText(sc.shape));
  if (!isType(bi, toSafetensorsDtype(sc.elementType)) || bi.shape != sc.shape)
    return bad(l.qzeros, "biases are " + dtypeText(sc) + " " +
                             shapeText(sc.shape) + " as the scales, not " +
                             dtypeText(bi) + " " + shapeText(bi.shape));
  l.out = qw.shape[0];
  if (uint64_t(qw.shape[1]) * 32 % args.bits != 0)
    return bad(l.qweight, std::to_string(qw.shape[1]) +
                              " words per row hold no whole number of " +
                              std::to_string(args.bits) + "-bit codes");
  l.in = qw.shape[1] * 32 / int64_t(args.bits);
  if (l.in % args.groupSize != 0 || l.in / args.groupSize != sc.shape[1])
    return bad(l.scales,
               std::to_string(sc.shape[1]) + " groups per row, but " +
                   std::to_string(l.in) + " " + std::to_string(args.bits) +
                   "-bit codes in groups of " + std::to_string(args.groupSize) +
                   " ('" + config.where + "') make " +
                   std::to_string(l.in / args.groupSize) +
                   (l.in % args.groupSize ? " and a part" : ""));
  l.bits = args.bits;
  l.groupSize = uint64_t(args.groupSize);
  l.symmetric = false;
  l.affine = true;
  describeScheme(l);
  return Status::ok();
}

/// "0.5 (0x3f000000)".
std::string floatWithBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  char text[64];
  std::snprintf(text, sizeof text, "%.9g (0x%08x)", double(f), unsigned(b));
  return text;
}

/// bitsandbytes 4-bit: MODULE.weight U8 (ceil(out * in / 2) bytes, any
/// shape), .absmax (F32 [ceil(n / blocksize)], U8 when nested),
/// .quant_map (F32 [16], bitsandbytes' table), .nested_absmax (F32
/// [ceil(absmax / nested_blocksize)]), .nested_quant_map (F32 [256]) and
/// the quant_state JSON; the config's quant type and double quantization
/// must agree with it.
Status checkBnbLinear(HfQuantLinear &l, const HfQuantConfig &config) {
  auto bad = [&](const TensorSource &t, const std::string &why) {
    return Status::formatError("tensor " + quoteName(t.info.name) + ": " + why);
  };
  const std::string &w = l.weight.name;
  if (!l.quantState.data)
    return Status::formatError(
        "tensor " +
        quoteName(w + ".quant_state.bitsandbytes__" + config.bnbQuantType) +
        " is missing (the quantization state of " + quoteName(w) + ")");
  if (!isType(l.quantState.info, "U8"))
    return bad(l.quantState, "a quant_state is U8 JSON bytes, not " +
                                 dtypeText(l.quantState.info));
  StatusOr<HfBnbState> st = parseBnbQuantState(
      l.quantState.data, l.quantState.info.length, l.quantState.info.name);
  if (!st)
    return st.status();
  l.bnb = std::move(*st);
  const std::string suffix =
      l.quantState.info.name.substr(l.quantState.info.name.rfind("__") + 2);
  if (suffix != l.bnb.quantType)
    return bad(l.quantState, "its name says " + suffix + ", its quant_type " +
                                 l.bnb.quantType);
  if (l.bnb.quantType != config.bnbQuantType)
    return bad(l.quantState, "quant_type " + l.bnb.quantType + ", but '" +
                                 config.where + "' says bnb_4bit_quant_type " +
                                 config.bnbQuantType);
  if (l.bnb.nested != config.bnbDoubleQuant)
    return bad(l.quantState, std::string(l.bnb.nested ? "double-quantized"
                                                      : "not "
                                                        "double-quanti"
                                                        "zed") +
                                 ", but '" + config.where +
                                 "' says bnb_4bit_use_double_quant " +
                                 (config.bnbDoubleQuant ? "true" : "false"));
  l.out = l.bnb.shape[0];
  l.in = l.bnb.shape[1];
  const uint64_t n = uint64_t(l.out) * uint64_t(l.in);
  const TensorInfo &qw = l.qweight.info;
  if (!isType(qw, "U8") || qw.length != (n + 1) / 2)
    return bad(l.qweight, "the codes of a " + shapeText(l.bnb.shape) +
                              " weight are " + std::to_string((n + 1) / 2) +
                              " U8 bytes, not " + dtypeText(qw) + " " +
                              shapeText(qw.shape));
  const uint64_t blocks = (n + l.bnb.blocksize - 1) / l.bnb.blocksize;
  auto vector = [&](const TensorSource &t, const char *dtype, uint64_t count,
                    const std::string &what) -> Status {
    if (!t.data)
      return Status::ok();
    if (!isType(t.info, dtype) ||
        t.info.length != count * (dtype[0] == 'U' ? 1 : 4))
      return bad(t, what + " is " + dtype + " [" + std::to_string(count) +
                        "], not " + dtypeText(t.info) + " " +
                        shapeText(t.info.shape));
    return Status::ok();
  };
  if (Status s2 = vector(l.scales, l.bnb.nested ? "U8" : "F32", blocks,
                         "absmax of " + std::to_string(l.bnb.blocksize) +
                             "-element blocks");
      !s2)
    return s2;
  if (!l.quantMap.data)
    return Status::formatError("tensor " + quoteName(w + ".quant_map") +
                               " is missing (the code table of " +
                               quoteName(w) + ")");
  if (Status s2 = vector(l.quantMap, "F32", 16, "quant_map"); !s2)
    return s2;
  // bitsandbytes' kernels use their own table whatever quant_map holds;
  // one that differs would be read otherwise by another tool.
  const float *table = bnbCodeValues(l.bnb.quantType);
  for (int i = 0; i < 16; ++i) {
    float v;
    std::memcpy(&v, l.quantMap.data + 4 * i, 4);
    if (!(v == table[i]))
      return bad(l.quantMap, "entry " + std::to_string(i) + " is " +
                                 floatWithBits(v) + ", not bitsandbytes' " +
                                 l.bnb.quantType + " value " +
                                 floatWithBits(table[i]));
  }
  if (l.bnb.nested) {
    if (!l.nestedAbsmax.data || !l.nestedQuantMap.data)
      return Status::formatError(
          "tensor " +
          quoteName(w + (l.nestedAbsmax.data ? ".nested_quant_map"
                                             : ".nested_absmax")) +
          " is missing (" + quoteName(l.quantState.info.name) +
          " is double-quantized)");
    if (Status s2 =
            vector(l.nestedAbsmax, "F32",
                   (blocks + l.bnb.nestedBlocksize - 1) / l.bnb.nestedBlocksize,
                   "nested_absmax of " + std::to_string(l.bnb.nestedBlocksize) +
                       "-element blocks");
        !s2)
      return s2;
    if (Status s2 = vector(l.nestedQuantMap, "F32", 256, "nested_quant_map");
        !s2)
      return s2;
  } else if (l.nestedAbsmax.data || l.nestedQuantMap.data) {
    return bad(l.nestedAbsmax.data ? l.nestedAbsmax : l.nestedQuantMap,
               "stored, but " + quoteName(l.quantState.info.name) +
                   " has no nested_offset (not double-quantized)");
  }
  l.bits = 4;
  l.groupSize = l.bnb.blocksize;
  l.scaleType = "f32";
  l.symmetric = true;
  quant::QuantScheme &sc = l.weight.scheme;
  sc.name = "bitsandbytes";
  sc.codeType = "ui4";
  sc.codeBook = l.bnb.quantType == "nf4" ? quant::CodeBook::BnbNf4
                                         : quant::CodeBook::BnbFp4;
  sc.groupSize = l.bnb.blocksize;
  sc.scales = {{l.bnb.nested ? "ui8" : "f32", l.bnb.blocksize}};
  l.weight.shape = {l.out, l.in};
  l.weight.axis = 1;
  return Status::ok();
}

Status checkLinear(HfQuantLinear &l, const HfQuantConfig &config,
                   std::vector<std::string> &warnings) {
  if (l.method == HfQuantMethod::Bitsandbytes)
    return checkBnbLinear(l, config);
  if (l.method == HfQuantMethod::CompressedTensors)
    return checkCtLinear(l, config);
  if (l.method == HfQuantMethod::Mlx)
    return checkMlxLinear(l, config);
  const std::string module =
      l.weight.name.substr(0, l.weight.name.size() - std::strlen(".weight"));
  auto bad = [&](const TensorSource &t, const std::string &why) {
    return Status::formatError("tensor " + quoteName(t.info.name) + ": " + why);
  };
  const TensorInfo &qw = l.qweight.info;
  if (!isType(qw, "I32") || qw.shape.size() != 2)
    return bad(l.qweight, "a " + std::string(hfQuantMethodName(l.method)) +
                              " qweight is a 2-D I32 tensor, not " +
                              dtypeText(qw) + " " + shapeText(qw.shape));
  if (!l.scales.data)
    return Status::formatError("tensor " + quoteName(module + ".scales") +
                               " is missing (the scales of " +
                               quoteName(qw.name) + ")");
  if (!l.qzeros.data)
    return Status::formatError("tensor " + quoteName(module + ".qzeros") +
                               " is missing (the zero points of " +
                               quoteName(qw.name) + ")");
  const TensorInfo &sc = l.scales.info;
  if (isType(sc, "F16"))
    l.scaleType = "f16";
  else if (isType(sc, "BF16"))
    l.scaleType = "bf16";
  else if (isType(sc, "F32"))
    l.scaleType = "f32";
  else
    return bad(l.scales, "scales are F16, BF16 or F32, not " + dtypeText(sc));
  if (sc.shape.size() != 2 || sc.shape[0] <= 0 || sc.shape[1] <= 0)
    return bad(l.scales, "scales are 2-D [groups, out_features], not " +
                             shapeText(sc.shape));
  const TensorInfo &qz = l.qzeros.info;
  if (!isType(qz, "I32") || qz.shape.size() != 2)
    return bad(l.qzeros, "qzeros is a 2-D I32 tensor, not " + dtypeText(qz) +
                             " " + shapeText(qz.shape));
  int64_t groups = sc.shape[0];
  l.out = sc.shape[1];
  if (l.method == HfQuantMethod::Gptq) {
    // bits from qzeros [groups, out * bits / 32], in from qweight
    // [in * bits / 32, out].
    if (qw.shape[1] != l.out)
      return bad(l.qweight, "shape " + shapeText(qw.shape) + " has " +
                                std::to_string(qw.shape[1]) +
                                " columns, but the scales have " +
                                std::to_string(l.out) + " output features");
    if (qz.shape[1] * 32 % l.out != 0)
      return bad(l.qzeros, "shape " + shapeText(qz.shape) +
                               " packs no whole number of bits for " +
                               std::to_string(l.out) + " output features");
    unsigned bits = unsigned(qz.shape[1] * 32 / l.out);
    if (bits != 2 && bits != 3 && bits != 4 && bits != 8)
      return bad(l.qzeros, "shape " + shapeText(qz.shape) + " packs " +
                               std::to_string(bits) + "-bit zero points for " +
                               std::to_string(l.out) +
                               " output features; GPTQ packs 2, 3, 4 or 8");
    if (config.bits && bits != config.bits)
      return bad(l.qzeros, "shape " + shapeText(qz.shape) + " packs " +
                               std::to_string(bits) +
                               "-bit zero points, but '" + config.where +
                               "' says bits " + std::to_string(config.bits));
    l.bits = bits;
    if (qz.shape[0] != groups)
      return bad(l.qzeros, "shape " + shapeText(qz.shape) + " has " +
                               std::to_string(qz.shape[0]) +
                               " groups, the scales " + std::to_string(groups));
    l.in = qw.shape[0] * 32 / bits;
    if (qw.shape[0] * 32 % bits != 0 || l.in <= 0)
      return bad(l.qweight, "shape " + shapeText(qw.shape) +
                                " holds no whole number of " +
                                std::to_string(bits) + "-bit codes per column");
  } else {
    l.bits = 4;
    if (qw.shape[1] * 8 != l.out)
      return bad(l.qweight, "shape " + shapeText(qw.shape) +
                                " packs 8 codes per word for " +
                                std::to_string(qw.shape[1] * 8) +
                                " output features, but the scales have " +
                                std::to_string(l.out));
    if (qz.shape[0] != groups || qz.shape[1] * 8 != l.out)
      return bad(l.qzeros, "shape " + shapeText(qz.shape) + " is not [" +
                               std::to_string(groups) + ", " +
                               std::to_string(l.out / 8) + "]");
    l.in = qw.shape[0];
  }
  if (l.in % groups != 0)
    return bad(l.scales, std::to_string(groups) + " groups do not divide " +
                             std::to_string(l.in) + " input features");
  l.groupSize = uint64_t(l.in / groups);
  int64_t want = config.groupSize == -1 ? l.in : config.groupSize;
  if (config.groupSize && uint64_t(want) != l.groupSize &&
      !(l.gIdx.data && l.method == HfQuantMethod::Gptq))
    return bad(l.scales, std::to_string(groups) + " groups of " +
                             std::to_string(l.in) + " input features are " +
                             std::to_string(l.groupSize) + " per group, but '" +
                             config.where + "' says group_size " +
                             std::to_string(config.groupSize));
  if (config.groupSize && l.in % want != 0)
    return bad(l.qweight, "group_size " + std::to_string(want) +
                              " does not divide " + std::to_string(l.in) +
                              " input features");
  if (config.groupSize)
    l.groupSize = uint64_t(want);
  if (uint64_t(l.in) / l.groupSize != uint64_t(groups))
    return bad(l.scales, "has " + std::to_string(groups) + " groups; " +
                             std::to_string(l.in) +
                             " input features in groups of " +
                             std::to_string(l.groupSize) + " make " +
                             std::to_string(uint64_t(l.in) / l.groupSize));

  // g_idx: the group of every input feature.
  if (l.gIdx.data) {
    const TensorInfo &gi = l.gIdx.info;
    if (!isType(gi, "I32") || gi.shape.size() != 1 || gi.shape[0] != l.in)
      return bad(l.gIdx, "g_idx is I32 [" + std::to_string(l.in) + "], not " +
                             dtypeText(gi) + " " + shapeText(gi.shape));
    bool trivial = true;
    std::vector<int32_t> idx(size_t(l.in));
    for (int64_t i = 0; i < l.in; ++i) {
      int32_t g = int32_t(loadU32(l.gIdx.data + 4 * i));
      if (g < 0 || g >= groups)
        return bad(l.gIdx, "g_idx[" + std::to_string(i) + "] is " +
                               std::to_string(g) + ", outside 0.." +
                               std::to_string(groups - 1));
      idx[size_t(i)] = g;
      trivial = trivial && uint64_t(g) == uint64_t(i) / l.groupSize;
    }
    if (!trivial)
      l.weight.groupIndex = std::move(idx);
  }

  // The zero points' format: v1 stores zero - 1.
  if (l.method == HfQuantMethod::Gptq) {
    const uint32_t half = 1u << (l.bits - 1);
    bool allHalf = true, allHalfMinusOne = true, anyAllOnes = false;
    // Where the codes fill whole words (2, 4, 8 bits), a word of all-equal
    // zero points is one comparison: the words first, each zero point only
    // when some word is neither pattern.
    bool scanned = false;
    if (32 % l.bits == 0) {
      uint32_t halfWord = 0, belowWord = 0;
      for (unsigned k = 0; k < 32; k += l.bits) {
        halfWord |= half << k;
        belowWord |= (half - 1) << k;
      }
      const uint64_t words = uint64_t(groups) * uint64_t(l.out) * l.bits / 32;
      bool isHalf = true, isBelow = true;
      for (uint64_t i = 0; i < words; ++i) {
        const uint32_t w = loadU32(l.qzeros.data + 4 * i);
        isHalf &= w == halfWord;
        isBelow &= w == belowWord;
      }
      if (isHalf || isBelow) {
        // Neither half nor half - 1 is all ones in 2 bits or more.
        allHalf = isHalf;
        allHalfMinusOne = isBelow;
        scanned = true;
      }
    }
    for (int64_t g = 0; g < groups && !scanned; ++g)
      for (int64_t r = 0; r < l.out; ++r) {
        uint32_t z = storedZero(l, uint64_t(g), uint64_t(r));
        allHalf = allHalf && z == half;
        allHalfMinusOne = allHalfMinusOne && z == half - 1;
        anyAllOnes = anyAllOnes || z == (1u << l.bits) - 1;
      }
    const std::string &label = config.checkpointFormat;
    std::string found = allHalf ? "gptq_v2" : allHalfMinusOne ? "gptq" : "";
    std::string use = label;
    if (!found.empty() && found != label) {
      warnings.push_back(
          "tensor " + quoteName(qz.name) + ": every stored zero point is " +
          std::to_string(found == "gptq" ? half - 1 : half) + ", a symmetric " +
          std::to_string(l.bits) + "-bit checkpoint in " +
          (found == "gptq" ? "v1 (gptq, zero - 1)"
                           : "v2 (gptq_v2, true zero)") +
          " form; " +
          (label.empty() ? "'" + config.where + "' names no checkpoint_format"
                         : "'" + config.where + "' says checkpoint_format \"" +
                               label + "\"") +
          ", read as \"" + found + "\"");
      use = found;
    } else if (use.empty()) {
      use = "gptq";
      warnings.push_back("tensor " + quoteName(qz.name) +
                         ": the zero points do not show their format and '" +
                         config.where +
                         "' names no checkpoint_format; read as \"gptq\" "
                         "(v1, zero - 1), AutoGPTQ's default");
    }
    l.zerosMinusOne = use == "gptq";
    if (l.zerosMinusOne && anyAllOnes && l.bits == 8)
      return bad(l.qzeros,
                 "a stored v1 zero point is 255, which stands for the zero "
                 "point 256, outside 8-bit codes");
    l.symmetric = allHalf || allHalfMinusOne
                      ? (allHalf ? !l.zerosMinusOne : l.zerosMinusOne)
                      : false;
  } else {
    bool allEight = true;
    for (int64_t g = 0; g < groups && allEight; ++g)
      for (int64_t r = 0; r < l.out && allEight; ++r)
        allEight = storedZero(l, uint64_t(g), uint64_t(r)) == 8;
    l.symmetric = allEight;
  }

  describeScheme(l);
  return Status::ok();
}

} // namespace

uint64_t HfQuantLinear::uniformRun(uint64_t multipleOf) const {
  if (weight.groupIndex.empty())
    return groupSize;
  if (multipleOf == 0 || uint64_t(in) % multipleOf != 0)
    return 1;
  for (uint64_t i = 0; i < uint64_t(in); i += multipleOf)
    for (uint64_t j = 1; j < multipleOf; ++j)
      if (weight.groupIndex[i + j] != weight.groupIndex[i])
        return 1;
  return multipleOf;
}

bool vmpack::formats::isHfModelDirectory(const std::string &path) {
  if (!isDir(path))
    return false;
  for (const char *name : kConfigNames)
    if (isFile(joinPath(path, name)))
      return true;
  return false;
}

StatusOr<std::unique_ptr<HfQuantModel>>
vmpack::formats::openHfQuantModel(const std::string &path,
                                  const std::optional<std::string> &scheme) {
  auto model = std::make_unique<HfQuantModel>();
  std::string weights = path;
  std::optional<HfQuantConfig> config;
  if (isDir(path)) {
    model->directory = path;
    for (const char *name : kConfigNames) {
      std::string p = joinPath(path, name);
      if (!isFile(p))
        continue;
      StatusOr<std::unique_ptr<archive::MappedFile>> map =
          archive::MappedFile::open(p);
      if (!map)
        return map.status();
      StatusOr<std::optional<HfQuantConfig>> c =
          parseHfQuantConfig((*map)->data(), (*map)->size(), p);
      if (!c)
        return c.status();
      if (*c) {
        config = std::move(**c);
        break;
      }
    }
    // The weights: an index set, else the one .safetensors file.
    std::vector<std::string> indexes, files;
    if (DIR *d = ::opendir(path.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string n = e->d_name;
        auto ends = [&](const char *suffix) {
          size_t k = std::strlen(suffix);
          return n.size() > k && n.compare(n.size() - k, k, suffix) == 0;
        };
        if (ends(".safetensors.index.json"))
          indexes.push_back(n);
        else if (ends(".safetensors"))
          files.push_back(n);
      }
      ::closedir(d);
    }
    std::sort(indexes.begin(), indexes.end());
    std::sort(files.begin(), files.end());
    if (indexes.size() > 1)
      return Status::formatError(
          "'" + path + "' holds " + std::to_string(indexes.size()) +
          " safetensors index files ('" + indexes[0] + "', '" + indexes[1] +
          "'); name the one to read");
    if (indexes.size() == 1)
      weights = joinPath(path, indexes[0]);
    else if (files.size() == 1)
      weights = joinPath(path, files[0]);
    else
      return Status::formatError(
          "'" + path + "' holds " +
          (files.empty() ? std::string("no .safetensors file")
                         : std::to_string(files.size()) +
                               " .safetensors files and no index") +
          "; a model directory has one file or an index set");
  }
  if (scheme) {
    std::optional<HfQuantConfig> named = hfQuantConfigForScheme(*scheme);
    if (!named)
      return Status::invalidArgument("--scheme=" + *scheme +
                                     ": the schemes are gptq, gptq_v2 and awq");
    if (!config)
      config = std::move(*named);
    else if (config->method != named->method)
      return Status::invalidArgument("--scheme=" + *scheme + " contradicts '" +
                                     config->where + "', which says " +
                                     hfQuantMethodName(config->method));
  }
  if (!config)
    return Status::formatError(
        "'" + path + "': " +
        (model->directory.empty()
             ? std::string("a safetensors file carries no quantization "
                           "config; name its scheme with --scheme=NAME")
             : std::string("no config.json with a quantization_config, "
                           "quantize_config.json or quant_config.json")));
  model->config = *config;

  StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
      openWeightSet(weights, FileFormat::Safetensors);
  if (!set)
    return set.status();
  model->files = std::move(*set);

  // Every tensor by name; the linears are the modules with a qweight.
  std::vector<TensorSource> all;
  for (const std::unique_ptr<WeightFile> &f : model->files) {
    for (TensorSource &s : f->sources())
      all.push_back(std::move(s));
    for (const auto &kv : f->stringMetadata)
      model->metadata.push_back(kv);
  }
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < all.size(); ++i)
    byName.emplace(all[i].info.name, i);
  std::vector<bool> used(all.size(), false);
  // Each method's tensors: the anchor (the packed codes) first, then the
  // zero points (MLX: biases), scales, g_idx and compressed-tensors' shape.
  const HfQuantMethod method = config->method;
  const std::vector<const char *> suffixes =
      method == HfQuantMethod::CompressedTensors
          ? std::vector<const char *>{".weight_packed", ".weight_zero_point",
                                      ".weight_scale", ".weight_g_idx",
                                      ".weight_shape"}
      : method == HfQuantMethod::Mlx
          ? std::vector<const char *>{".weight", ".biases", ".scales"}
      : method == HfQuantMethod::Bitsandbytes
          ? std::vector<const char *>{".weight.absmax",
                                      ".weight.quant_map",
                                      ".weight.nested_absmax",
                                      ".weight.nested_quant_map",
                                      ".weight.quant_state.bitsandbytes__nf4",
                                      ".weight.quant_state.bitsandbytes__fp4"}
          : std::vector<const char *>{".qweight", ".qzeros", ".scales",
                                      ".g_idx"};
  auto endsWith = [](const std::string &n, const char *suffix) {
    size_t k = std::strlen(suffix);
    return n.size() > k && n.compare(n.size() - k, k, suffix) == 0;
  };
  auto lookup = [&](const std::string &name) -> const TensorSource * {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : &all[it->second];
  };
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string &n = all[i].info.name;
    // The anchor: GPTQ/AWQ's qweight, compressed-tensors' weight_packed or
    // (naive-quantized) an I8 weight with a weight_scale, MLX's U32 weight
    // with scales.
    std::string module;
    bool naive = false, fp8 = false;
    if (method == HfQuantMethod::CompressedTensors) {
      if (endsWith(n, ".weight_packed")) {
        module = n.substr(0, n.size() - std::strlen(".weight_packed"));
      } else if (endsWith(n, ".weight") &&
                 (isType(all[i].info, "I8") ||
                  isType(all[i].info, "F8_E4M3")) &&
                 lookup(n + "_scale")) {
        module = n.substr(0, n.size() - std::strlen(".weight"));
        naive = true;
        fp8 = isType(all[i].info, "F8_E4M3");
      }
    } else if (method == HfQuantMethod::Bitsandbytes) {
      if (endsWith(n, ".weight") && isType(all[i].info, "U8") &&
          lookup(n + ".absmax"))
        module = n.substr(0, n.size() - std::strlen(".weight"));
    } else if (method == HfQuantMethod::Mlx) {
      if (endsWith(n, ".weight") && isType(all[i].info, "U32") &&
          lookup(n.substr(0, n.size() - 7) + ".scales"))
        module = n.substr(0, n.size() - std::strlen(".weight"));
    } else if (endsWith(n, ".qweight")) {
      module = n.substr(0, n.size() - std::strlen(".qweight"));
    }
    if (module.empty())
      continue;
    HfQuantLinear l;
    l.method = method;
    l.naive = naive;
    l.fp8 = fp8;
    l.weight.name = module + ".weight";
    const bool bnb = method == HfQuantMethod::Bitsandbytes;
    TensorSource *parts[] = {&l.qweight, &l.qzeros, &l.scales, &l.gIdx,
                             &l.shapeTensor};
    TensorSource *bnbParts[] = {&l.scales,       &l.quantMap,
                                &l.nestedAbsmax, &l.nestedQuantMap,
                                &l.quantState,   &l.quantState};
    if (bnb) {
      l.qweight = all[i];
      used[i] = true;
    }
    for (size_t p = 0; p < suffixes.size(); ++p) {
      std::string part = module + (naive && p == 0 ? ".weight" : suffixes[p]);
      if (bnb) {
        auto it = byName.find(part);
        if (it == byName.end())
          continue;
        if (bnbParts[p]->data)
          return Status::formatError(
              "tensor " + quoteName(part) + " is stored beside " +
              quoteName(bnbParts[p]->info.name) + " (one quant_state each)");
        *bnbParts[p] = all[it->second];
        used[it->second] = true;
        continue;
      }
      auto it = byName.find(part);
      if (it == byName.end())
        continue;
      *parts[p] = all[it->second];
      used[it->second] = true;
    }
    if (method != HfQuantMethod::Mlx && !bnb && !naive &&
        byName.count(l.weight.name))
      return Status::formatError("tensor " + quoteName(l.weight.name) +
                                 " is stored beside " + quoteName(n) +
                                 ", which stands for the same weight");
    if (l.method == HfQuantMethod::Awq && l.gIdx.data)
      return Status::formatError("tensor " + quoteName(module + ".g_idx") +
                                 ": AWQ has no g_idx (is this GPTQ?)");
    if (Status s = checkLinear(l, *config, model->warnings); !s)
      return s;
    model->linears.push_back(std::move(l));
  }
  // The others, and each linear where its first part is, in file order.
  std::vector<HfQuantModel::Entry> order;
  std::map<std::string, int64_t> linearOf;
  for (size_t i = 0; i < model->linears.size(); ++i)
    linearOf[model->linears[i].qweight.info.name] = int64_t(i);
  for (size_t i = 0; i < all.size(); ++i) {
    auto it = linearOf.find(all[i].info.name);
    if (it != linearOf.end()) {
      order.push_back({it->second, 0});
      continue;
    }
    if (used[i])
      continue;
    const std::string &n = all[i].info.name;
    // A part without its anchor. MLX's and naive-quantized's anchor,
    // MODULE.weight, may be there in another dtype.
    for (size_t p = method == HfQuantMethod::Mlx ? 1 : 0; p < suffixes.size();
         ++p) {
      const char *suffix = suffixes[p];
      if (!endsWith(n, suffix))
        continue;
      const std::string module = n.substr(0, n.size() - std::strlen(suffix));
      const TensorSource *w = lookup(module + ".weight");
      if (w && (method == HfQuantMethod::Mlx ||
                method == HfQuantMethod::CompressedTensors ||
                method == HfQuantMethod::Bitsandbytes))
        return Status::formatError(
            "tensor " + quoteName(n) + ": " + quoteName(w->info.name) +
            " beside it is " + dtypeText(w->info) + ", not " +
            (method == HfQuantMethod::Mlx
                 ? "the U32 words of an MLX quantized weight"
             : method == HfQuantMethod::Bitsandbytes
                 ? "the U8 codes of a bitsandbytes 4-bit weight (with an "
                   "absmax)"
                 : "the I8 or F8_E4M3 codes of a naive- or float-quantized "
                   "weight (and there is no weight_packed)"));
      return Status::formatError(
          "tensor " + quoteName(n) + " has no " +
          quoteName(method == HfQuantMethod::Bitsandbytes
                        ? module + ".weight"
                        : module + (method == HfQuantMethod::CompressedTensors
                                        ? ".weight_packed"
                                    : method == HfQuantMethod::Mlx
                                        ? ".weight"
                                        : ".qweight")) +
          " (a quantized linear's packed codes) beside it");
    }
    order.push_back({-1, model->others.size()});
    model->others.push_back(std::move(all[i]));
  }
  model->order = std::move(order);
  return model;
}

// --- Group planar sets
// ---------------------------------------------------------

StatusOr<HfPlanarSet> vmpack::formats::checkHfPlanarSet(
    const std::string &name,
    const std::vector<quant::PlanarTensorInfo> &parts) {
  const std::string record = planarRecordKey(name);
  auto bad = [&](const std::string &part, const std::string &why) {
    return Status::formatError("tensor " + quoteName(part) +
                               " of the group planar set recorded by " +
                               quoteName(record) + ": " + why);
  };
  const quant::PlanarTensorInfo *q = nullptr, *d = nullptr, *m = nullptr;
  for (const quant::PlanarTensorInfo &p : parts) {
    const std::string suffix =
        p.name.substr(std::min(p.name.size(), name.size() + 1));
    const quant::PlanarTensorInfo **slot = suffix == "q"   ? &q
                                           : suffix == "d" ? &d
                                           : suffix == "m" ? &m
                                                           : nullptr;
    if (!slot || p.name.compare(0, name.size() + 1, name + ".") != 0)
      return bad(p.name, "a group planar set has the parts " +
                             quoteName(name + ".q") + ", " +
                             quoteName(name + ".d") + " and " +
                             quoteName(name + ".m") + " only");
    if (*slot)
      return bad(p.name, "stored twice");
    *slot = &p;
  }
  if (!q)
    return bad(name + ".q", "missing (the codes)");
  if (!d)
    return bad(name + ".d", "missing (the scales)");
  HfPlanarSet set;
  set.name = name;
  // The codes: siN or uiN, N 2..8, [out, in], packed.
  const std::string &qt = q->type;
  const bool signedCodes = qt.compare(0, 2, "si") == 0;
  unsigned bits = 0;
  if ((signedCodes || qt.compare(0, 2, "ui") == 0) && qt.size() == 3 &&
      qt[2] >= '2' && qt[2] <= '8')
    bits = unsigned(qt[2] - '0');
  if (!bits)
    return bad(q->name, "the codes are si2..si8 or ui2..ui8, not " + qt);
  if (q->shape.size() != 2 || q->shape[0] <= 0 || q->shape[1] <= 0)
    return bad(q->name,
               "the codes are 2-D [out, in], not " + shapeText(q->shape));
  uint64_t elements = 0;
  if (__builtin_mul_overflow(uint64_t(q->shape[0]), uint64_t(q->shape[1]),
                             &elements) ||
      elements >= (uint64_t(1) << 60))
    return bad(q->name,
               "the codes' shape " + shapeText(q->shape) + " is too large");
  set.bits = bits;
  set.symmetric = signedCodes;
  set.out = q->shape[0];
  set.in = q->shape[1];
  const uint64_t codeBytes =
      (uint64_t(set.out) * uint64_t(set.in) * bits + 7) / 8;
  if (q->byteLength != codeBytes)
    return bad(q->name, std::to_string(q->byteLength) + " bytes, not the " +
                            std::to_string(codeBytes) + " of its packed codes");
  // The scales: [out, in / G].
  if (d->type != "f16" && d->type != "bf16" && d->type != "f32")
    return bad(d->name, "the scales are f16, bf16 or f32, not " + d->type);
  set.scaleType = d->type;
  if (d->shape.size() != 2 || d->shape[0] != set.out || d->shape[1] <= 0 ||
      set.in % d->shape[1] != 0)
    return bad(d->name, "the scales are [" + std::to_string(set.out) +
                            ", groups] with groups dividing " +
                            std::to_string(set.in) + ", not " +
                            shapeText(d->shape));
  const uint64_t units = uint64_t(d->shape[1]);
  set.groupSize = uint64_t(set.in) / units;
  const unsigned sb = set.scaleType == "f32" ? 4 : 2;
  if (d->byteLength != uint64_t(set.out) * units * sb)
    return bad(d->name, std::to_string(d->byteLength) + " bytes, not " +
                            std::to_string(uint64_t(set.out) * units * sb));
  // The offsets: none for signed codes; uiN zero points or biases.
  if (signedCodes && m)
    return bad(m->name, "signed (" + qt +
                            ") codes are symmetric, f(q) * d, and have no "
                            "zero points or biases");
  if (!signedCodes && !m)
    return bad(name + ".m", "missing: unsigned (" + qt +
                                ") codes need zero points (ui" +
                                std::to_string(bits) + ") or biases (" +
                                set.scaleType + ")");
  if (m) {
    set.affine = m->type == set.scaleType;
    if (!set.affine && m->type != qt)
      return bad(m->name, "the offsets are " + qt + " zero points or " +
                              set.scaleType + " biases, not " + m->type);
    if (m->shape != d->shape)
      return bad(m->name, "the offsets have the scales' shape " +
                              shapeText(d->shape) + ", not " +
                              shapeText(m->shape));
    const uint64_t want =
        set.affine ? d->byteLength : (uint64_t(set.out) * units * bits + 7) / 8;
    if (m->byteLength != want)
      return bad(m->name, std::to_string(m->byteLength) + " bytes, not " +
                              std::to_string(want));
  }
  quant::QuantScheme &sc = set.scheme;
  sc.name = "planar.group";
  sc.codeType = qt;
  sc.groupSize = set.groupSize;
  sc.scales = {{set.scaleType, set.groupSize}};
  if (set.affine) {
    sc.offsetKind = quant::OffsetKind::AddMinimum;
    sc.offsets = {{set.scaleType, set.groupSize}};
  } else if (m) {
    sc.offsetKind = quant::OffsetKind::ZeroPoint;
    sc.offsets = {{qt, set.groupSize}};
  }
  return set;
}

namespace {

/// Adds NAME to `names` for a record vmpack.planar.NAME = "group".
void addPlanarRecord(std::vector<std::string> &names, const std::string &key,
                     const std::string &value) {
  const std::string prefix = planarRecordKey("");
  if (key.compare(0, prefix.size(), prefix) == 0 && value == kHfPlanarRecord &&
      std::find(names.begin(), names.end(), key.substr(prefix.size())) ==
          names.end())
    names.push_back(key.substr(prefix.size()));
}

Status planarLinears(HfQuantModel &model, std::vector<TensorSource> all,
                     const std::vector<std::string> &recorded,
                     const std::string &where);

} // namespace

std::vector<std::string>
vmpack::formats::hfPlanarRecords(const StringMetadata &metadata) {
  std::vector<std::string> names;
  for (const auto &[key, value] : metadata)
    addPlanarRecord(names, key, value);
  return names;
}

std::vector<std::string> vmpack::formats::hfPlanarRecords(
    const std::vector<std::unique_ptr<WeightFile>> &files) {
  std::vector<std::string> names;
  for (const std::unique_ptr<WeightFile> &f : files) {
    for (const auto &[key, value] : f->stringMetadata)
      addPlanarRecord(names, key, value);
    for (const GgufKeyValue &kv : f->ggufMetadata)
      if (kv.value.type == GgufType::String && kv.value.strings.size() == 1)
        addPlanarRecord(names, kv.key, kv.value.strings[0]);
  }
  return names;
}

StatusOr<std::unique_ptr<HfQuantModel>> vmpack::formats::openHfPlanarModel(
    std::vector<std::unique_ptr<WeightFile>> files, const std::string &where) {
  auto model = std::make_unique<HfQuantModel>();
  const std::vector<std::string> recorded = hfPlanarRecords(files);
  model->files = std::move(files);
  std::vector<TensorSource> all;
  for (const std::unique_ptr<WeightFile> &f : model->files)
    for (TensorSource &s : f->sources())
      all.push_back(std::move(s));
  if (Status s = planarLinears(*model, std::move(all), recorded, where); !s)
    return s;
  return model;
}

StatusOr<std::unique_ptr<HfQuantModel>>
vmpack::formats::openHfPlanarModel(std::vector<TensorSource> tensors,
                                   const StringMetadata &metadata,
                                   const std::string &where) {
  auto model = std::make_unique<HfQuantModel>();
  if (Status s = planarLinears(*model, std::move(tensors),
                               hfPlanarRecords(metadata), where);
      !s)
    return s;
  return model;
}

namespace {

/// `model`'s linears (the sets `recorded` names) and others from `all`.
Status planarLinears(HfQuantModel &modelRef, std::vector<TensorSource> all,
                     const std::vector<std::string> &recorded,
                     const std::string &where) {
  HfQuantModel *model = &modelRef;
  model->config.method = HfQuantMethod::Planar;
  model->config.where = where;
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < all.size(); ++i)
    byName.emplace(all[i].info.name, i);
  std::vector<int64_t> linearAt(all.size(), -1);
  std::vector<bool> used(all.size(), false);
  for (const std::string &name : recorded) {
    if (!byName.count(name + ".q"))
      return Status::formatError(
          "'" + where + "': metadata key " + quoteName(planarRecordKey(name)) +
          " records a group planar set, but there is no tensor " +
          quoteName(name + ".q"));
    std::vector<quant::PlanarTensorInfo> infos;
    std::vector<size_t> members;
    for (size_t j = 0; j < all.size(); ++j) {
      const TensorInfo &t = all[j].info;
      if (t.name.compare(0, name.size() + 1, name + ".") != 0)
        continue;
      if (t.isOpaque())
        return Status::formatError(
            "'" + where + "': tensor " + quoteName(t.name) +
            " is ggml blocks, not a part of the group planar set recorded "
            "by " +
            quoteName(planarRecordKey(name)));
      std::string type = toString(t.elementType);
      if (type.size() > 1 && type[0] == 'i' &&
          type.find_first_not_of("0123456789", 1) == std::string::npos)
        type = "s" + type; // signless codes read back from safetensors/GGUF
      std::optional<uint64_t> packed =
          storedSize(t.elementType, t.shape, Encoding::Packed);
      infos.push_back({t.name, type, t.shape, packed ? *packed : t.length});
      members.push_back(j);
    }
    StatusOr<HfPlanarSet> set = checkHfPlanarSet(name, infos);
    if (!set)
      return set.status().withContext("'" + where + "': ");
    HfQuantLinear l;
    l.method = HfQuantMethod::Planar;
    l.weight.name = name;
    l.weight.scheme = set->scheme;
    l.weight.shape = {set->out, set->in};
    l.weight.axis = 1;
    l.bits = set->bits;
    l.groupSize = set->groupSize;
    l.out = set->out;
    l.in = set->in;
    l.symmetric = set->symmetric;
    l.affine = set->affine;
    l.scaleType = set->scaleType;
    for (size_t j : members) {
      TensorSource t = all[j];
      used[j] = true;
      // The bytes in the `packed` layout, in memory: a part stored in
      // another .vmpk encoding (or computed) is converted once.
      const uint64_t packed =
          *storedSize(t.info.elementType, t.info.shape, Encoding::Packed);
      const uint32_t width = t.info.elementType.scalarBits();
      const bool same = t.info.encoding == Encoding::Packed ||
                        (width % 8 == 0 && t.info.length == packed);
      if (!same || !t.data) {
        std::vector<uint8_t> stored(t.info.length);
        if (t.data)
          std::memcpy(stored.data(), t.data, stored.size());
        else if (t.produce)
          t.produce(0, stored.size(), stored.data());
        else
          return Status::formatError("'" + where + "': tensor " +
                                     quoteName(t.info.name) +
                                     " has no bytes in memory");
        auto bytes = std::make_unique<std::vector<uint8_t>>(packed);
        if (same)
          *bytes = std::move(stored);
        else
          vmpack::convert(t.info.encoding, Encoding::Packed, width,
                          stored.data(), bytes->data(),
                          *numElements(t.info.shape) *
                              t.info.elementType.scalarsPerElement());
        t.data = bytes->data();
        t.produce = nullptr;
        t.fd = -1; // not the stored bytes any more
        t.fileOffset = 0;
        t.info.encoding = Encoding::Packed;
        t.info.length = packed;
        model->owned.push_back(std::move(bytes));
      }
      const std::string suffix = t.info.name.substr(name.size() + 1);
      (suffix == "q"   ? l.qweight
       : suffix == "d" ? l.scales
                       : l.qzeros) = std::move(t);
    }
    linearAt[byName.at(name + ".q")] = int64_t(model->linears.size());
    model->linears.push_back(std::move(l));
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (linearAt[i] >= 0)
      model->order.push_back({linearAt[i], 0});
    else if (!used[i]) {
      model->order.push_back({-1, model->others.size()});
      model->others.push_back(std::move(all[i]));
    }
  }
  return Status::ok();
}

} // namespace

// --- Unpacking
// -----------------------------------------------------------------

Status vmpack::formats::unpackHfRows(const HfQuantLinear &l, int64_t first,
                                     int64_t count, uint64_t run, HfRows &rows,
                                     bool withCodes) {
  if (l.fp8 || l.mxfp4 || l.method == HfQuantMethod::Bitsandbytes)
    return Status::invalidArgument("unpackHfRows: " + quoteName(l.weight.name) +
                                   " has no integer codes (" +
                                   describeHfLinear(l) + ")");
  if (first < 0 || count < 0 || first + count > l.out || run == 0 ||
      uint64_t(l.in) % run != 0)
    return Status::invalidArgument(
        "unpackHfRows: rows " + std::to_string(first) + "+" +
        std::to_string(count) + " of " + quoteName(l.weight.name) + ", run " +
        std::to_string(run));
  const uint64_t in = uint64_t(l.in), out = uint64_t(l.out);
  const uint64_t units = in / run;
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  rows.codes.resize(withCodes ? uint64_t(count) * in : 0);
  rows.zeros.resize(uint64_t(count) * units);
  rows.scales.resize(uint64_t(count) * units * sb);
  uint8_t *codes = rows.codes.data();
  const uint8_t *qw = l.qweight.data;

  if (!withCodes) {
    // The scales and zero points only.
  } else if (l.method == HfQuantMethod::Gptq) {
    // qweight [in * bits / 32, out]: column r is row r's codes as a bit
    // stream. Tiles of 16 columns are gathered into rows (one cache line of
    // each word row), then each row's stream is split into bytes.
    const uint64_t words = in * l.bits / 32;
    constexpr uint64_t kTile = 16;
    std::vector<uint32_t> tile(kTile * words);
    for (int64_t r0 = first; r0 < first + count; r0 += int64_t(kTile)) {
      uint64_t t = std::min<uint64_t>(kTile, uint64_t(first + count - r0));
      for (uint64_t w = 0; w < words; ++w) {
        const uint8_t *src = qw + (w * out + uint64_t(r0)) * 4;
        for (uint64_t j = 0; j < t; ++j)
          tile[j * words + w] = loadU32(src + 4 * j);
      }
      for (uint64_t j = 0; j < t; ++j) {
        const uint32_t *col = tile.data() + j * words;
        uint8_t *dst = codes + (uint64_t(r0 - first) + j) * in;
        if (l.bits == 3) {
          for (uint64_t e = 0; e < in; ++e)
            dst[e] = uint8_t(
                streamCode(reinterpret_cast<const uint8_t *>(col), e, 3));
          continue;
        }
        const unsigned per = 32 / l.bits, mask = (1u << l.bits) - 1;
        for (uint64_t w = 0; w < words; ++w) {
          uint32_t v = col[w];
          for (unsigned k = 0; k < per; ++k, v >>= l.bits)
            dst[w * per + k] = uint8_t(v & mask);
        }
      }
    }
  } else if (l.method == HfQuantMethod::Mlx) {
    // MLX weight [out, in * bits / 32]: row r a little-endian bit stream.
    const uint64_t rowBytes = in * l.bits / 8;
    for (int64_t r = first; r < first + count; ++r) {
      const uint8_t *src = qw + uint64_t(r) * rowBytes;
      uint8_t *dst = codes + uint64_t(r - first) * in;
      for (uint64_t e = 0; e < in; ++e)
        dst[e] = uint8_t(streamCode(src, e, l.bits));
    }
  } else if (l.method == HfQuantMethod::Planar) {
    // NAME.q [out, in], packed: uiN codes as stored, siN codes q - 2^(N-1)
    // (two's complement: the top bit flipped gives q).
    unpackPacked(qw, l.qweight.info.length, uint64_t(first) * in,
                 uint64_t(count) * in, l.bits, codes);
    if (l.symmetric) {
      const uint8_t flip = uint8_t(1u << (l.bits - 1));
      for (uint64_t e = 0; e < uint64_t(count) * in; ++e)
        codes[e] ^= flip;
    }
  } else if (l.method == HfQuantMethod::CompressedTensors) {
    if (l.naive) {
      // weight I8 [out, in]: q + 2^(bits-1), as pack_to_int32 stores it.
      const uint8_t half = uint8_t(1u << (l.bits - 1));
      const uint8_t *src = qw + uint64_t(first) * in;
      for (uint64_t e = 0; e < uint64_t(count) * in; ++e)
        codes[e] = uint8_t(src[e] + half);
    } else {
      // weight_packed [out, ceil(in / per)]: code i of a row in bits
      // [bits * (i % per), ...) of word i / per.
      const unsigned per = ctPerWord(l.bits), mask = (1u << l.bits) - 1;
      const uint64_t words = (in + per - 1) / per;
      for (int64_t r = first; r < first + count; ++r) {
        const uint8_t *src = qw + uint64_t(r) * words * 4;
        uint8_t *dst = codes + uint64_t(r - first) * in;
        for (uint64_t w = 0; w < words; ++w) {
          uint32_t v = loadU32(src + 4 * w);
          const uint64_t n = std::min<uint64_t>(per, in - w * per);
          for (uint64_t k = 0; k < n; ++k, v >>= l.bits)
            dst[w * per + k] = uint8_t(v & mask);
        }
      }
    }
  } else {
    // AWQ qweight [in, out / 8]: row r's code at input i is nibble
    // kAwqNibble[r % 8] of word (i, r / 8).
    const uint64_t cols = out / 8;
    for (uint64_t i0 = 0; i0 < in; i0 += 64) {
      uint64_t i1 = std::min(in, i0 + 64);
      for (int64_t r = first; r < first + count; ++r) {
        const uint64_t c = uint64_t(r) / 8;
        const unsigned shift = 4 * kAwqNibble[uint64_t(r) % 8];
        uint8_t *dst = codes + uint64_t(r - first) * in;
        for (uint64_t i = i0; i < i1; ++i)
          dst[i] = uint8_t((loadU32(qw + (i * cols + c) * 4) >> shift) & 15);
      }
    }
  }
  // Scales and zero points (MLX: biases) of each run.
  const uint8_t *sc = l.scales.data;
  const bool biases = l.affine;
  if (biases)
    rows.zeros.resize(uint64_t(count) * units * sb);
  for (int64_t r = first; r < first + count; ++r)
    for (uint64_t u = 0; u < units; ++u) {
      uint64_t pos = u * run;
      uint64_t g = l.weight.groupIndex.empty()
                       ? pos / l.groupSize
                       : uint64_t(l.weight.groupIndex[pos]);
      uint64_t at = uint64_t(r - first) * units + u;
      const uint64_t si = scaleIndex(l, g, uint64_t(r));
      std::memcpy(rows.scales.data() + at * sb, sc + si * sb, sb);
      if (biases)
        std::memcpy(rows.zeros.data() + at * sb, l.qzeros.data + si * sb, sb);
      else
        rows.zeros[at] =
            uint8_t(storedZero(l, g, uint64_t(r)) + (l.zerosMinusOne ? 1 : 0));
    }
  quant::GroupQuantSource &s = rows.source;
  s.name = l.weight.name;
  s.shape = {count, l.in};
  s.codeType = "ui8";
  s.codes = rows.codes.data();
  s.groupSize = run;
  s.scaleType = l.scaleType;
  s.scales = rows.scales.data();
  s.offsetKind =
      biases ? quant::OffsetKind::AddMinimum : quant::OffsetKind::ZeroPoint;
  s.offsets = rows.zeros.data();
  return Status::ok();
}

std::string vmpack::formats::describeHfLinear(const HfQuantLinear &l) {
  if (l.method == HfQuantMethod::Bitsandbytes)
    return "bitsandbytes " + l.bnb.quantType + ", blocks of " +
           std::to_string(l.bnb.blocksize) +
           (l.bnb.nested ? ", double-quantized absmax (u8, blocks of " +
                               std::to_string(l.bnb.nestedBlocksize) + ")"
                         : std::string(", f32 absmax")) +
           ", " + l.bnb.dtype;
  if (l.mxfp4)
    return "mlx mxfp4, groups of 32, e8m0 scales";
  if (l.fp8)
    return "compressed-tensors float-quantized F8_E4M3, " +
           (l.oneScale    ? std::string("one scale per tensor")
            : l.blockRows ? "blocks of " + std::to_string(l.blockRows) + " x " +
                                std::to_string(l.blockCols)
            : l.groupSize == uint64_t(l.in)
                ? std::string("one scale per output row")
                : "groups of " + std::to_string(l.groupSize)) +
           ", " + l.scaleType + " scales";
  std::string s = std::string(hfQuantMethodName(l.method)) +
                  (l.method == HfQuantMethod::CompressedTensors
                       ? l.naive ? " naive-quantized" : " pack-quantized"
                   : l.method == HfQuantMethod::Mlx    ? " affine"
                   : l.method == HfQuantMethod::Planar ? " group"
                                                       : "") +
                  " " + std::to_string(l.bits) + "-bit, " +
                  (l.oneScale ? std::string("one scale per tensor")
                              : "groups of " + std::to_string(l.groupSize)) +
                  ", " + l.scaleType +
                  (l.affine ? " scales and biases" : " scales");
  if (l.method == HfQuantMethod::Gptq)
    s += l.zerosMinusOne ? ", v1 zero points" : ", v2 zero points";
  if (!l.affine)
    s += l.symmetric ? ", symmetric" : ", asymmetric";
  if (!l.weight.groupIndex.empty())
    s += ", act-order";
  return s;
}

// --- Writing
// -------------------------------------------------------------------

namespace {

/// MLX's FP4 (E2M1) values (mlx/ops.cpp fp_dequantize's lut).
constexpr float kE2m1[16] = {+0.0f, +0.5f, +1.0f, +1.5f, +2.0f, +3.0f,
                             +4.0f, +6.0f, -0.0f, -0.5f, -1.0f, -1.5f,
                             -2.0f, -3.0f, -4.0f, -6.0f};

/// 2^(e - 127) as MLX decodes an E8M0 scale (bfloat16 bits e << 7, 0x40
/// for e = 0; 255 is infinity).
float e8m0ToFloat(uint8_t e) {
  uint32_t bits = e == 0 ? 0x00400000u : uint32_t(e) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Rows [r0, r1) of an MLX mxfp4 weight in float32: e2m1(q) * 2^(e - 127)
/// (exact but for overflow to infinity).
void mxfp4Values(const HfQuantLinear &l, int64_t r0, int64_t r1, float *out) {
  const uint64_t in = uint64_t(l.in);
  for (int64_t r = r0; r < r1; ++r) {
    const uint8_t *words = l.qweight.data + uint64_t(r) * in / 2;
    const uint8_t *scales = l.scales.data + uint64_t(r) * in / 32;
    for (uint64_t i = 0; i < in; ++i)
      out[uint64_t(r - r0) * in + i] =
          kE2m1[streamCode(words, i, 4)] * e8m0ToFloat(scales[i / 32]);
  }
}

/// Rows [r0, r1) of an MLX mxfp4 weight as ggml MXFP4 blocks (e, then
/// qs[j] = code j | code j + 16 << 4).
void mxfp4Blocks(const HfQuantLinear &l, int64_t r0, int64_t r1, uint8_t *out) {
  const uint64_t in = uint64_t(l.in);
  uint8_t *b = out;
  for (int64_t r = r0; r < r1; ++r) {
    const uint8_t *words = l.qweight.data + uint64_t(r) * in / 2;
    const uint8_t *scales = l.scales.data + uint64_t(r) * in / 32;
    for (uint64_t k = 0; k < in / 32; ++k, b += 17) {
      b[0] = scales[k];
      for (unsigned j = 0; j < 16; ++j)
        b[1 + j] = uint8_t(streamCode(words, 32 * k + j, 4) |
                           streamCode(words, 32 * k + j + 16, 4) << 4);
    }
  }
}

/// Rows [r0, r1) of the output that bytes [first, first + n) fall in, for
/// rows of `rowBytes` bytes.
std::pair<int64_t, int64_t> rowsOf(uint64_t first, uint64_t n,
                                   uint64_t rowBytes) {
  return {int64_t(first / rowBytes),
          int64_t((first + n + rowBytes - 1) / rowBytes)};
}

/// Whether `type` is written from `l` by quant::gptqToGgmlRows: symmetric
/// GPTQ codes of Q4_0's or Q8_0's width in groups of whole blocks, f16
/// scales, no act-order. Then each block holds the same codes and scale and
/// decodes to the same float32 values, provided no scale is NaN or infinite.
bool directGgml(const HfQuantLinear &l, uint32_t type) {
  return l.method == HfQuantMethod::Gptq && l.symmetric &&
         l.weight.groupIndex.empty() && l.groupSize % 32 == 0 &&
         l.scaleType == "f16" &&
         ((type == quant::kGgmlQ4_0 && l.bits == 4) ||
          (type == quant::kGgmlQ8_0 && l.bits == 8));
}

/// Whether `type` is written from `l` by planarToGgmlRows: a symmetric
/// group planar set (siN codes) of Q4_0's or Q8_0's width in groups of
/// whole blocks, f16 scales. Each block then holds the stored signed codes
/// and scale, the same float32 values, provided no scale is NaN or
/// infinite.
bool directPlanar(const HfQuantLinear &l, uint32_t type) {
  return l.method == HfQuantMethod::Planar && l.symmetric &&
         l.groupSize % 32 == 0 && l.scaleType == "f16" &&
         ((type == quant::kGgmlQ4_0 && l.bits == 4) ||
          (type == quant::kGgmlQ8_0 && l.bits == 8));
}

/// Rows [r0, r1) of a directPlanar set as Q4_0 or Q8_0 blocks: d the
/// group's scale; Q4_0's nibble j | nibble j + 16 << 4 with nibble = the
/// si4 code + 8 (its top bit flipped), Q8_0's bytes the si8 codes.
void planarToGgmlRows(const HfQuantLinear &l, uint32_t type, int64_t r0,
                      int64_t r1, uint8_t *out) {
  const uint64_t in = uint64_t(l.in), units = in / l.groupSize;
  const uint64_t perGroup = l.groupSize / 32;
  for (int64_t r = r0; r < r1; ++r)
    for (uint64_t k = 0; k < in / 32; ++k) {
      std::memcpy(out, l.scales.data + (uint64_t(r) * units + k / perGroup) * 2,
                  2);
      const uint64_t e0 = uint64_t(r) * in + 32 * k;
      if (type == quant::kGgmlQ8_0) {
        std::memcpy(out + 2, l.qweight.data + e0, 32);
        out += 34;
        continue;
      }
      const uint8_t *q = l.qweight.data + e0 / 2;
      for (unsigned j = 0; j < 16; ++j) {
        const uint8_t lo = uint8_t((q[j / 2] >> (4 * (j & 1))) & 15);
        const uint8_t hi = uint8_t((q[(j + 16) / 2] >> (4 * (j & 1))) & 15);
        out[2 + j] = uint8_t((lo ^ 8) | (hi ^ 8) << 4);
      }
      out += 18;
    }
}

/// The first of a tensor's float16 values that is NaN or infinite.
struct NonFiniteHalf {
  uint64_t index;
  const char *what; // "NaN" or "infinite"
};

/// Whether any of `t`'s float16 values is NaN or infinite, in a loop
/// without an exit (the compiler vectorizes it); then, only then, which.
std::optional<NonFiniteHalf> firstNonFiniteHalf(const TensorSource &t) {
  const uint64_t n = t.info.length / 2;
  uint16_t any = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, t.data + 2 * i, 2);
    any |= uint16_t((h & 0x7C00) == 0x7C00);
  }
  for (uint64_t i = 0; i < n && any; ++i) {
    uint16_t h;
    std::memcpy(&h, t.data + 2 * i, 2);
    if ((h & 0x7C00) == 0x7C00)
      return NonFiniteHalf{i, h & 0x3FF ? "NaN" : "infinite"};
  }
  return std::nullopt;
}

} // namespace

StatusOr<uint32_t>
vmpack::formats::hfGgmlTarget(const HfQuantLinear &l,
                              std::optional<uint32_t> requested) {
  auto refuse = [&](const std::string &why) {
    return Status::formatError("tensor " + quoteName(l.weight.name) + " (" +
                               describeHfLinear(l) + "): " + why);
  };
  if (l.fp8)
    return refuse("FP8 (E4M3) codes times a scale are no ggml block type's "
                  "values, so none holds them exactly; --dequantize writes "
                  "floats");
  if (l.mxfp4) {
    const uint32_t type = requested.value_or(quant::kGgmlMXFP4);
    if (type != quant::kGgmlMXFP4)
      return refuse(std::string("E2M1 codes with E8M0 scales are MXFP4's; ") +
                    quant::ggmlTypeTraits(type)->name +
                    " does not hold them exactly");
    // Every block built and decoded as ggml does, and compared with MLX's
    // value: E8M0 255 is refused by ggml's validation, and MLX's code 8 is
    // -0.0 where ggml's is +0.0.
    const uint64_t in = uint64_t(l.in);
    const int64_t step = std::max<int64_t>(1, int64_t((1u << 20) / in));
    std::vector<uint8_t> blocks;
    std::vector<float> want, got;
    for (int64_t r = 0; r < l.out; r += step) {
      const int64_t n = std::min(step, l.out - r);
      const uint64_t count = uint64_t(n) * in;
      const uint8_t *sc = l.scales.data + uint64_t(r) * in / 32;
      for (uint64_t k = 0; k < count / 32; ++k)
        if (sc[k] == 0xFF)
          return refuse("the scale of row " +
                        std::to_string(uint64_t(r) + k / (in / 32)) +
                        ", group " + std::to_string(k % (in / 32)) +
                        " is E8M0 0xFF (NaN), which MXFP4 forbids (ggml's "
                        "validation refuses it)");
      blocks.resize(count / 32 * 17);
      want.resize(count);
      got.resize(count);
      mxfp4Blocks(l, r, r + n, blocks.data());
      mxfp4Values(l, r, r + n, want.data());
      if (Status st = quant::decodeGgmlBlocks(quant::kGgmlMXFP4, blocks.data(),
                                              count / 32, got.data());
          !st)
        return st;
      for (uint64_t e = 0; e < count; ++e) {
        uint32_t a, b;
        std::memcpy(&a, &want[e], 4);
        std::memcpy(&b, &got[e], 4);
        if (a != b)
          return refuse("element [" + std::to_string(uint64_t(r) + e / in) +
                        ", " + std::to_string(e % in) + "] would change from " +
                        floatWithBits(want[e]) + " to " +
                        floatWithBits(got[e]) + " in MXFP4" +
                        (a == 0x80000000u ? " (MLX's code 8 is -0.0, ggml's "
                                            "+0.0)"
                                          : "") +
                        "; not repacked");
      }
    }
    return type;
  }
  if (l.method == HfQuantMethod::Bitsandbytes)
    return refuse(
        std::string(l.bnb.quantType == "nf4"
                        ? "NF4's 16 values (normal-distribution quantiles)"
                        : "FP4's 16 values (0, 1/192, 1/6, 1/4, 1/3, 1/2, 2/3, "
                          "1 and their negatives)") +
        " times a float32 absmax per block are no ggml block type's values, "
        "so none holds them exactly; --dequantize writes floats");
  const bool mlx = l.affine;
  uint32_t type =
      requested.value_or(mlx ? (l.bits == 4   ? quant::kGgmlQ4_1
                                : l.bits == 5 ? quant::kGgmlQ5_1
                                              : 0)
                         : l.bits == 8 && l.symmetric ? quant::kGgmlQ8_0
                         : l.bits == 4 && l.symmetric ? quant::kGgmlQ4_0
                         : l.bits == 4                ? quant::kGgmlQ4_1
                                                      : 0);
  if (type == 0 && mlx)
    return refuse(std::to_string(l.bits) +
                  "-bit affine codes q * s + b have no exact ggml type (4-bit "
                  "codes go to Q4_1, 5-bit codes to Q5_1); --dequantize "
                  "writes floats");
  if (type == 0)
    return refuse(std::to_string(l.bits) + "-bit " +
                  (l.symmetric ? "symmetric" : "asymmetric") +
                  " codes have no exact ggml type (4-bit codes go to Q4_0 or "
                  "Q4_1, symmetric 8-bit codes to Q8_0); --dequantize writes "
                  "floats");
  const char *name = quant::ggmlTypeTraits(type)->name;
  uint64_t run = l.uniformRun(32);
  if (run % 32 != 0)
    return refuse(l.weight.groupIndex.empty()
                      ? "groups of " + std::to_string(l.groupSize) +
                            " do not fill whole 32-element " + name + " blocks"
                      : std::string("its act-order groups (g_idx) are not "
                                    "contiguous runs of 32, as ") +
                            name + " blocks are");
  if (type == quant::kGgmlQ4_0 || type == quant::kGgmlQ8_0 ||
      type == quant::kGgmlQ5_0) {
    unsigned tbits = type == quant::kGgmlQ8_0   ? 8
                     : type == quant::kGgmlQ5_0 ? 5
                                                : 4;
    if (l.bits > tbits)
      return refuse(std::to_string(l.bits) + "-bit codes do not fit in " +
                    name);
    if (mlx)
      return refuse(std::string("its values q * s + b have a bias per group, "
                                "which ") +
                    name + " (no minimum) cannot hold; Q4_1 and Q5_1 can");
    if (!l.symmetric)
      return refuse(std::string("a zero point is not ") +
                    std::to_string(1u << (l.bits - 1)) + ", and " + name +
                    " is symmetric");
  }
  if (type != quant::kGgmlQ4_0 && type != quant::kGgmlQ8_0 &&
      type != quant::kGgmlQ4_1 && type != quant::kGgmlQ5_1 &&
      type != quant::kGgmlQ5_0)
    return refuse(std::string("exact repacking into ") + name +
                  " is not supported (Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 are)");
  if (mlx && l.bits > (type == quant::kGgmlQ4_1 ? 4u : 5u))
    return refuse(std::to_string(l.bits) + "-bit codes do not fit in " + name);
  if (directGgml(l, type)) {
    // GPTQ's scales [groups, out].
    if (std::optional<NonFiniteHalf> bad = firstNonFiniteHalf(l.scales))
      return refuse("the scale of group " +
                    std::to_string(bad->index / uint64_t(l.out)) + ", output " +
                    std::to_string(bad->index % uint64_t(l.out)) + " is " +
                    bad->what + ", which " + name +
                    " forbids (ggml's validation refuses it)");
    return type;
  }
  if (directPlanar(l, type)) {
    // NAME.d [out, in / G]: the same scan as GPTQ's.
    const uint64_t units = uint64_t(l.in) / l.groupSize;
    if (std::optional<NonFiniteHalf> bad = firstNonFiniteHalf(l.scales))
      return refuse(
          "the scale of output " + std::to_string(bad->index / units) +
          ", group " + std::to_string(bad->index % units) + " is " + bad->what +
          ", which " + name + " forbids (ggml's validation refuses it)");
    return type;
  }
  // Every block is built and compared, element by element, before a byte
  // is written; the writer builds them again.
  const uint64_t rowBlocks = uint64_t(l.in) / 32;
  const uint64_t blockBytes = quant::ggmlTypeTraits(type)->typeSize;
  const int64_t step = std::max<int64_t>(
      1, int64_t((4u << 20) / std::max<uint64_t>(1, uint64_t(l.in))));
  HfRows rows;
  std::vector<uint8_t> blocks;
  for (int64_t r = 0; r < l.out; r += step) {
    int64_t n = std::min(step, l.out - r);
    if (Status s = unpackHfRows(l, r, n, run, rows); !s)
      return s;
    blocks.resize(uint64_t(n) * rowBlocks * blockBytes);
    if (Status s = quant::repackToGgml(type, rows.source, blocks.data()); !s)
      return n == l.out ? s
                        : Status::formatError(
                              s.message() + " (rows " + std::to_string(r) +
                              ".." + std::to_string(r + n - 1) +
                              ", the element's row counted from " +
                              std::to_string(r) + ")");
  }
  return type;
}

StatusOr<TensorSource> vmpack::formats::hfLinearAsGgml(const HfQuantLinear &l,
                                                       uint32_t type) {
  StatusOr<uint32_t> checked = hfGgmlTarget(l, type);
  if (!checked)
    return checked.status();
  const quant::GgmlTypeTraits *t = quant::ggmlTypeTraits(type);
  const uint64_t rowBytes = uint64_t(l.in) / 32 * t->typeSize;
  const uint64_t run = l.uniformRun(32);
  TensorSource out;
  out.info.name = l.weight.name;
  out.info.shape = {l.out, l.in};
  out.info.ggmlBlockType = type;
  out.info.encoding = Encoding::Byte;
  out.info.elementType = *parseElementType("ui8");
  out.info.length = rowBytes * uint64_t(l.out);
  const HfQuantLinear *lp = &l;
  const bool direct = directGgml(l, type);
  const bool planarDirect = directPlanar(l, type);
  out.produce = [lp, type, rowBytes, run, direct,
                 planarDirect](uint64_t first, uint64_t n, uint8_t *dst) {
    // Rows [r0, r1) as blocks at `to`.
    auto build = [&](int64_t r0, int64_t r1, uint8_t *to) {
      if (planarDirect) {
        planarToGgmlRows(*lp, type, r0, r1, to);
        return;
      }
      if (direct) {
        quant::gptqToGgmlRows(lp->bits, lp->qweight.data, lp->scales.data,
                              uint64_t(lp->in), uint64_t(lp->out),
                              lp->groupSize, uint64_t(r0), uint64_t(r1 - r0),
                              to);
        return;
      }
      if (lp->mxfp4) {
        mxfp4Blocks(*lp, r0, r1, to);
        return;
      }
      HfRows rows;
      // hfGgmlTarget checked every row: neither step can fail here.
      (void)unpackHfRows(*lp, r0, r1 - r0, run, rows);
      (void)quant::repackToGgml(type, rows.source, to);
    };
    // Whole rows straight into dst; a row cut by either end through a
    // buffer of one row.
    const uint64_t end = first + n;
    const uint64_t full0 = (first + rowBytes - 1) / rowBytes,
                   full1 = end / rowBytes;
    std::vector<uint8_t> row;
    auto part = [&](uint64_t r, uint64_t from, uint64_t to) {
      row.resize(rowBytes);
      build(int64_t(r), int64_t(r) + 1, row.data());
      std::memcpy(dst + (r * rowBytes + from - first), row.data() + from,
                  to - from);
    };
    if (full0 > full1) { // inside one row
      part(first / rowBytes, first % rowBytes, end % rowBytes);
      return;
    }
    if (first % rowBytes)
      part(first / rowBytes, first % rowBytes, rowBytes);
    if (full1 > full0)
      build(int64_t(full0), int64_t(full1), dst + (full0 * rowBytes - first));
    if (end % rowBytes)
      part(full1, 0, end % rowBytes);
  };
  return out;
}

namespace {

float loadF32(const uint8_t *p) {
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

/// The float32 value of an E4M3FN byte (OCP FP8: bias 7, no infinities,
/// S.1111.111 NaN), exact.
float e4m3ToFloat(uint8_t b) {
  const unsigned e = (b >> 3) & 15, m = b & 7;
  float v = e == 15 && m == 7 ? std::numeric_limits<float>::quiet_NaN()
            : e == 0          ? std::ldexp(float(m), -9)
                              : std::ldexp(float(8 + m), int(e) - 10);
  return b & 0x80 ? -v : v;
}

/// Rows [r0, r1) of a compressed-tensors float-quantized weight in
/// float32: e4m3(q) * s, one float32 product (forward.py _dequantize,
/// x_q.to(scale.dtype) * scale).
void fp8Values(const HfQuantLinear &l, int64_t r0, int64_t r1, float *out) {
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  auto scaleAt = [&](uint64_t index) {
    if (sb == 4) {
      float f;
      std::memcpy(&f, l.scales.data + 4 * index, 4);
      return f;
    }
    uint16_t h;
    std::memcpy(&h, l.scales.data + 2 * index, 2);
    if (l.scaleType == "f16")
      return quant::halfToFloat(h);
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  const uint64_t in = uint64_t(l.in);
  const uint64_t groups = in / l.groupSize;
  for (int64_t r = r0; r < r1; ++r)
    for (uint64_t i = 0; i < in; ++i) {
      const uint64_t si =
          l.oneScale ? 0
          : l.blockRows
              ? uint64_t(r / l.blockRows) * ((in + uint64_t(l.blockCols) - 1) /
                                             uint64_t(l.blockCols)) +
                    i / uint64_t(l.blockCols)
              : uint64_t(r) * groups + i / l.groupSize;
      out[uint64_t(r - r0) * in + i] =
          e4m3ToFloat(l.qweight.data[uint64_t(r) * in + i]) * scaleAt(si);
    }
}

/// Elements [first, first + count) of a bitsandbytes weight in float32, as
/// its dequantize_4bit computes them: table[q] * absmax[e / blocksize],
/// one float32 product; double-quantized absmax[b] =
/// (nested_quant_map[qa[b]] * nested_absmax[b / nested_blocksize]) +
/// nested_offset, each operation rounded to float32.
void bnbValues(const HfQuantLinear &l, uint64_t first, uint64_t count,
               float *out) {
  const float *table = bnbCodeValues(l.bnb.quantType);
  const uint64_t bs = l.bnb.blocksize;
  uint64_t block = UINT64_MAX;
  float absmax = 0;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t e = first + k;
    if (e / bs != block) {
      block = e / bs;
      if (l.bnb.nested) {
        const float code =
            loadF32(l.nestedQuantMap.data + 4 * uint64_t(l.scales.data[block]));
        const float scale =
            loadF32(l.nestedAbsmax.data + 4 * (block / l.bnb.nestedBlocksize));
        const float product = code * scale;
        absmax = product + l.bnb.nestedOffset;
      } else {
        absmax = loadF32(l.scales.data + 4 * block);
      }
    }
    const uint8_t byte = l.qweight.data[e / 2];
    const unsigned q = e % 2 ? byte & 15 : byte >> 4;
    out[k] = table[q] * absmax;
  }
}

/// A stored scale (`from`: "f16", "bf16" or "f32") as float32.
float storedScale(const std::string &from, const uint8_t *p) {
  if (from == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return from == "f16" ? quant::halfToFloat(h) : quant::bfloat16ToFloat(h);
}

/// `f` in `to` (f32, f16 or bf16) at `out`; false when `to` cannot hold it
/// exactly (every bit of a NaN included).
bool putScale(quant::FloatType to, float f, uint8_t *out) {
  uint32_t want;
  std::memcpy(&want, &f, 4);
  float back = f;
  if (to == quant::FloatType::F32) {
    std::memcpy(out, &f, 4);
  } else {
    uint16_t h = to == quant::FloatType::F16 ? quant::floatToHalf(f)
                                             : quant::floatToBFloat16(f);
    std::memcpy(out, &h, 2);
    back = to == quant::FloatType::F16 ? quant::halfToFloat(h)
                                       : quant::bfloat16ToFloat(h);
  }
  uint32_t got;
  std::memcpy(&got, &back, 4);
  return got == want;
}

/// Packs `count` codes of `bits` (2, 4 or 8) bits each, first in the lowest
/// bits, into count * bits / 8 bytes (count * bits a multiple of 8).
void packCodes(const uint8_t *codes, uint64_t count, unsigned bits,
               uint8_t *out) {
  const unsigned per = 8 / bits;
  for (uint64_t i = 0; i < count / per; ++i) {
    uint8_t b = 0;
    for (unsigned k = 0; k < per; ++k)
      b |= uint8_t(codes[i * per + k] << (k * bits));
    out[i] = b;
  }
}

} // namespace

StatusOr<std::vector<TensorSource>>
vmpack::formats::hfLinearAsMatMulNBits(const HfQuantLinear &l,
                                       const MatMulNBitsTarget &t) {
  auto refuse = [&](const std::string &why) {
    return Status::formatError("tensor " + quoteName(l.weight.name) + " (" +
                               describeHfLinear(l) + ") as MatMulNBits " +
                               quoteName(t.codes.name) + ": " + why);
  };
  if (l.affine)
    return refuse("its values are q * scale + bias (MLX affine), and "
                  "MatMulNBits holds (q - zero point) * scale");
  if (l.method == HfQuantMethod::Bitsandbytes)
    return refuse("bitsandbytes codes index a table of values (NF4, FP4), "
                  "and MatMulNBits holds (q - zero point) * scale");
  if (l.fp8)
    return refuse("FP8 (E4M3) codes are floats, and MatMulNBits holds "
                  "(q - zero point) * scale");
  if (t.bits != l.bits)
    return refuse("the node has bits " + std::to_string(t.bits) +
                  ", the codes are " + std::to_string(l.bits) + "-bit");
  if (t.bits != 2 && t.bits != 4 && t.bits != 8)
    return refuse("MatMulNBits of " + std::to_string(t.bits) +
                  " bits is not written (2, 4 and 8 are)");
  const uint64_t bs = t.blockSize, in = uint64_t(l.in), out = uint64_t(l.out);
  if (bs == 0 || in % bs != 0)
    return refuse("K = " + std::to_string(in) + " is not whole blocks of " +
                  std::to_string(bs));
  const uint64_t run = l.uniformRun(bs);
  if (run % bs != 0)
    return refuse("a block of " + std::to_string(bs) +
                  " codes would span two groups (" +
                  (l.weight.groupIndex.empty()
                       ? "groups of " + std::to_string(l.groupSize)
                       : std::string("act-order groups that are not runs of ") +
                             std::to_string(bs)) +
                  "); MatMulNBits has one scale per block");
  const uint64_t blocks = in / bs, blockBytes = bs * t.bits / 8;
  const uint64_t zpRowBytes = (blocks * t.bits + 7) / 8;
  if (t.codes.shape !=
      std::vector<int64_t>{int64_t(out), int64_t(blocks), int64_t(blockBytes)})
    return refuse(
        "B is " + tensorTypeString(t.codes.elementType, t.codes.shape) +
        ", the linear [" + std::to_string(out) + ", " + std::to_string(in) +
        "] needs [" + std::to_string(out) + ", " + std::to_string(blocks) +
        ", " + std::to_string(blockBytes) + "]");
  std::optional<quant::FloatType> scaleType = floatTypeOf(t.scales.elementType);
  std::optional<uint64_t> nScales = numElements(t.scales.shape);
  if (!scaleType || !nScales || *nScales != out * blocks)
    return refuse("its scales " +
                  tensorTypeString(t.scales.elementType, t.scales.shape) +
                  " are not " + std::to_string(out * blocks) +
                  " f32, f16 or bf16 values");
  if (t.zeroPoints) {
    std::optional<uint64_t> nZeros = numElements(t.zeroPoints->shape);
    const uint64_t want = t.packedZeroPoints ? out * zpRowBytes : out * blocks;
    if (!nZeros || *nZeros != want)
      return refuse(
          "its zero_points " +
          tensorTypeString(t.zeroPoints->elementType, t.zeroPoints->shape) +
          " are not " + std::to_string(want) + " values");
  }

  // Every row checked first: zero points and scales.
  const uint64_t units = in / run, perUnit = run / bs;
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const unsigned tb = quant::floatTypeBytes(*scaleType);
  const unsigned half = 1u << (t.bits - 1), maxq = (1u << t.bits) - 1;
  const int64_t step =
      std::max<int64_t>(1, int64_t((4u << 20) / std::max<uint64_t>(1, in)));
  HfRows rows;
  uint8_t scratch[4];
  for (int64_t r = 0; r < l.out; r += step) {
    const int64_t n = std::min(step, l.out - r);
    if (Status s = unpackHfRows(l, r, n, run, rows, false); !s)
      return s;
    for (uint64_t i = 0; i < uint64_t(n) * units; ++i) {
      const uint64_t row = uint64_t(r) + i / units, block = i % units * perUnit;
      const uint8_t z = rows.zeros[i];
      if (z > maxq || (!t.zeroPoints && z != half))
        return refuse(
            "row " + std::to_string(row) + ", block " + std::to_string(block) +
            " has zero point " + std::to_string(z) +
            (t.zeroPoints
                 ? ", which " + std::to_string(t.bits) + " bits cannot hold"
                 : ", and the node has no zero_points "
                   "(they are " +
                       std::to_string(half) + ")"));
      const float s = storedScale(l.scaleType, rows.scales.data() + i * sb);
      if (!putScale(*scaleType, s, scratch))
        return refuse("row " + std::to_string(row) + ", block " +
                      std::to_string(block) + " has scale " +
                      std::to_string(s) + ", which " +
                      quant::floatTypeName(*scaleType) +
                      " (the template's scales) cannot hold exactly");
    }
  }

  const HfQuantLinear *lp = &l;
  const unsigned bits = t.bits;
  std::vector<TensorSource> result;
  TensorSource codes;
  codes.info = t.codes;
  codes.info.offset = 0;
  codes.info.length = out * blocks * blockBytes;
  const uint64_t codeRow = blocks * blockBytes;
  codes.produce = [lp, run, bits, codeRow](uint64_t first, uint64_t n,
                                           uint8_t *dst) {
    auto [r0, r1] = rowsOf(first, n, codeRow);
    HfRows rows;
    (void)unpackHfRows(*lp, r0, r1 - r0, run, rows);
    std::vector<uint8_t> packed(uint64_t(r1 - r0) * codeRow);
    packCodes(rows.codes.data(), rows.codes.size(), bits, packed.data());
    std::memcpy(dst, packed.data() + (first - uint64_t(r0) * codeRow), n);
  };
  result.push_back(std::move(codes));

  // Scales and zero points, a row of blocks at a time.
  auto perRow =
      [&](const TensorInfo &info, uint64_t rowBytes,
          std::function<void(const HfRows &, uint64_t row, uint8_t *dst)>
              fill) {
        TensorSource s;
        s.info = info;
        s.info.offset = 0;
        s.info.length = out * rowBytes;
        s.produce = [lp, run, rowBytes, fill](uint64_t first, uint64_t n,
                                              uint8_t *dst) {
          auto [r0, r1] = rowsOf(first, n, rowBytes);
          HfRows rows;
          (void)unpackHfRows(*lp, r0, r1 - r0, run, rows, false);
          std::vector<uint8_t> bytes(uint64_t(r1 - r0) * rowBytes);
          for (int64_t r = 0; r < r1 - r0; ++r)
            fill(rows, uint64_t(r), bytes.data() + uint64_t(r) * rowBytes);
          std::memcpy(dst, bytes.data() + (first - uint64_t(r0) * rowBytes), n);
        };
        return s;
      };
  const std::string from = l.scaleType;
  const quant::FloatType to = *scaleType;
  result.push_back(perRow(
      t.scales, blocks * tb, [=](const HfRows &rows, uint64_t r, uint8_t *dst) {
        for (uint64_t j = 0; j < blocks; ++j)
          (void)putScale(to,
                         storedScale(from, rows.scales.data() +
                                               (r * units + j / perUnit) * sb),
                         dst + j * tb);
      }));
  if (t.zeroPoints) {
    if (t.packedZeroPoints) {
      result.push_back(
          perRow(*t.zeroPoints, zpRowBytes,
                 [=](const HfRows &rows, uint64_t r, uint8_t *dst) {
                   std::memset(dst, 0, zpRowBytes);
                   for (uint64_t j = 0; j < blocks; ++j)
                     dst[j * bits / 8] |= uint8_t(
                         rows.zeros[r * units + j / perUnit] << (j * bits % 8));
                 }));
    } else {
      result.push_back(perRow(
          *t.zeroPoints, blocks * tb,
          [=](const HfRows &rows, uint64_t r, uint8_t *dst) {
            for (uint64_t j = 0; j < blocks; ++j)
              (void)putScale(to, float(rows.zeros[r * units + j / perUnit]),
                             dst + j * tb);
          }));
    }
  }
  return result;
}

StatusOr<TensorSource> vmpack::formats::hfLinearAsFloats(const HfQuantLinear &l,
                                                         quant::FloatType to,
                                                         unsigned threads) {
  const unsigned fb = quant::floatTypeBytes(to);
  const uint64_t rowBytes = uint64_t(l.in) * fb;
  const uint64_t run = l.uniformRun(1);
  TensorSource out;
  out.info.name = l.weight.name;
  out.info.shape = {l.out, l.in};
  out.info.encoding = Encoding::Byte;
  out.info.elementType = *parseElementType(quant::floatTypeName(to));
  out.info.length = rowBytes * uint64_t(l.out);
  const HfQuantLinear *lp = &l;
  // Rows [r0, r1) as floats of `to` at out, on the calling thread.
  auto rowsTo = [lp, to, fb, run](int64_t r0, int64_t r1, uint8_t *out) {
    const uint64_t count = uint64_t(r1 - r0) * uint64_t(lp->in);
    std::vector<float> values(count);
    if (lp->method == HfQuantMethod::Bitsandbytes) {
      bnbValues(*lp, uint64_t(r0) * uint64_t(lp->in), count, values.data());
    } else if (lp->fp8) {
      fp8Values(*lp, r0, r1, values.data());
    } else if (lp->mxfp4) {
      mxfp4Values(*lp, r0, r1, values.data());
    } else {
      HfRows rows;
      (void)unpackHfRows(*lp, r0, r1 - r0, run, rows);
      (void)quant::decodeGroupQuant(rows.source, values.data());
    }
    for (uint64_t i = 0; i < count; ++i) {
      if (to == quant::FloatType::F32) {
        std::memcpy(out + 4 * i, &values[i], 4);
        continue;
      }
      uint16_t h = to == quant::FloatType::F16
                       ? quant::floatToHalf(values[i])
                       : quant::floatToBFloat16(values[i]);
      std::memcpy(out + 2 * i, &h, 2);
    }
  };
  // Pieces of whole rows, at least 2^14 values each, on `threads`.
  const uint64_t minRows =
      std::max<uint64_t>(1, ((uint64_t(1) << 14) + uint64_t(l.in) - 1) /
                                std::max<uint64_t>(1, uint64_t(l.in)));
  out.produce = [rowsTo, rowBytes, minRows, threads](uint64_t first, uint64_t n,
                                                     uint8_t *dst) {
    auto [r0, r1] = rowsOf(first, n, rowBytes);
    std::vector<uint8_t> bytes(uint64_t(r1 - r0) * rowBytes);
    uint64_t rows = uint64_t(r1 - r0);
    quant::splitRange(quant::piecesFor(threads, rows, minRows), uint64_t(r0),
                      rows, 1, [&](uint64_t a, uint64_t b) {
                        rowsTo(int64_t(a), int64_t(b),
                               bytes.data() + (a - uint64_t(r0)) * rowBytes);
                      });
    std::memcpy(dst, bytes.data() + (first - uint64_t(r0) * rowBytes), n);
  };
  return out;
}

std::vector<TensorSource>
vmpack::formats::hfLinearStored(const HfQuantLinear &l) {
  std::vector<TensorSource> out = {l.qweight};
  if (l.mxfp4) {
    out.push_back(l.scales);
    return out;
  }
  if (l.method == HfQuantMethod::Bitsandbytes) {
    for (const TensorSource *t : {&l.scales, &l.quantMap, &l.nestedAbsmax,
                                  &l.nestedQuantMap, &l.quantState})
      if (t->data)
        out.push_back(*t);
    return out;
  }
  if (l.method == HfQuantMethod::Mlx) {
    out.push_back(l.scales);
    out.push_back(l.qzeros);
    return out;
  }
  if (l.method == HfQuantMethod::Planar) {
    out.push_back(l.scales);
    if (l.qzeros.data)
      out.push_back(l.qzeros);
    return out;
  }
  if (l.method == HfQuantMethod::CompressedTensors) {
    out.push_back(l.scales);
    if (l.qzeros.data)
      out.push_back(l.qzeros);
  } else {
    out.push_back(l.qzeros);
    out.push_back(l.scales);
  }
  if (l.gIdx.data)
    out.push_back(l.gIdx);
  if (l.shapeTensor.data)
    out.push_back(l.shapeTensor);
  return out;
}

// --- Writing Hugging Face schemes
// ----------------------------------------------

namespace {

/// A tensor whose bytes `fill` computes for [first, first + n).
TensorSource computed(std::string name, const char *dtype,
                      std::vector<int64_t> shape, uint64_t length,
                      std::function<void(uint64_t, uint64_t, uint8_t *)> fill) {
  TensorSource t;
  t.info.name = std::move(name);
  t.info.elementType = *fromSafetensorsDtype(dtype);
  t.info.shape = std::move(shape);
  t.info.encoding = Encoding::Byte;
  t.info.length = length;
  t.produce = std::move(fill);
  return t;
}

/// Bytes [first, first + n) of a tensor of rows of `rowBytes` bytes, made
/// `rows` at a time into a buffer by makeRows(firstRow, rowCount, out).
void byRows(
    uint64_t first, uint64_t n, uint64_t rowBytes, uint8_t *dst,
    const std::function<void(uint64_t, uint64_t, uint8_t *)> &makeRows) {
  const uint64_t r0 = first / rowBytes;
  const uint64_t r1 = (first + n + rowBytes - 1) / rowBytes;
  if (first == r0 * rowBytes && first + n == r1 * rowBytes) {
    makeRows(r0, r1 - r0, dst);
    return;
  }
  std::vector<uint8_t> rows((r1 - r0) * rowBytes);
  makeRows(r0, r1 - r0, rows.data());
  std::memcpy(dst, rows.data() + (first - r0 * rowBytes), n);
}

using Refusal = std::function<Status(const std::string &)>;
StatusOr<std::vector<TensorSource>> linearAsCt(const HfQuantLinear &l,
                                               const std::string &module,
                                               const Refusal &refuse);
StatusOr<std::vector<TensorSource>> linearAsMlx(const HfQuantLinear &l,
                                                const std::string &module,
                                                const Refusal &refuse);
StatusOr<std::vector<TensorSource>> rowsAsGptq(const HfQuantLinear &l,
                                               const std::string &module,
                                               bool v1, const Refusal &refuse);
StatusOr<std::vector<TensorSource>> rowsAsAwq(const HfQuantLinear &l,
                                              const std::string &module,
                                              const Refusal &refuse);
StatusOr<TensorSource> float16Scales(const HfQuantLinear &l, std::string name,
                                     std::string_view scheme,
                                     const Refusal &refuse);

} // namespace

StatusOr<std::vector<TensorSource>>
vmpack::formats::hfLinearAsScheme(const HfQuantLinear &l,
                                  std::string_view target) {
  const std::string module =
      l.weight.name.substr(0, l.weight.name.size() - std::strlen(".weight"));
  auto refuse = [&](const std::string &why) {
    return Status::formatError("tensor " + quoteName(l.weight.name) + " (" +
                               describeHfLinear(l) + "): " + why +
                               "; not written as " + std::string(target));
  };
  const bool toAwq = target == "awq";
  const bool toGptq = target == "gptq" || target == "gptq_v2";
  if (target == "compressed-tensors")
    return linearAsCt(l, module, refuse);
  if (target == "mlx")
    return linearAsMlx(l, module, refuse);
  if (target == "bnb-nf4") {
    if (l.method == HfQuantMethod::Bitsandbytes && l.bnb.quantType == "nf4")
      return hfLinearStored(l);
    // NF4's 16 values are quantiles of a normal distribution (1, 0.7230,
    // 0.5626, ...), not an arithmetic sequence, so no absmax times NF4
    // codes is (q - z) * s for 3 or more distinct codes of one group.
    return refuse(std::string("NF4 codes stand for 16 normal-distribution "
                              "quantiles, which ") +
                  (l.method == HfQuantMethod::Bitsandbytes
                       ? "FP4's 16 values are not"
                       : "no evenly spaced values (integer codes times a "
                         "scale) are") +
                  ", so no weight is exact in NF4 unless it was NF4 to begin "
                  "with");
  }
  if (!toAwq && !toGptq)
    return Status::invalidArgument(
        "the Hugging Face schemes vmpack writes are gptq, gptq_v2, awq, "
        "compressed-tensors and mlx, not '" +
        std::string(target) + "'");
  // From compressed-tensors, MLX and planar sets: code by code.
  if (l.method != HfQuantMethod::Gptq && l.method != HfQuantMethod::Awq)
    return toGptq ? rowsAsGptq(l, module, target == "gptq", refuse)
                  : rowsAsAwq(l, module, refuse);
  const bool fromAwq = l.method == HfQuantMethod::Awq;
  const bool v1 = target == "gptq";
  // True zero z is stored as z - 1 in v1.
  const int wantDelta = toGptq && v1 ? -1 : 0;
  const int haveDelta = l.zerosMinusOne ? -1 : 0;
  const int delta = wantDelta - haveDelta;
  const uint64_t out = uint64_t(l.out), in = uint64_t(l.in);
  const uint64_t groups = in / l.groupSize;
  if (fromAwq != toAwq) {
    if (l.bits != 4)
      return refuse("AWQ packs 4-bit codes only");
    if (!l.weight.groupIndex.empty())
      return refuse("AWQ has no act-order (g_idx)");
  }
  // The zero points, unpacked (a few per group and output) and checked.
  const unsigned bits = l.bits;
  const uint32_t maxq = (1u << bits) - 1;
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < out; ++r) {
      int z = int(storedZero(l, g, r)) + delta;
      if (z < 0 || z > int(maxq))
        return refuse("the zero point " +
                      std::to_string(int(storedZero(l, g, r)) - haveDelta) +
                      " of group " + std::to_string(g) + ", output " +
                      std::to_string(r) +
                      (v1 ? " has no v1 form (v1 stores zero - 1 in " +
                                std::to_string(bits) + " bits)"
                          : " does not fit"));
    }
  std::vector<TensorSource> parts;
  const HfQuantLinear *lp = &l;
  if (fromAwq == toAwq) {
    parts.push_back(l.qweight);
  } else if (toGptq) {
    // GPTQ qweight [in / 8, out]: word row w from AWQ rows 8w..8w+7.
    const uint64_t rowBytes = out * 4;
    parts.push_back(computed(
        module + ".qweight", "I32", {int64_t(in / 8), int64_t(out)},
        in / 8 * rowBytes,
        [lp, out, rowBytes](uint64_t f, uint64_t n, uint8_t *d) {
          byRows(f, n, rowBytes, d, [&](uint64_t w, uint64_t c, uint8_t *o) {
            quant::awqToGptqWords(lp->qweight.data, out, w, c, o);
          });
        }));
  } else {
    // AWQ qweight [in, out / 8]: rows of 8 from GPTQ word row i / 8.
    const uint64_t rowBytes = out / 8 * 4 * 8;
    parts.push_back(computed(
        module + ".qweight", "I32", {int64_t(in), int64_t(out / 8)},
        in / 8 * rowBytes,
        [lp, out, rowBytes](uint64_t f, uint64_t n, uint8_t *d) {
          byRows(f, n, rowBytes, d, [&](uint64_t w, uint64_t c, uint8_t *o) {
            quant::gptqToAwqWords(lp->qweight.data, out, 8 * w, 8 * c, o);
          });
        }));
  }
  // qzeros: [groups, out * bits / 32] for both; rebuilt from the zeros.
  if (fromAwq == toAwq && delta == 0) {
    parts.push_back(l.qzeros);
  } else {
    const uint64_t rowWords = out * bits / 32;
    const bool awqOut = toAwq;
    parts.push_back(computed(
        module + ".qzeros", "I32",
        {int64_t(groups), int64_t(awqOut ? out / 8 : rowWords)},
        groups * rowWords * 4,
        [lp, out, bits, rowWords, delta, awqOut](uint64_t f, uint64_t n,
                                                 uint8_t *d) {
          byRows(
              f, n, rowWords * 4, d, [&](uint64_t g0, uint64_t c, uint8_t *o) {
                std::memset(o, 0, c * rowWords * 4);
                for (uint64_t g = g0; g < g0 + c; ++g) {
                  uint8_t *row = o + (g - g0) * rowWords * 4;
                  for (uint64_t r = 0; r < out; ++r) {
                    uint32_t z = uint32_t(int(storedZero(*lp, g, r)) + delta);
                    uint64_t bit = awqOut ? (r / 8) * 32 + 4 * kAwqNibble[r % 8]
                                          : r * bits;
                    for (unsigned b = 0; b < bits; ++b, ++bit)
                      if (z >> b & 1)
                        row[bit / 8] |= uint8_t(1u << (bit % 8));
                  }
                }
              });
        }));
  }
  StatusOr<TensorSource> scales =
      float16Scales(l, module + ".scales", toAwq ? "AWQ" : "GPTQ", refuse);
  if (!scales)
    return scales.status();
  parts.push_back(*scales);
  if (toGptq) {
    if (l.gIdx.data) {
      parts.push_back(l.gIdx);
    } else {
      const uint64_t group = l.groupSize;
      parts.push_back(computed(
          module + ".g_idx", "I32", {int64_t(in)}, in * 4,
          [group](uint64_t f, uint64_t n, uint8_t *d) {
            byRows(f, n, 4, d, [&](uint64_t i0, uint64_t c, uint8_t *o) {
              for (uint64_t i = i0; i < i0 + c; ++i)
                store32le(o + 4 * (i - i0), uint32_t(i / group));
            });
          }));
    }
  }
  for (TensorSource &t : parts)
    t.info.name = module + t.info.name.substr(t.info.name.rfind('.'));
  return parts;
}

std::string vmpack::formats::hfQuantConfigJson(std::string_view target,
                                               unsigned bits, int64_t groupSize,
                                               bool sym, bool descAct) {
  json q = json::object();
  if (target == "awq") {
    q["quant_method"] = "awq";
    q["bits"] = bits;
    q["group_size"] = groupSize;
    q["zero_point"] = true;
    q["version"] = "gemm";
  } else {
    q["quant_method"] = "gptq";
    q["bits"] = bits;
    q["group_size"] = groupSize;
    q["desc_act"] = descAct;
    q["sym"] = sym;
    q["checkpoint_format"] = std::string(target);
  }
  return q.dump();
}

StatusOr<std::string>
vmpack::formats::rewriteHfConfig(const uint8_t *data, size_t size,
                                 const std::string &quantization,
                                 const std::string &where, bool mlx) {
  StatusOr<json> parsed = parseBoundedJson(data, size, 64, "'" + where + "'");
  if (!parsed)
    return parsed.status();
  if (!parsed->is_object())
    return configError(where, "is not a JSON object");
  // nlohmann's object keeps keys sorted; the text keeps them in file order
  // only through ordered_json.
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(
      reinterpret_cast<const char *>(data),
      reinterpret_cast<const char *>(data) + size);
  ordered.erase("quantization_config");
  // MLX's own key says the same: kept (or written) for MLX weights only.
  if (!mlx && ordered.contains("quantization") &&
      ordered["quantization"].is_object())
    ordered.erase("quantization");
  if (mlx && !quantization.empty() &&
      !(ordered.contains("quantization") &&
        ordered["quantization"].is_object()))
    ordered["quantization"] = nlohmann::ordered_json::parse(quantization);
  if (!quantization.empty())
    ordered["quantization_config"] =
        nlohmann::ordered_json::parse(quantization);
  return ordered.dump(2) + "\n";
}

// --- Writing the group planar form
// ---------------------------------------------

namespace {

/// ORs `count` values of `bits` bits (vals[k] is element e0 + k of a packed
/// stream) into bytes [first, first + n) of that stream, at dst (zeroed by
/// the caller).
void packStreamRange(const uint8_t *vals, uint64_t e0, uint64_t count,
                     unsigned bits, uint64_t first, uint64_t n, uint8_t *dst) {
  if (8 % bits == 0) {
    // 2, 4 or 8 bits: whole values per byte, each byte built at once.
    const unsigned per = 8 / bits;
    const uint32_t mask = (1u << bits) - 1;
    for (uint64_t b = first; b < first + n; ++b) {
      uint32_t v = 0;
      for (unsigned j = 0; j < per; ++j) {
        const uint64_t e = b * per + j;
        if (e >= e0 && e - e0 < count)
          v |= (uint32_t(vals[e - e0]) & mask) << (j * bits);
      }
      dst[b - first] |= uint8_t(v);
    }
    return;
  }
  const uint64_t lo = first * 8, hi = (first + n) * 8;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t bit = (e0 + k) * bits;
    if (bit + bits <= lo || bit >= hi)
      continue;
    // A value spans at most two bytes (bits <= 8).
    uint32_t v = uint32_t(vals[k]) & ((1u << bits) - 1);
    for (uint64_t at = bit / 8; at * 8 < bit + bits; ++at) {
      if (at < first || at >= first + n)
        continue;
      const int64_t shift = int64_t(bit) - int64_t(at * 8);
      dst[at - first] |=
          uint8_t(shift >= 0 ? v << shift : v >> uint64_t(-shift));
    }
  }
}

/// A packed tensor of `bits`-bit values, `perRow` per row of `rows`, whose
/// values for rows [r0, r1) `values(r0, r1, out)` writes one per byte.
TensorSource packedRows(
    std::string name, const std::string &type, int64_t rows, uint64_t perRow,
    unsigned bits,
    std::function<void(int64_t, int64_t, std::vector<uint8_t> &)> values) {
  TensorSource t;
  t.info.name = std::move(name);
  t.info.elementType = *parseElementType(type);
  t.info.shape = {rows, int64_t(perRow)};
  t.info.encoding = Encoding::Packed;
  t.info.length = (uint64_t(rows) * perRow * bits + 7) / 8;
  t.produce = [rows, perRow, bits, values](uint64_t first, uint64_t n,
                                           uint8_t *dst) {
    std::memset(dst, 0, n);
    const uint64_t e0 = first * 8 / bits;
    const uint64_t e1 = std::min<uint64_t>(uint64_t(rows) * perRow,
                                           ((first + n) * 8 + bits - 1) / bits);
    const int64_t r0 = int64_t(e0 / perRow);
    const int64_t r1 = int64_t((e1 + perRow - 1) / perRow);
    std::vector<uint8_t> v;
    values(r0, r1, v);
    packStreamRange(v.data(), uint64_t(r0) * perRow, v.size(), bits, first, n,
                    dst);
  };
  return t;
}

} // namespace

StatusOr<std::vector<TensorSource>>
vmpack::formats::hfLinearAsPlanar(const HfQuantLinear &l) {
  auto refuse = [&](const std::string &why) {
    return Status::formatError("tensor " + quoteName(l.weight.name) + " (" +
                               describeHfLinear(l) + "): " + why +
                               "; not written in the planar form (--dequantize "
                               "writes its values)");
  };
  if (l.method == HfQuantMethod::Bitsandbytes)
    return refuse("bitsandbytes codes index a table of values (NF4, FP4), "
                  "and the group planar form holds integer codes");
  if (l.fp8)
    return refuse("FP8 (E4M3) codes are not written in the group planar "
                  "form");
  if (l.mxfp4)
    return refuse("mxfp4 weights are written as ggml MXFP4's planar form");
  if (l.method == HfQuantMethod::Planar)
    return hfLinearStored(l);
  const uint64_t in = uint64_t(l.in);
  uint64_t run = l.uniformRun(32);
  if (!l.weight.groupIndex.empty() && run != 32)
    return refuse("its act-order groups (g_idx) are not aligned runs of 32 "
                  "inputs, and the planar form's groups are runs along `in` "
                  "(it holds no permutation of the inputs)");
  const uint64_t units = in / run;
  const bool mlx = l.affine;
  const bool sym = !mlx && l.symmetric;
  const unsigned bits = l.bits, half = 1u << (bits - 1),
                 maxq = (1u << bits) - 1;
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  // Every zero point checked first.
  if (!mlx) {
    const int64_t step =
        std::max<int64_t>(1, int64_t((4u << 20) / std::max<uint64_t>(1, in)));
    HfRows rows;
    for (int64_t r = 0; r < l.out; r += step) {
      const int64_t n = std::min(step, l.out - r);
      if (Status s = unpackHfRows(l, r, n, run, rows, false); !s)
        return s;
      for (uint64_t i = 0; i < uint64_t(n) * units; ++i) {
        const uint8_t z = rows.zeros[i];
        if (z > maxq || (sym && z != half))
          return refuse("output " + std::to_string(uint64_t(r) + i / units) +
                        ", inputs from " + std::to_string(i % units * run) +
                        " have zero point " + std::to_string(z) + ", which " +
                        std::to_string(bits) + " bits cannot hold");
      }
    }
  }
  const HfQuantLinear *lp = &l;
  const std::string name = l.weight.name;
  const std::string width = std::to_string(bits);
  std::vector<TensorSource> out;
  out.push_back(packedRows(
      name + ".q", (sym ? "si" : "ui") + width, l.out, in, bits,
      [lp, run, sym, half](int64_t r0, int64_t r1, std::vector<uint8_t> &v) {
        HfRows rows;
        (void)unpackHfRows(*lp, r0, r1 - r0, run, rows);
        v = std::move(rows.codes);
        if (sym)
          for (uint8_t &c : v)
            c = uint8_t(c ^ half); // q - 2^(bits-1), two's complement
      }));
  TensorSource d;
  d.info.name = name + ".d";
  d.info.elementType = *parseElementType(l.scaleType);
  d.info.shape = {l.out, int64_t(units)};
  d.info.encoding = Encoding::Byte;
  const uint64_t rowBytes = units * sb;
  d.info.length = uint64_t(l.out) * rowBytes;
  auto byteRows = [lp, run, rowBytes](bool scales) {
    return
        [lp, run, rowBytes, scales](uint64_t first, uint64_t n, uint8_t *dst) {
          auto [r0, r1] = rowsOf(first, n, rowBytes);
          HfRows rows;
          (void)unpackHfRows(*lp, r0, r1 - r0, run, rows, false);
          const std::vector<uint8_t> &src = scales ? rows.scales : rows.zeros;
          std::memcpy(dst, src.data() + (first - uint64_t(r0) * rowBytes), n);
        };
  };
  d.produce = byteRows(true);
  out.push_back(std::move(d));
  if (mlx) {
    TensorSource m;
    m.info = out.back().info;
    m.info.name = name + ".m";
    m.produce = byteRows(false);
    out.push_back(std::move(m));
  } else if (!sym) {
    out.push_back(
        packedRows(name + ".m", "ui" + width, l.out, units, bits,
                   [lp, run](int64_t r0, int64_t r1, std::vector<uint8_t> &v) {
                     HfRows rows;
                     (void)unpackHfRows(*lp, r0, r1 - r0, run, rows, false);
                     v = std::move(rows.zeros);
                   }));
  }
  return out;
}

// --- Writing compressed-tensors and MLX, and GPTQ from compressed-tensors
// -----------------------------------------------------------------------

namespace {

/// The true (unsigned) zero point of group g, output r: GPTQ v1's stored
/// z - 1 plus one; compressed-tensors' z + 2^(bits-1) as stored.
uint32_t trueZero(const HfQuantLinear &l, uint64_t g, uint64_t r) {
  return storedZero(l, g, r) + (l.zerosMinusOne ? 1 : 0);
}

/// Groups along `in`, and elements per group, as the scales hold them
/// (compressed-tensors' tensor strategy: one group, the one scale).
uint64_t groupsOf(const HfQuantLinear &l) {
  return l.oneScale ? 1 : uint64_t(l.in) / l.groupSize;
}

/// Code [o, i] (unsigned) of a compressed-tensors linear, from its
/// row-major words (pack_to_int32) or int8 codes (naive).
uint32_t ctCode(const HfQuantLinear &l, uint64_t o, uint64_t i) {
  const uint8_t *qw = l.qweight.data;
  if (l.naive)
    return uint8_t(qw[o * uint64_t(l.in) + i] + (1u << (l.bits - 1)));
  const unsigned per = ctPerWord(l.bits);
  const uint64_t words = (uint64_t(l.in) + per - 1) / per;
  return (loadU32(qw + (o * words + i / per) * 4) >> (l.bits * (i % per))) &
         ((1u << l.bits) - 1);
}

/// Code [o, i] (unsigned: the q of (q - z) * s or q * s + b) of any linear
/// with integer codes, read where its scheme stores it.
uint32_t codeAt(const HfQuantLinear &l, uint64_t o, uint64_t i) {
  const uint8_t *qw = l.qweight.data;
  const uint64_t in = uint64_t(l.in), out = uint64_t(l.out);
  const unsigned bits = l.bits;
  switch (l.method) {
  case HfQuantMethod::CompressedTensors:
    return ctCode(l, o, i);
  case HfQuantMethod::Mlx:
    return streamCode(qw + o * (in * bits / 8), i, bits);
  case HfQuantMethod::Planar: {
    const uint32_t c = packedCode(qw, l.qweight.info.length, o * in + i, bits);
    return l.symmetric ? c ^ (1u << (bits - 1)) : c;
  }
  case HfQuantMethod::Gptq: {
    // Column o of qweight [in * bits / 32, out] is one bit stream.
    const uint64_t bit = i * bits, w = bit >> 5;
    const unsigned sh = unsigned(bit & 31);
    uint64_t v = loadU32(qw + (w * out + o) * 4) >> sh;
    if (sh + bits > 32)
      v |= uint64_t(loadU32(qw + ((w + 1) * out + o) * 4)) << (32 - sh);
    return uint32_t(v & ((1u << bits) - 1));
  }
  case HfQuantMethod::Awq:
    return (loadU32(qw + (i * (out / 8) + o / 8) * 4) >>
            (4 * kAwqNibble[o % 8])) &
           15;
  case HfQuantMethod::Bitsandbytes:
    break;
  }
  return 0;
}

/// Codes [o, i0 .. i0 + count) of `l`, one per byte at `out` (codeAt's
/// values; a planar set's row read as one run of its stream).
void codesAt(const HfQuantLinear &l, uint64_t o, uint64_t i0, uint64_t count,
             uint8_t *out) {
  if (l.method == HfQuantMethod::Planar) {
    unpackPacked(l.qweight.data, l.qweight.info.length, o * uint64_t(l.in) + i0,
                 count, l.bits, out);
    if (l.symmetric)
      for (uint64_t k = 0; k < count; ++k)
        out[k] ^= uint8_t(1u << (l.bits - 1));
    return;
  }
  for (uint64_t k = 0; k < count; ++k)
    out[k] = uint8_t(codeAt(l, o, i0 + k));
}

/// Scale type name -> FloatType.
quant::FloatType floatTypeNamed(const std::string &t) {
  return t == "f32"   ? quant::FloatType::F32
         : t == "f16" ? quant::FloatType::F16
                      : quant::FloatType::BF16;
}

const char *safetensorsScaleDtype(const std::string &t) {
  return t == "f32" ? "F32" : t == "f16" ? "F16" : "BF16";
}

/// The scales [out, groups] (row-major, as compressed-tensors and MLX store
/// them) of `l`, `repeat` copies of each group's scale in a row.
TensorSource scalesByRow(const HfQuantLinear &l, std::string name,
                         uint64_t repeat) {
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const uint64_t groups = uint64_t(l.in) / l.groupSize;
  const uint64_t rowBytes = groups * repeat * sb;
  const HfQuantLinear *lp = &l;
  return computed(
      std::move(name), safetensorsScaleDtype(l.scaleType),
      {l.out, int64_t(groups * repeat)}, uint64_t(l.out) * rowBytes,
      [lp, sb, groups, repeat, rowBytes](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t r0, uint64_t c, uint8_t *o) {
          for (uint64_t r = r0; r < r0 + c; ++r)
            for (uint64_t k = 0; k < groups * repeat; ++k)
              std::memcpy(o + (r - r0) * rowBytes + k * sb,
                          lp->scales.data + scaleIndex(*lp, k / repeat, r) * sb,
                          sb);
        });
      });
}

/// The true zero point z of every group and output of a linear's
/// (q - z) * s form: as stored, or derived from an affine weight's biases.
struct ZeroPoints {
  const HfQuantLinear *l = nullptr;
  /// Derived (affine weights): [out, groups]; else null.
  std::shared_ptr<const std::vector<uint8_t>> derived;
  uint64_t groups = 0;
  /// Every zero point is 2^(bits-1).
  bool symmetric = false;
  uint32_t operator()(uint64_t g, uint64_t r) const {
    return derived ? (*derived)[r * groups + g] : trueZero(*l, g, r);
  }
};

/// The refusal of a linear whose codes are not integers: bitsandbytes'
/// table indices, FP8 and mxfp4 codes.
std::optional<std::string> notIntegerCodes(const HfQuantLinear &l) {
  if (l.method == HfQuantMethod::Bitsandbytes)
    return std::string("bitsandbytes codes index a table of values (NF4, "
                       "FP4), not integers (q - z) * s");
  if (l.fp8 || l.mxfp4)
    return std::string("its codes are floats (") +
           (l.fp8 ? "FP8 E4M3" : "E2M1") + "), not integers (q - z) * s";
  return std::nullopt;
}

/// `l`'s zero points. An affine weight (q * s + b: MLX, or a planar set
/// with biases) has one where b = -(z * s) for an integer z of `bits`
/// bits: z = -b / s rounded, then every code q of the group checked, (q *
/// s) + b (affine_dequantize's float32 operations) against f(q - z) * s,
/// every bit; a group that fails is refused, naming it.
StatusOr<ZeroPoints> integerZeros(const HfQuantLinear &l,
                                  const Refusal &refuse) {
  ZeroPoints zp;
  zp.l = &l;
  zp.groups = groupsOf(l);
  if (!l.affine) {
    zp.symmetric = l.symmetric;
    return zp;
  }
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const uint32_t maxq = (1u << l.bits) - 1, half = 1u << (l.bits - 1);
  const uint64_t out = uint64_t(l.out), groups = zp.groups;
  auto zeros = std::make_shared<std::vector<uint8_t>>(out * groups);
  bool sym = true;
  for (uint64_t r = 0; r < out; ++r)
    for (uint64_t g = 0; g < groups; ++g) {
      const uint64_t at = scaleIndex(l, g, r) * sb;
      const float s = storedScale(l.scaleType, l.scales.data + at);
      const float b = storedScale(l.scaleType, l.qzeros.data + at);
      const std::string where =
          "group " + std::to_string(g) + ", output " + std::to_string(r) +
          " (scale " + floatWithBits(s) + ", bias " + floatWithBits(b) + ")";
      // s = 0: every value is b, and (q - 0) * 0 = +0 needs b = +0.
      const double zd = s == 0 ? 0.0 : -double(b) / double(s);
      if (!std::isfinite(zd) || zd < -0.5 || zd > double(maxq) + 0.5)
        return refuse("the bias of " + where + " is not -z * s for a " +
                      std::to_string(l.bits) + "-bit zero point z (-b / s = " +
                      std::to_string(zd) + ")");
      const uint32_t z = uint32_t(std::lround(zd));
      for (uint32_t q = 0; q <= maxq; ++q) {
        const float want = float(q) * s + b;
        const float got = float(int32_t(q) - int32_t(z)) * s;
        if (std::memcmp(&want, &got, 4) != 0)
          return refuse("code " + std::to_string(q) + " of " + where + " is " +
                        floatWithBits(want) + " as q * s + b, but " +
                        floatWithBits(got) +
                        " as (q - z) * s with z = " + std::to_string(z) +
                        ": the bias is not -z * s for an integer z");
      }
      (*zeros)[r * groups + g] = uint8_t(z);
      sym = sym && z == half;
    }
  zp.derived = std::move(zeros);
  zp.symmetric = sym;
  return zp;
}

StatusOr<std::vector<TensorSource>> linearAsCt(const HfQuantLinear &l,
                                               const std::string &module,
                                               const Refusal &refuse) {
  if (l.method == HfQuantMethod::CompressedTensors)
    return hfLinearStored(l);
  if (std::optional<std::string> why = notIntegerCodes(l))
    return refuse(*why + ", and compressed-tensors pack-quantized holds "
                         "integers (q - z) * s");
  StatusOr<ZeroPoints> zeros = integerZeros(l, refuse);
  if (!zeros)
    return zeros.status();
  const ZeroPoints zp = *zeros;
  const unsigned bits = l.bits, per = ctPerWord(bits);
  const uint32_t maxq = (1u << bits) - 1, half = 1u << (bits - 1);
  const uint64_t out = uint64_t(l.out), in = uint64_t(l.in);
  const uint64_t groups = in / l.groupSize;
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < out; ++r) {
      const uint32_t z = zp(g, r);
      if (z > maxq || (zp.symmetric && z != half))
        return refuse("the zero point " + std::to_string(z) + " of group " +
                      std::to_string(g) + ", output " + std::to_string(r) +
                      " does not fit " + std::to_string(bits) + " bits");
    }
  const HfQuantLinear *lp = &l;
  std::vector<TensorSource> parts;
  // weight_packed [out, ceil(in / per)]: pack_to_int32, low bits first.
  const uint64_t words = (in + per - 1) / per, rowBytes = words * 4;
  const uint64_t run = l.uniformRun(1);
  parts.push_back(computed(
      module + ".weight_packed", "I32", {l.out, int64_t(words)}, out * rowBytes,
      [lp, per, bits, words, rowBytes, run, in](uint64_t f, uint64_t n,
                                                uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t r0, uint64_t c, uint8_t *o) {
          HfRows rows;
          (void)unpackHfRows(*lp, int64_t(r0), int64_t(c), run, rows);
          for (uint64_t r = 0; r < c; ++r)
            for (uint64_t w = 0; w < words; ++w) {
              uint32_t v = 0;
              for (unsigned k = 0; k < per && w * per + k < in; ++k)
                v |= uint32_t(rows.codes[r * in + w * per + k]) << (k * bits);
              store32le(o + r * rowBytes + w * 4, v);
            }
        });
      }));
  parts.push_back(computed(module + ".weight_shape", "I64", {2}, 16,
                           [out, in](uint64_t f, uint64_t n, uint8_t *d) {
                             int64_t v[2] = {int64_t(out), int64_t(in)};
                             std::memcpy(d, reinterpret_cast<uint8_t *>(v) + f,
                                         n);
                           }));
  parts.push_back(scalesByRow(l, module + ".weight_scale", 1));
  if (!zp.symmetric) {
    // weight_zero_point [ceil(out / per), groups]: packed down the rows.
    const uint64_t zrows = (out + per - 1) / per, zRowBytes = groups * 4;
    parts.push_back(computed(
        module + ".weight_zero_point", "I32", {int64_t(zrows), int64_t(groups)},
        zrows * zRowBytes,
        [zp, per, bits, groups, zRowBytes, out](uint64_t f, uint64_t n,
                                                uint8_t *d) {
          byRows(f, n, zRowBytes, d, [&](uint64_t z0, uint64_t c, uint8_t *o) {
            for (uint64_t zr = z0; zr < z0 + c; ++zr)
              for (uint64_t g = 0; g < groups; ++g) {
                uint32_t v = 0;
                for (unsigned k = 0; k < per && zr * per + k < out; ++k)
                  v |= zp(g, zr * per + k) << (k * bits);
                store32le(o + (zr - z0) * zRowBytes + g * 4, v);
              }
          });
        }));
  }
  if (!l.weight.groupIndex.empty())
    parts.push_back(computed(module + ".weight_g_idx", "I32", {l.in}, in * 4,
                             [lp](uint64_t f, uint64_t n, uint8_t *d) {
                               std::memcpy(d,
                                           reinterpret_cast<const uint8_t *>(
                                               lp->weight.groupIndex.data()) +
                                               f,
                                           n);
                             }));
  return parts;
}

/// The group size an MLX output of `l` takes: the largest of 128, 64 and
/// 32 that divides l's group size (MLX's group sizes), or 0.
uint64_t mlxGroupFor(const HfQuantLinear &l) {
  for (uint64_t g : {128u, 64u, 32u})
    if (l.groupSize % g == 0)
      return g;
  return 0;
}

StatusOr<std::vector<TensorSource>> linearAsMlx(const HfQuantLinear &l,
                                                const std::string &module,
                                                const Refusal &refuse) {
  if (l.method == HfQuantMethod::Mlx)
    return hfLinearStored(l);
  if (l.method == HfQuantMethod::Bitsandbytes || l.fp8 || l.mxfp4)
    return refuse("its codes are not integers times a scale, MLX affine's "
                  "q * s + b");
  const unsigned bits = l.bits;
  if (bits == 7)
    return refuse("MLX affine has no 7-bit codes (2, 3, 4, 5, 6, 8)");
  if (!l.weight.groupIndex.empty())
    return refuse("MLX affine has no act-order (g_idx)");
  const uint64_t gm = mlxGroupFor(l);
  if (gm == 0)
    return refuse("groups of " + std::to_string(l.groupSize) +
                  " are not whole groups of 32, 64 or 128 (MLX's)");
  const uint64_t out = uint64_t(l.out), in = uint64_t(l.in);
  if (in * bits % 32 != 0)
    return refuse("a row of " + std::to_string(in) + " " +
                  std::to_string(bits) +
                  "-bit codes is not whole 32-bit words");
  // biases = -(z * s) in the scales' type, checked for every code: MLX's
  // (q * s) + b must be (q - z) * s, every float32 bit.
  const quant::FloatType st = floatTypeNamed(l.scaleType);
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const uint64_t groups = in / l.groupSize;
  const uint32_t maxq = (1u << bits) - 1;
  uint8_t scratch[4];
  // A planar set with biases holds MLX's numbers: no check.
  for (uint64_t r = 0; r < out && !l.affine; ++r)
    for (uint64_t g = 0; g < groups; ++g) {
      const float s =
          storedScale(l.scaleType, l.scales.data + scaleIndex(l, g, r) * sb);
      const uint32_t z = trueZero(l, g, r);
      const float b = -(float(z) * s);
      std::string where = "group " + std::to_string(g) + ", output " +
                          std::to_string(r) + " (scale " + floatWithBits(s) +
                          ", zero point " + std::to_string(z) + ")";
      if (!putScale(st, b, scratch))
        return refuse("the bias -z * s of " + where + " is not exact in " +
                      quant::floatTypeName(st));
      for (uint32_t q = 0; q <= maxq; ++q) {
        const float want = float(int32_t(q) - int32_t(z)) * s;
        const float got = float(q) * s + b;
        if (std::memcmp(&want, &got, 4) != 0)
          return refuse("code " + std::to_string(q) + " of " + where +
                        " would change from " + floatWithBits(want) + " to " +
                        floatWithBits(got) + " as q * s + b");
      }
    }
  const HfQuantLinear *lp = &l;
  std::vector<TensorSource> parts;
  // weight U32 [out, in * bits / 32]: each row a little-endian bit stream.
  const uint64_t rowBytes = in * bits / 8;
  parts.push_back(computed(
      module + ".weight", "U32", {l.out, int64_t(in * bits / 32)},
      out * rowBytes,
      [lp, bits, rowBytes, in](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t r0, uint64_t c, uint8_t *o) {
          HfRows rows;
          (void)unpackHfRows(*lp, int64_t(r0), int64_t(c), lp->groupSize, rows);
          std::memset(o, 0, c * rowBytes);
          packStreamRange(rows.codes.data(), 0, c * in, bits, 0, c * rowBytes,
                          o);
        });
      }));
  const uint64_t repeat = l.groupSize / gm;
  parts.push_back(scalesByRow(l, module + ".scales", repeat));
  const uint64_t bRowBytes = groups * repeat * sb;
  parts.push_back(computed(
      module + ".biases", safetensorsScaleDtype(l.scaleType),
      {l.out, int64_t(groups * repeat)}, out * bRowBytes,
      [lp, st, sb, groups, repeat, bRowBytes](uint64_t f, uint64_t n,
                                              uint8_t *d) {
        byRows(f, n, bRowBytes, d, [&](uint64_t r0, uint64_t c, uint8_t *o) {
          for (uint64_t r = r0; r < r0 + c; ++r)
            for (uint64_t k = 0; k < groups * repeat; ++k) {
              const uint64_t g = k / repeat;
              const uint64_t at = scaleIndex(*lp, g, r) * sb;
              uint8_t *to = o + (r - r0) * bRowBytes + k * sb;
              if (lp->affine) {
                std::memcpy(to, lp->qzeros.data + at, sb);
                continue;
              }
              const float s = storedScale(lp->scaleType, lp->scales.data + at);
              (void)putScale(st, -(float(trueZero(*lp, g, r)) * s), to);
            }
        });
      }));
  return parts;
}

/// The scales [groups, out] (GPTQ's and AWQ's layout) of `l`.
TensorSource scalesByGroup(const HfQuantLinear &l, std::string name) {
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const uint64_t out = uint64_t(l.out), groups = groupsOf(l);
  const uint64_t sRowBytes = out * sb;
  const HfQuantLinear *lp = &l;
  return computed(
      std::move(name), safetensorsScaleDtype(l.scaleType),
      {int64_t(groups), l.out}, groups * sRowBytes,
      [lp, sb, out, sRowBytes](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, sRowBytes, d, [&](uint64_t g0, uint64_t c, uint8_t *o) {
          for (uint64_t g = g0; g < g0 + c; ++g)
            for (uint64_t r = 0; r < out; ++r)
              std::memcpy(o + (g - g0) * sRowBytes + r * sb,
                          lp->scales.data + scaleIndex(*lp, g, r) * sb, sb);
        });
      });
}

StatusOr<std::vector<TensorSource>> rowsAsGptq(const HfQuantLinear &l,
                                               const std::string &module,
                                               bool v1, const Refusal &refuse) {
  if (std::optional<std::string> why = notIntegerCodes(l))
    return refuse(*why + ", and GPTQ holds integers");
  const unsigned bits = l.bits;
  if (bits != 2 && bits != 3 && bits != 4 && bits != 8)
    return refuse("GPTQ has 2-, 3-, 4- and 8-bit codes");
  const uint64_t out = uint64_t(l.out), in = uint64_t(l.in);
  if (in * bits % 32 != 0 || out * bits % 32 != 0)
    return refuse("GPTQ packs whole 32-bit words of codes along in and of "
                  "zero points along out");
  StatusOr<ZeroPoints> zeros = integerZeros(l, refuse);
  if (!zeros)
    return zeros.status();
  const ZeroPoints zp = *zeros;
  const uint64_t groups = groupsOf(l);
  const uint32_t maxq = (1u << bits) - 1;
  const int delta = v1 ? -1 : 0;
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < out; ++r) {
      const int z = int(zp(g, r)) + delta;
      if (z < 0 || z > int(maxq))
        return refuse("the zero point " + std::to_string(z - delta) +
                      " of group " + std::to_string(g) + ", output " +
                      std::to_string(r) +
                      (v1 ? " has no v1 form (v1 stores zero - 1 in " +
                                std::to_string(bits) + " bits)"
                          : " does not fit"));
    }
  const HfQuantLinear *lp = &l;
  std::vector<TensorSource> parts;
  // qweight [in * bits / 32, out]: word (w, o) holds bits [32w, 32w + 32)
  // of output o's code stream along in.
  const uint64_t rowBytes = out * 4;
  parts.push_back(computed(
      module + ".qweight", "I32", {int64_t(in * bits / 32), l.out},
      in * bits / 32 * rowBytes,
      [lp, bits, out, in, rowBytes](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t w0, uint64_t c, uint8_t *o) {
          if (lp->method == HfQuantMethod::Planar && 32 % bits == 0) {
            // A planar set's codes are `packed` along in, least significant
            // bits first, as GPTQ's words are: word (w, r) is bytes
            // [4w, 4w + 4) of output r's codes (with each code's top bit
            // flipped back when they are signed), a transposition of
            // 32-bit words.
            const uint32_t flip = lp->symmetric ? (bits == 2   ? 0xAAAAAAAAu
                                                   : bits == 4 ? 0x88888888u
                                                               : 0x80808080u)
                                                : 0u;
            // In tiles of 16 outputs: their 16 code rows stay in L1 while
            // each output row gets 64 contiguous bytes.
            const uint64_t codeRow = in * bits / 8;
            const uint8_t *codes = lp->qweight.data + 4 * w0;
            for (uint64_t r0 = 0; r0 < out; r0 += 16) {
              const uint64_t r1 = std::min<uint64_t>(out, r0 + 16);
              for (uint64_t w = 0; w < c; ++w)
                for (uint64_t r = r0; r < r1; ++r)
                  store32le(o + w * rowBytes + r * 4,
                            loadU32(codes + r * codeRow + 4 * w) ^ flip);
            }
            return;
          }
          // The codes of inputs [i0, i1) of every output, row by row.
          const uint64_t i0 = 32 * w0 / bits;
          const uint64_t i1 =
              std::min<uint64_t>(in, (32 * (w0 + c) + bits - 1) / bits);
          const uint64_t span = i1 - i0;
          std::vector<uint8_t> codes(out * span);
          for (uint64_t r = 0; r < out; ++r)
            codesAt(*lp, r, i0, span, codes.data() + r * span);
          for (uint64_t w = w0; w < w0 + c; ++w)
            for (uint64_t r = 0; r < out; ++r) {
              uint64_t v = 0;
              for (uint64_t e = 32 * w / bits; e * bits < 32 * w + 32; ++e) {
                const int64_t shift = int64_t(e * bits) - int64_t(32 * w);
                const uint64_t code = codes[r * span + (e - i0)];
                v |= shift >= 0 ? code << shift : code >> -shift;
              }
              store32le(o + (w - w0) * rowBytes + r * 4, uint32_t(v));
            }
        });
      }));
  // qzeros [groups, out * bits / 32]: row g the zero points (v1: minus
  // one) along out as one bit stream.
  const uint64_t zRowBytes = out * bits / 8;
  parts.push_back(computed(
      module + ".qzeros", "I32", {int64_t(groups), int64_t(out * bits / 32)},
      groups * zRowBytes,
      [zp, bits, out, zRowBytes, delta](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, zRowBytes, d, [&](uint64_t g0, uint64_t c, uint8_t *o) {
          std::memset(o, 0, c * zRowBytes);
          for (uint64_t g = g0; g < g0 + c; ++g) {
            std::vector<uint8_t> z(out);
            for (uint64_t r = 0; r < out; ++r)
              z[r] = uint8_t(int(zp(g, r)) + delta);
            packStreamRange(z.data(), 0, out, bits, 0, zRowBytes,
                            o + (g - g0) * zRowBytes);
          }
        });
      }));
  // scales [groups, out]: the [out, groups] of the others transposed, in
  // float16.
  StatusOr<TensorSource> scales =
      float16Scales(l, module + ".scales", "GPTQ", refuse);
  if (!scales)
    return scales.status();
  parts.push_back(*scales);
  const uint64_t group = l.oneScale ? in : l.groupSize;
  parts.push_back(
      computed(module + ".g_idx", "I32", {l.in}, in * 4,
               [lp, group](uint64_t f, uint64_t n, uint8_t *d) {
                 byRows(f, n, 4, d, [&](uint64_t i0, uint64_t c, uint8_t *o) {
                   for (uint64_t i = i0; i < i0 + c; ++i)
                     store32le(o + 4 * (i - i0),
                               lp->weight.groupIndex.empty()
                                   ? uint32_t(i / group)
                                   : uint32_t(lp->weight.groupIndex[i]));
                 });
               }));
  return parts;
}

StatusOr<std::vector<TensorSource>> rowsAsAwq(const HfQuantLinear &l,
                                              const std::string &module,
                                              const Refusal &refuse) {
  if (std::optional<std::string> why = notIntegerCodes(l))
    return refuse(*why + ", and AWQ holds integers");
  if (l.bits != 4)
    return refuse("AWQ packs 4-bit codes only");
  if (!l.weight.groupIndex.empty())
    return refuse("AWQ has no act-order (g_idx)");
  const uint64_t out = uint64_t(l.out), in = uint64_t(l.in);
  if (out % 8 != 0)
    return refuse("AWQ packs 8 outputs to a word, and " + std::to_string(out) +
                  " outputs are not whole words");
  StatusOr<ZeroPoints> zeros = integerZeros(l, refuse);
  if (!zeros)
    return zeros.status();
  const ZeroPoints zp = *zeros;
  const uint64_t groups = groupsOf(l);
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < out; ++r)
      if (zp(g, r) > 15)
        return refuse("the zero point " + std::to_string(zp(g, r)) +
                      " of group " + std::to_string(g) + ", output " +
                      std::to_string(r) + " does not fit 4 bits");
  const HfQuantLinear *lp = &l;
  std::vector<TensorSource> parts;
  // qweight [in, out / 8] and qzeros [groups, out / 8]: word c of a row
  // holds outputs 8c + j in nibble kAwqNibble[j] (WQLinear_GEMM's order).
  const uint64_t rowBytes = out / 8 * 4;
  auto awqRow = [out](const std::function<uint32_t(uint64_t)> &value,
                      uint8_t *row) {
    for (uint64_t c = 0; c < out / 8; ++c) {
      uint32_t v = 0;
      for (unsigned j = 0; j < 8; ++j)
        v |= value(8 * c + j) << (4 * kAwqNibble[j]);
      store32le(row + 4 * c, v);
    }
  };
  parts.push_back(computed(
      module + ".qweight", "I32", {l.in, int64_t(out / 8)}, in * rowBytes,
      [lp, out, rowBytes, awqRow](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t i0, uint64_t c, uint8_t *o) {
          // The codes of inputs [i0, i0 + c) of every output, row by row.
          std::vector<uint8_t> codes(out * c);
          for (uint64_t r = 0; r < out; ++r)
            codesAt(*lp, r, i0, c, codes.data() + r * c);
          for (uint64_t i = i0; i < i0 + c; ++i)
            awqRow(
                [&](uint64_t r) { return uint32_t(codes[r * c + (i - i0)]); },
                o + (i - i0) * rowBytes);
        });
      }));
  parts.push_back(computed(
      module + ".qzeros", "I32", {int64_t(groups), int64_t(out / 8)},
      groups * rowBytes,
      [zp, rowBytes, awqRow](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, rowBytes, d, [&](uint64_t g0, uint64_t c, uint8_t *o) {
          for (uint64_t g = g0; g < g0 + c; ++g)
            awqRow([&](uint64_t r) { return zp(g, r); },
                   o + (g - g0) * rowBytes);
        });
      }));
  StatusOr<TensorSource> scales =
      float16Scales(l, module + ".scales", "AWQ", refuse);
  if (!scales)
    return scales.status();
  parts.push_back(*scales);
  return parts;
}

/// GPTQ's and AWQ's scales [groups, out] as their loaders hold them:
/// float16 (AutoAWQ's WQLinear_GEMM and GPTQModel's GPTQQuantLinear
/// register them as torch.float16, so loading BF16 or F32 ones would round
/// them). F16 scales are the stored bytes (GPTQ's and AWQ's tensor as it
/// is); BF16 and F32 ones become float16 when it holds every one exactly,
/// else the first it does not hold is refused, naming `scheme`.
StatusOr<TensorSource> float16Scales(const HfQuantLinear &l, std::string name,
                                     std::string_view scheme,
                                     const Refusal &refuse) {
  if (l.scaleType == "f16")
    return l.method == HfQuantMethod::Awq || l.method == HfQuantMethod::Gptq
               ? l.scales
               : scalesByGroup(l, std::move(name));
  const unsigned sb = l.scaleType == "f32" ? 4 : 2;
  const uint64_t out = uint64_t(l.out), groups = groupsOf(l);
  uint8_t scratch[2];
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < out; ++r) {
      const float s =
          storedScale(l.scaleType, l.scales.data + scaleIndex(l, g, r) * sb);
      if (putScale(quant::FloatType::F16, s, scratch))
        continue;
      return refuse("the scale " + floatWithBits(s) + " of group " +
                    std::to_string(g) + ", output " + std::to_string(r) +
                    (std::isfinite(s) && std::fabs(s) > 65504.0f
                         ? " is past float16's largest 65504"
                         : " is not exact in float16") +
                    ", and " + std::string(scheme) + " stores float16 scales");
    }
  const uint64_t sRowBytes = out * 2;
  const HfQuantLinear *lp = &l;
  return computed(
      std::move(name), "F16", {int64_t(groups), l.out}, groups * sRowBytes,
      [lp, sb, out, sRowBytes](uint64_t f, uint64_t n, uint8_t *d) {
        byRows(f, n, sRowBytes, d, [&](uint64_t g0, uint64_t c, uint8_t *o) {
          for (uint64_t g = g0; g < g0 + c; ++g)
            for (uint64_t r = 0; r < out; ++r) {
              const uint16_t h = quant::floatToHalf(storedScale(
                  lp->scaleType, lp->scales.data + scaleIndex(*lp, g, r) * sb));
              std::memcpy(o + (g - g0) * sRowBytes + r * 2, &h, 2);
            }
        });
      });
}

} // namespace

bool vmpack::formats::hfZerosSymmetric(const HfQuantLinear &l) {
  if (!l.affine)
    return l.symmetric;
  StatusOr<ZeroPoints> zp = integerZeros(
      l, [](const std::string &why) { return Status::formatError(why); });
  return zp && zp->symmetric;
}

StatusOr<std::string> vmpack::formats::hfTargetConfigJson(
    std::string_view target,
    const std::vector<const HfQuantLinear *> &linears) {
  if (linears.empty())
    return std::string();
  const HfQuantLinear &first = *linears.front();
  const bool mlx = target == "mlx";
  // compressed-tensors: groups of the whole row are strategy channel; MLX
  // writes each weight in groups of mlxGroupFor.
  const bool channel =
      !mlx &&
      std::all_of(linears.begin(), linears.end(), [](const HfQuantLinear *l) {
        return !l->oneScale && l->groupSize == uint64_t(l->in);
      });
  auto groupOf = [&](const HfQuantLinear &l) {
    return mlx ? mlxGroupFor(l) : l.groupSize;
  };
  bool sym = true, actorder = false;
  json targets = json::array();
  for (const HfQuantLinear *l : linears) {
    if (l->bits != first.bits || (!channel && groupOf(*l) != groupOf(first)))
      return Status::unsupported(
          "tensor " + quoteName(l->weight.name) + " has " +
          std::to_string(l->bits) + "-bit codes in groups of " +
          std::to_string(groupOf(*l)) + ", " + quoteName(first.weight.name) +
          " " + std::to_string(first.bits) + " in groups of " +
          std::to_string(groupOf(first)) +
          ": one quantization_config cannot say both");
    sym = sym && hfZerosSymmetric(*l);
    actorder = actorder || !l->weight.groupIndex.empty();
    targets.push_back(l->weight.name.substr(0, l->weight.name.size() -
                                                   std::strlen(".weight")));
  }
  nlohmann::ordered_json q;
  if (mlx) {
    // mlx_lm/utils.py: "quantization" {group_size, bits} (and the same as
    // "quantization_config").
    q["group_size"] = mlxGroupFor(first);
    q["bits"] = first.bits;
    return q.dump();
  }
  // compressed-tensors' QuantizationConfig (quantization/quant_config.py)
  // with one config group (QuantizationScheme: targets, weights) whose
  // targets are the quantized modules by name, so that no other Linear is
  // taken as quantized.
  nlohmann::ordered_json w;
  w["num_bits"] = first.bits;
  w["type"] = "int";
  w["symmetric"] = sym;
  w["strategy"] = channel ? "channel" : "group";
  if (channel)
    w["group_size"] = nullptr;
  else
    w["group_size"] = first.groupSize;
  if (actorder)
    w["actorder"] = "group";
  else
    w["actorder"] = nullptr;
  w["dynamic"] = false;
  nlohmann::ordered_json group;
  group["targets"] = nlohmann::ordered_json::parse(targets.dump());
  group["weights"] = w;
  group["input_activations"] = nullptr;
  group["output_activations"] = nullptr;
  q["quant_method"] = "compressed-tensors";
  q["format"] = "pack-quantized";
  q["quantization_status"] = "compressed";
  q["config_groups"]["group_0"] = group;
  q["ignore"] = nlohmann::ordered_json::array();
  return q.dump();
}
