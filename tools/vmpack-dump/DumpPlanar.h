//===- DumpPlanar.h - Planar sets shown as one quantized weight -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A planar set (docs/quant.md sections 4 and 9: NAME.q, NAME.d, ... with
// the metadata record vmpack.planar.NAME naming its ggml type, or "group"
// for a Hugging Face checkpoint's weight, section 8) is listed by
// vmpack-dump as its stored tensors and, once, as the quantized weight they
// stand for. The set is checked as vmpack-convert reads it
// (quant::checkPlanarSet, formats::checkHfPlanarSet); one that is
// unrecorded or does not hold (a part missing, of the wrong type or shape,
// a record naming no type) stays plain tensors, with a note saying why.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPPLANAR_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPPLANAR_H

#include "vmpack/Pack/ElementType.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace vmpack::dump {

/// A stored tensor as the search sees it (its stored length is not used:
/// each part is checked against the packed length of its type and shape).
struct PlanarCandidate {
  std::string name;
  ElementType elementType;
  std::vector<int64_t> shape;
  /// ggml blocks (or another foreign type): never a part.
  bool opaque = false;
};

/// One planar set that holds.
struct PlanarWeight {
  std::string name;
  /// The ggml type whose planar form it is; 0 for a group planar set.
  uint32_t ggmlType = 0;
  /// Values per block: the ggml type's block, or the group size.
  uint64_t blockSize = 0;
  /// The logical shape (NAME.q's).
  std::vector<int64_t> shape;
  /// Codes first: (suffix, index of the tensor).
  std::vector<std::pair<std::string, size_t>> parts;
  /// The ggml type's scheme, named "planar.TYPE" ("planar.q4_k"), or a
  /// group planar set's ("planar.group").
  quant::QuantScheme scheme;
  /// The table's line: the scheme, and whose planar form it is.
  std::string description;
};

struct PlanarSets {
  std::vector<PlanarWeight> weights;
  /// Tensor index of each weight's codes -> index into weights.
  std::map<size_t, size_t> byCodes;
  /// Sets that do not hold, and records without their set: one sentence
  /// each, naming the set and why its tensors stay plain.
  std::vector<std::string> notes;
};

/// Finds the planar sets among `tensors` from the records in `metadata`
/// (key/value text, as vmpack-dump shows it).
PlanarSets findPlanarSets(
    const std::vector<PlanarCandidate> &tensors,
    const std::vector<std::pair<std::string, std::string>> &metadata);

/// The weight's "quant" object (dump::quantJson), with its parts.
std::string planarQuantJson(const PlanarWeight &w,
                            const std::vector<PlanarCandidate> &tensors);

/// Prints the "quantized weights:" lines of the planar weights (after
/// `anyQuantized` others; true if a heading was printed already) and the
/// "notes:" lines.
void printPlanarSets(const PlanarSets &sets,
                     const std::vector<PlanarCandidate> &tensors,
                     bool anyQuantized);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPPLANAR_H
