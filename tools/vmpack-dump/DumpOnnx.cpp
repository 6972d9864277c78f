//===- DumpOnnx.cpp - vmpack-dump on ONNX models --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An .onnx model is opened by the formats layer's reader (openOnnx), which
// checks every length, every external data location and range, and keeps
// raw_data and external data where they are. Every tensor is listed with
// the file holding its bytes: the model (raw_data; typed fields, decoded,
// have no offset) or an external data file beside it. The quantized
// weights of the main graph (com.microsoft MatMulNBits, DequantizeLinear
// over INT4/UINT4; onnxQuantizedWeights) are shown with their scheme, as
// ggml blocks are. ONNX has no checksums: --verify checks the structure.
//
//===----------------------------------------------------------------------===//

#include "DumpOnnx.h"

#include "DumpOutput.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/Onnx.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Encoding.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/stat.h>

using namespace vmpack;
using namespace vmpack::dump;
using namespace vmpack::formats;
using archive::printableName;

namespace {

const char *kNoChecksums = "onnx has no checksums, so damaged data cannot be "
                           "detected";

/// One file read: the model, or an external data file it names.
struct FileRow {
  std::string path;
  /// The `location` that names it; empty for the model.
  std::string location;
  uint64_t size = 0;
  size_t tensors = 0;
};

/// A quantized weight as shown: the reader's description, with the group
/// of a per-axis or per-tensor weight (which has none of its own) counted.
struct Weight {
  const OnnxQuantizedWeight *w;
  quant::QuantScheme scheme;
  uint64_t blockSize = 0;
  std::string description;
};

struct Shown {
  std::unique_ptr<WeightFile> file;
  OnnxModel model;
  std::vector<FileRow> files;
  /// Per tensor: the index into `files` holding its bytes.
  std::vector<size_t> fileOf;
  std::vector<OnnxQuantizedWeight> quantized;
  std::vector<Weight> weights;
  /// Per tensor: the weight (index into `weights`) it is part of and the
  /// part ("codes", "scales", "zero_points"); -1 for none.
  std::vector<std::pair<int64_t, const char *>> partOf;
  /// Why the quantized weights could not be read (then none are shown).
  std::string weightsError;
};

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char *storageName(OnnxStorage s) {
  switch (s) {
  case OnnxStorage::Raw:
    return "raw_data";
  case OnnxStorage::External:
    return "external";
  case OnnxStorage::Typed:
    return "typed";
  }
  return "raw_data";
}

/// The weight's scheme as the table and --json show it. A per-axis weight's
/// group is every element of one index of the axis, a per-tensor weight's
/// the whole tensor: counted, so that "groups of N" is never 0.
Weight describeWeight(const OnnxQuantizedWeight &w) {
  Weight out{&w, w.weight.scheme, 0, ""};
  const std::vector<int64_t> &shape = w.weight.shape;
  uint64_t elements = numElements(shape).value_or(0);
  std::string how;
  if (out.scheme.groupSize == 0) {
    if (w.blockSize < 0 || shape.empty()) {
      out.scheme.groupSize = elements;
      how = "one scale for the tensor";
    } else {
      int64_t along = shape[w.weight.axis];
      out.scheme.groupSize = along > 0 ? elements / uint64_t(along) : 0;
      how = "one scale per index of axis " + std::to_string(w.weight.axis);
    }
  }
  out.blockSize = out.scheme.groupSize;
  out.description = quant::describe(out.scheme);
  if (!how.empty()) {
    std::string groups = "groups of " + std::to_string(out.scheme.groupSize);
    size_t at = out.description.find(groups);
    if (at != std::string::npos)
      out.description.replace(
          at, groups.size(),
          how + " (" + std::to_string(out.scheme.groupSize) + " values)");
  }
  out.description +=
      std::string(" (") +
      (w.matMulNBits ? "com.microsoft MatMulNBits" : "DequantizeLinear") +
      ", axis " + std::to_string(w.weight.axis) + ")";
  return out;
}

StatusOr<Shown> openShown(const std::string &path) {
  Shown shown;
  StatusOr<std::unique_ptr<WeightFile>> file =
      openOnnx(path, OnnxLimits(), &shown.model);
  if (!file)
    return file.status();
  shown.file = std::move(*file);
  const WeightFile &f = *shown.file;
  shown.files.push_back({path, "", f.map->size(), 0});
  // External data files by their real path (the reader resolved and
  // checked each location; two spellings of one file are one file).
  std::map<std::string, size_t> byReal;
  const std::string dir = directoryOf(path);
  for (const OnnxTensor &t : shown.model.tensors) {
    size_t index = 0;
    if (t.storage == OnnxStorage::External) {
      std::string named = path.find('/') == std::string::npos
                              ? t.location
                              : dir + "/" + t.location;
      char *real = ::realpath(named.c_str(), nullptr);
      std::string key = real ? std::string(real) : named;
      std::free(real);
      auto [it, added] = byReal.emplace(key, shown.files.size());
      if (added) {
        struct stat st;
        uint64_t size =
            ::stat(key.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
        shown.files.push_back({named, t.location, size, 0});
      }
      index = it->second;
    }
    shown.fileOf.push_back(index);
    ++shown.files[index].tensors;
  }
  shown.partOf.assign(f.tensors.size(), {-1, nullptr});
  StatusOr<std::vector<OnnxQuantizedWeight>> quantized =
      onnxQuantizedWeights(shown.model, f);
  if (!quantized) {
    shown.weightsError = path + ": " + quantized.status().message();
    return shown;
  }
  shown.quantized = std::move(*quantized);
  for (const OnnxQuantizedWeight &w : shown.quantized) {
    int64_t k = int64_t(shown.weights.size());
    shown.weights.push_back(describeWeight(w));
    shown.partOf[size_t(w.codes)] = {k, "codes"};
    shown.partOf[size_t(w.scales)] = {k, "scales"};
    if (w.zeroPoints >= 0)
      shown.partOf[size_t(w.zeroPoints)] = {k, "zero_points"};
  }
  return shown;
}

int printTable(const Shown &shown) {
  const WeightFile &f = *shown.file;
  bool several = shown.files.size() > 1;
  std::printf("onnx: %zu tensors", f.tensors.size());
  if (several)
    std::printf(" in %zu files", shown.files.size());
  std::printf(" (IR version %" PRId64 ")\n", shown.model.irVersion);
  if (several)
    for (size_t k = 0; k < shown.files.size(); ++k)
      std::printf("file %zu: %s (%s, %zu tensors)\n", k + 1,
                  shown.files[k].path.c_str(),
                  k ? "external data" : "the model", shown.files[k].tensors);
  size_t nameWidth = 4, typeWidth = 4;
  std::vector<std::string> types;
  for (const TensorInfo &t : f.tensors) {
    types.push_back(tensorTypeString(t.elementType, t.shape));
    nameWidth = std::max(nameWidth, printableName(t.name).size());
    typeWidth = std::max(typeWidth, types.back().size());
  }
  // Offsets are in the file holding the bytes; a typed field's values were
  // decoded, so it has none.
  std::printf("%-*s  %-*s  %-8s  %12s  %12s  %-8s%s\n", int(nameWidth), "name",
              int(typeWidth), "type", "encoding", "bytes", "offset", "storage",
              several ? "  file" : "");
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    const TensorInfo &t = f.tensors[i];
    const OnnxTensor &o = shown.model.tensors[i];
    std::string offset = o.storage == OnnxStorage::Typed
                             ? std::string("-")
                             : std::to_string(t.offset);
    std::printf("%-*s  %-*s  %-8s  %12" PRIu64 "  %12s  %-8s", int(nameWidth),
                printableName(t.name).c_str(), int(typeWidth), types[i].c_str(),
                encodingName(t.encoding), t.length, offset.c_str(),
                storageName(o.storage));
    if (several)
      std::printf("  %4zu", shown.fileOf[i] + 1);
    if (!o.initializer)
      std::printf("  (Constant)");
    std::printf("\n");
  }
  if (!shown.weights.empty())
    std::printf("quantized weights:\n");
  for (const Weight &w : shown.weights) {
    const OnnxQuantizedWeight &q = *w.w;
    std::string parts = "codes " + quoteName(f.tensors[size_t(q.codes)].name) +
                        ", scales " +
                        quoteName(f.tensors[size_t(q.scales)].name);
    if (q.zeroPoints >= 0)
      parts +=
          ", zero points " + quoteName(f.tensors[size_t(q.zeroPoints)].name);
    std::printf("  %s %s: %s; %s\n", printableName(q.weight.name).c_str(),
                shapeList(q.weight.shape).c_str(), w.description.c_str(),
                parts.c_str());
  }
  if (!f.stringMetadata.empty()) {
    std::printf("metadata:\n");
    for (const auto &[key, value] : f.stringMetadata)
      std::printf("  %s = %s\n", jsonString(key).c_str(),
                  jsonString(value).c_str());
  }
  return 0;
}

int printJson(const Shown &shown) {
  const WeightFile &f = *shown.file;
  JsonDocument doc;
  doc.format = formatName(FileFormat::Onnx);
  for (size_t k = 0; k < shown.files.size(); ++k) {
    const FileRow &r = shown.files[k];
    doc.files.push_back(
        {r.path, r.size, r.tensors,
         jsonObject({{"role", jsonString(k ? "external data" : "model")},
                     {"location", k ? jsonString(r.location) : "null"}})});
  }
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    const TensorInfo &t = f.tensors[i];
    const OnnxTensor &o = shown.model.tensors[i];
    JsonTensor j;
    j.name = t.name;
    j.type = tensorTypeString(t.elementType, t.shape);
    j.elementType = toString(t.elementType);
    j.shape = t.shape;
    j.encoding = encodingName(t.encoding);
    j.file = shown.fileOf[i];
    if (o.storage != OnnxStorage::Typed)
      j.offset = t.offset;
    j.length = t.length;
    auto [weight, part] = shown.partOf[i];
    if (weight >= 0 && std::strcmp(part, "codes") == 0) {
      const Weight &w = shown.weights[size_t(weight)];
      const OnnxQuantizedWeight &q = *w.w;
      std::vector<std::pair<const char *, std::string>> parts = {
          {"codes", jsonString(f.tensors[size_t(q.codes)].name)},
          {"scales", jsonString(f.tensors[size_t(q.scales)].name)}};
      if (q.zeroPoints >= 0)
        parts.push_back(
            {"zero_points", jsonString(f.tensors[size_t(q.zeroPoints)].name)});
      j.quant = quantJson(w.scheme, w.blockSize, q.weight.shape, w.description,
                          jsonObject(parts));
    }
    j.extra = jsonObject(
        {{"storage", jsonString(storageName(o.storage))},
         {"location",
          o.storage == OnnxStorage::External ? jsonString(o.location) : "null"},
         {"initializer", o.initializer ? "true" : "false"},
         {"weight",
          weight >= 0 ? jsonString(shown.weights[size_t(weight)].w->weight.name)
                      : "null"},
         {"part", weight >= 0 ? jsonString(part) : "null"}});
    doc.tensors.push_back(std::move(j));
  }
  doc.metadata = f.stringMetadata;
  if (!shown.weightsError.empty())
    doc.notes.push_back(shown.weightsError);
  doc.extra =
      jsonObject({{"ir_version", std::to_string(shown.model.irVersion)}});
  printJsonDocument(doc);
  return 0;
}

