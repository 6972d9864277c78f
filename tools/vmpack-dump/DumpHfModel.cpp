//===- DumpHfModel.cpp - vmpack-dump on Hugging Face model dirs -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A model directory is opened by the formats layer's reader of quantized
// checkpoints (openHfQuantModel), which checks every quantized linear's
// tensors; the listing shows each as the one weight it stands for.
//
//===----------------------------------------------------------------------===//

#include "DumpHfModel.h"

#include "DumpOutput.h"
#include "DumpWeights.h"

#include "vmpack/Formats/HfQuant.h"

#include <cinttypes>
#include <cstdio>
#include <map>

using namespace vmpack;
using namespace vmpack::dump;
using namespace vmpack::formats;

namespace {

/// docs/dump-json.md: the files' stored tensors as safetensors lists them,
/// each naming the quantized weight it belongs to and its part of it;
/// each quantized weight, as the table shows it, in the top-level extra.
int printJson(const HfQuantModel &m) {
  // MODULE.qweight -> (MODULE.weight, "qweight").
  std::map<std::string, std::pair<std::string, std::string>> parts;
  std::string linears = "[";
  for (size_t i = 0; i < m.linears.size(); ++i) {
    const HfQuantLinear &l = m.linears[i];
    std::string stored = "{";
    std::vector<TensorSource> tensors = hfLinearStored(l);
    std::string module = l.weight.name;
    if (module.size() > 7 &&
        module.compare(module.size() - 7, 7, ".weight") == 0)
      module.resize(module.size() - 7);
    for (size_t k = 0; k < tensors.size(); ++k) {
      const std::string &name = tensors[k].info.name;
      std::string role = name.compare(0, module.size() + 1, module + ".") == 0
                             ? name.substr(module.size() + 1)
                             : name;
      parts[name] = {l.weight.name, role};
      stored += (k ? ", " : "") + jsonString(role) + ": " + jsonString(name);
    }
    linears += std::string(i ? ", " : "") +
               jsonObject({{"name", jsonString(l.weight.name)},
                           {"shape", shapeList({l.out, l.in})},
                           {"bits", std::to_string(l.bits)},
                           {"group_size", std::to_string(l.groupSize)},
                           {"symmetric", l.symmetric ? "true" : "false"},
                           {"scale_type", jsonString(l.scaleType)},
                           {"description", jsonString(describeHfLinear(l))},
                           {"tensors", stored + "}"}});
  }
  linears += "]";
  JsonDocument doc;
  doc.format = "huggingface";
  for (size_t fi = 0; fi < m.files.size(); ++fi) {
    const WeightFile &f = *m.files[fi];
    doc.files.push_back({f.path, f.map->size(), f.tensors.size(), "null"});
    for (const TensorInfo &t : f.tensors) {
      JsonTensor j = weightTensorJson(f, t, fi);
      auto it = parts.find(t.name);
      j.extra = jsonObject(
          {{"weight",
            it == parts.end() ? "null" : jsonString(it->second.first)},
           {"part",
            it == parts.end() ? "null" : jsonString(it->second.second)}});
      doc.tensors.push_back(std::move(j));
    }
  }
  doc.metadata = m.metadata;
  doc.notes = m.warnings;
  std::string warnings = "[";
  for (size_t i = 0; i < m.warnings.size(); ++i)
    warnings += (i ? ", " : "") + jsonString(m.warnings[i]);
  doc.extra =
      jsonObject({{"config", jsonString(m.config.where)},
                  {"method", jsonString(hfQuantMethodName(m.config.method))},
                  {"weights", linears},
                  {"warnings", warnings + "]"}});
  printJsonDocument(doc);
  return 0;
}

} // namespace

int vmpack::dump::dumpHfModel(const DumpOptions &options) {
  if (options.action != Action::Table && options.action != Action::Json)
    return error(options.modulePath +
                 ": a model directory is listed only (as a table or "
                 "--json); --verify, --extract and --mlir take its "
                 ".safetensors files");
  StatusOr<std::unique_ptr<HfQuantModel>> opened =
      openHfQuantModel(options.modulePath);
  if (!opened)
    return error(opened.status().message());
  const HfQuantModel &m = **opened;
  for (const std::string &w : m.warnings)
    std::fprintf(stderr, "vmpack-dump: warning: %s\n", w.c_str());
  if (options.action == Action::Json)
    return printJson(m);
  std::printf("%s: Hugging Face %s checkpoint ('%s'), %zu quantized "
              "weights, %zu other tensors, in %zu file(s)\n",
              options.modulePath.c_str(), hfQuantMethodName(m.config.method),
              m.config.where.c_str(), m.linears.size(), m.others.size(),
              m.files.size());
  for (const HfQuantModel::Entry &e : m.order) {
    if (e.linear >= 0) {
      const HfQuantLinear &l = m.linears[size_t(e.linear)];
      uint64_t bytes = 0;
      for (const TensorSource &t : hfLinearStored(l))
        bytes += t.info.length;
      std::printf("  %-48s [%" PRId64 ", %" PRId64 "]  %s  %" PRIu64 " bytes\n",
                  quoteName(l.weight.name).c_str(), l.out, l.in,
                  describeHfLinear(l).c_str(), bytes);
      continue;
    }
    const TensorInfo &t = m.others[e.other].info;
    std::printf("  %-48s %s  %" PRIu64 " bytes\n", quoteName(t.name).c_str(),
                t.isOpaque() ? "ggml blocks"
                             : tensorTypeString(t.elementType, t.shape).c_str(),
                t.length);
  }
  return 0;
}
