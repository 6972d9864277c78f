//===- DumpPlanar.cpp - Planar sets shown as one quantized weight ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpPlanar.h"

#include "DumpOutput.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Formats/Tensor.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <cctype>
#include <cstdio>
#include <set>

using namespace vmpack;
using namespace vmpack::dump;
using archive::printableName;
using formats::quoteName;

namespace {

/// The part's type as checkPlanarSet compares it: readers of safetensors
/// and GGUF give si4 back as the signless i4 (the same bits), as
/// vmpack-convert's join counts them.
std::string partTypeSpelling(const ElementType &type) {
  std::string t = toString(type);
  if (t.size() > 1 && t[0] == 'i' &&
      t.find_first_not_of("0123456789", 1) == std::string::npos)
    return "s" + t;
  return t;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

PlanarSets vmpack::dump::findPlanarSets(
    const std::vector<PlanarCandidate> &tensors,
    const std::vector<std::pair<std::string, std::string>> &metadata) {
  PlanarSets out;
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < tensors.size(); ++i)
    byName.emplace(tensors[i].name, i);
  // The members of set NAME: every plain tensor named NAME.*.
  auto membersOf = [&](const std::string &name) {
    std::vector<quant::PlanarTensorInfo> infos;
    for (const PlanarCandidate &t : tensors) {
      if (t.opaque || !startsWith(t.name, name + "."))
        continue;
      std::optional<uint64_t> packed =
          formats::storedSize(t.elementType, t.shape, Encoding::Packed);
      infos.push_back({t.name, partTypeSpelling(t.elementType), t.shape,
                       packed.value_or(0)});
    }
    return infos;
  };
  const std::string prefix = formats::planarRecordKey("");
  std::set<std::string> recorded;
  for (const auto &[key, value] : metadata) {
    if (!startsWith(key, prefix))
      continue;
    const std::string name = key.substr(prefix.size());
    if (!recorded.insert(name).second) {
      out.notes.push_back("metadata key " + quoteName(key) +
                          " appears more than once; the first is used");
      continue;
    }
    std::optional<uint32_t> type = formats::parsePlanarRecord(value);
    auto codes = byName.find(name + ".q");
    if (!type && value == formats::kHfPlanarRecord) {
      // A Hugging Face checkpoint's weight: codes, scales, and zero
      // points or biases (docs/quant.md section 8, "Planar").
      if (codes == byName.end()) {
        out.notes.push_back("metadata key " + quoteName(key) +
                            " records a group planar set, but there is no "
                            "tensor " +
                            quoteName(name + ".q"));
        continue;
      }
      archive::StatusOr<formats::HfPlanarSet> set =
          formats::checkHfPlanarSet(name, membersOf(name));
      if (!set) {
        out.notes.push_back(set.status().message() + "; " +
                            quoteName(name + ".*") +
                            " are listed as plain tensors");
        continue;
      }
      PlanarWeight w;
      w.name = name;
      w.blockSize = set->groupSize;
      w.shape = {set->out, set->in};
      for (const char *suffix : {"q", "d", "m"})
        if (byName.count(name + "." + suffix))
          w.parts.push_back({suffix, byName.at(name + "." + suffix)});
      w.scheme = set->scheme;
      w.description = quant::describe(w.scheme) +
                      (set->affine      ? " (a group planar set: q * d + m)"
                       : set->symmetric ? " (a group planar set: q * d)"
                                        : " (a group planar set: (q - m) * d)");
      out.byCodes.emplace(codes->second, out.weights.size());
      out.weights.push_back(std::move(w));
      continue;
    }
    if (!type) {
      out.notes.push_back(
          "metadata key " + quoteName(key) + " is " + quoteName(value) +
          ", not the name of a ggml type with a planar form (docs/quant.md, "
          "section 9): " +
          quoteName(name + ".*") + " are listed as plain tensors");
      continue;
    }
    if (codes == byName.end()) {
      out.notes.push_back("metadata key " + quoteName(key) +
                          " records a planar set, but there is no tensor " +
                          quoteName(name + ".q"));
      continue;
    }
    std::vector<quant::PlanarTensorInfo> infos = membersOf(name);
    if (archive::Status s = quant::checkPlanarSet(*type, name, infos); !s) {
      out.notes.push_back("the planar set recorded by " + quoteName(key) +
                          " does not hold: " + s.message() + "; " +
                          quoteName(name + ".*") +
                          " are listed as plain tensors");
      continue;
    }
    PlanarWeight w;
    w.name = name;
    w.ggmlType = *type;
    w.blockSize = quant::ggmlBlockElements(*type);
    w.shape = tensors[codes->second].shape;
    for (const quant::PlanarPart &p : quant::ggmlPlanarParts(*type))
      w.parts.push_back({p.suffix, byName.at(name + "." + p.suffix)});
    const char *typeName = quant::ggmlTypeTraits(*type)->name;
    w.scheme = *quant::ggmlScheme(*type);
    w.scheme.name = "planar." + lower(typeName);
    w.description = quant::describe(w.scheme) + " (the planar form of ggml " +
                    typeName + ")";
    out.byCodes.emplace(codes->second, out.weights.size());
    out.weights.push_back(std::move(w));
  }
  // In the order of their codes among the tensors.
  std::vector<PlanarWeight> sorted;
  out.weights.swap(sorted);
  std::map<size_t, size_t> byCodes;
  out.byCodes.swap(byCodes);
  for (const auto &[codes, k] : byCodes) {
    out.byCodes.emplace(codes, out.weights.size());
    out.weights.push_back(std::move(sorted[k]));
  }
  // Sets without a record: codes NAME.q with a scale NAME.d beside them.
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string &full = tensors[i].name;
    if (tensors[i].opaque || full.size() < 3 ||
        full.compare(full.size() - 2, 2, ".q") != 0)
      continue;
    const std::string name = full.substr(0, full.size() - 2);
    if (recorded.count(name) || !byName.count(name + ".d"))
      continue;
    std::vector<quant::PlanarTensorInfo> infos = membersOf(name);
    std::string fits;
    for (const quant::GgmlTypeTraits &g : quant::ggmlTypes())
      if (quant::hasGgmlPlanarForm(g.type) &&
          quant::checkPlanarSet(g.type, name, infos).isOk())
        fits += std::string(fits.empty() ? "" : ", ") + g.name;
    out.notes.push_back(
        quoteName(name + ".*") + " look like a planar set, but no " +
        quoteName(prefix + name) + " records its ggml type" +
        (fits.empty() ? std::string(" (and they fit no type's planar form)")
                      : " (they fit the planar form of " + fits +
                            "; vmpack-convert --quant=TYPE joins them)") +
        ": listed as plain tensors");
  }
  return out;
}