int extract(const Shown &shown, const DumpOptions &options) {
  const WeightFile &f = *shown.file;
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    if (f.tensors[i].name != options.extractName)
      continue;
    const uint8_t *data = f.locations[i].data;
    archive::Status st =
        writeOutputFile(options.outputPath, f.tensors[i].length,
                        [&](uint64_t at, uint8_t *out, size_t n) {
                          std::memcpy(out, data + at, n);
                        });
    return st ? 0 : error(st.message());
  }
  return error("no tensor named " + quoteName(options.extractName) + " in '" +
               options.modulePath + "'");
}

} // namespace

int vmpack::dump::dumpOnnx(const DumpOptions &options) {
  StatusOr<Shown> shown = openShown(options.modulePath);
  if (!shown)
    return error(shown.status().message());
  // A MatMulNBits or DequantizeLinear whose tensors disagree with the
  // operator: the tensors are listed as stored, and --verify fails.
  if (!shown->weightsError.empty() && options.action != Action::Verify)
    std::fprintf(stderr,
                 "vmpack-dump: warning: %s; its tensors are listed as stored\n",
                 shown->weightsError.c_str());
  switch (options.action) {
  case Action::Table:
    return printTable(*shown);
  case Action::Json:
    return printJson(*shown);
  case Action::Verify:
    if (!shown->weightsError.empty())
      return error(shown->weightsError);
    if (options.quiet)
      return 0;
    std::printf("%s: OK (%zu tensors in %zu file(s), %zu quantized weights; "
                "protobuf structure, types, shapes, external data locations "
                "and ranges, quantized weights' operators checked; %s)\n",
                options.modulePath.c_str(), shown->file->tensors.size(),
                shown->files.size(), shown->weights.size(), kNoChecksums);
    return 0;
  case Action::Extract:
    return extract(*shown, options);
  case Action::Mlir:
    return error(options.modulePath +
                 ": an ONNX model's graph is not a vmpack program; "
                 "`vmpack-convert " +
                 options.modulePath +
                 " -o OUT.mlir` writes its tensors as MLIR globals");
  }
  return 1;
}