std::string
vmpack::dump::planarQuantJson(const PlanarWeight &w,
                              const std::vector<PlanarCandidate> &tensors) {
  std::vector<std::pair<const char *, std::string>> parts;
  for (const auto &[suffix, index] : w.parts)
    parts.push_back({suffix.c_str(), jsonString(tensors[index].name)});
  return quantJson(w.scheme, w.blockSize, w.shape, w.description,
                   jsonObject(parts));
}

void vmpack::dump::printPlanarSets(const PlanarSets &sets,
                                   const std::vector<PlanarCandidate> &tensors,
                                   bool anyQuantized) {
  for (const PlanarWeight &w : sets.weights) {
    if (!anyQuantized)
      std::printf("quantized weights:\n");
    anyQuantized = true;
    std::string parts;
    for (const auto &[suffix, index] : w.parts) {
      const PlanarCandidate &t = tensors[index];
      parts += (parts.empty() ? "" : ", ") + quoteName(t.name) + " " +
               formats::tensorTypeString(t.elementType, t.shape);
    }
    std::printf("  %s %s: %s; parts %s\n", printableName(w.name).c_str(),
                shapeList(w.shape).c_str(), w.description.c_str(),
                parts.c_str());
  }
  if (!sets.notes.empty())
    std::printf("notes:\n");
  for (const std::string &n : sets.notes)
    std::printf("  %s\n", n.c_str());
}
