//===- Planar.cpp - ggml blocks as planar numpy arrays --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Quant layer's planar form (include/vmpack/Quant/GgmlPlanar.h,
// docs/quant.md section 4) for vmpack.PlanarWeight and Segment.planar:
//
// - PLANAR_TYPES: quant::ggmlPlanarParts, the one table of every type's
//   parts (suffix, MLIR element type, bits, elements per block), with the
//   numpy dtype each part's values are widened into, so that Python never
//   spells a part's type itself;
// - ggml_type: a ggml type's canonical name and number, from its name in
//   any case (quant::ggmlTypeByName);
// - ggml_to_planar: blocks split with quant::ggmlToPlanar, a batch at a
//   time, and each part widened with the packing library (unpackToInt,
//   unpackToFloat32) into its own new array; nothing else is allocated but
//   one batch of packed parts. Runs without the GIL.
//
//===----------------------------------------------------------------------===//

#include "Planar.h"

#include "RaiseStatus.h"
#include "vmpack/Formats/Tensor.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Pack/ElementType.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace vmpack;

namespace {

/// The numpy dtype a part's values are widened into: signed integers in
/// int8, unsigned ones in uint8 (every part is at most 8 bits), f16 as it
/// is, every other float (f8E8M0FNU, f4E2M1FN) in float32, which holds
/// each of their values exactly. save_file's (array, "TYPE") convention.
struct Widened {
  const char *dtype;
  unsigned itemBytes;
};
Widened widenedDtype(const ElementType &type) {
  const ScalarType &s = type.scalar;
  if (s.isInteger())
    return {s.kind == ScalarKind::UnsignedInt ? "uint8" : "int8", 1};
  if (s.kind == ScalarKind::F16)
    return {"float16", 2};
  return {"float32", 4};
}

/// Widens `count` packed elements of `type` at `src` into `dst` (an array
/// of widenedDtype(type)).
void widen(const ElementType &type, const uint8_t *src, uint64_t count,
           uint8_t *dst) {
  const ScalarType &s = type.scalar;
  if (s.isInteger())
    unpackToInt(Encoding::Packed, s.width, s.kind != ScalarKind::UnsignedInt,
                src, 0, count, dst, 1);
  else if (s.kind == ScalarKind::F16)
    std::memcpy(dst, src, count * 2); // little-endian host (Python checks)
  else
    unpackToFloat32(Encoding::Packed, s.kind, src, 0, count,
                    reinterpret_cast<float *>(dst));
}

/// "Q4_0, Q4_1, ...": the types with a planar form, from the one table.
std::string planarTypeList() {
  std::string list;
  for (const quant::GgmlTypeTraits &g : quant::ggmlTypes())
    if (quant::hasGgmlPlanarForm(g.type))
      list += (list.empty() ? "" : ", ") + std::string(g.name);
  return list;
}

} // namespace

void vmpack::python::registerPlanar(py::module_ &m) {
  py::dict types;
  for (const quant::GgmlTypeTraits &g : quant::ggmlTypes()) {
    if (!quant::hasGgmlPlanarForm(g.type))
      continue;
    py::list parts;
    for (const quant::PlanarPart &p : quant::ggmlPlanarParts(g.type))
      parts.append(
          py::make_tuple(p.suffix, p.type, p.bits, p.perBlock,
                         widenedDtype(*parseElementType(p.type)).dtype));
    py::dict t;
    t["type"] = g.type;
    t["block_size"] = g.blockSize;
    t["block_bytes"] = g.typeSize;
    t["parts"] = py::tuple(parts);
    types[g.name] = t;
  }
  m.attr("PLANAR_TYPES") = types;

  m.def(
      "ggml_type",
      [](const std::string &name) -> py::object {
        const quant::GgmlTypeTraits *g = quant::ggmlTypeByName(name);
        if (!g)
          return py::none();
        return py::make_tuple(g->name, g->type);
      },
      py::arg("name"));

  m.def(
      "ggml_to_planar",
      [m](uint32_t ggmlType, const py::array_t<uint8_t> &blocks,
          const std::vector<int64_t> &shape, const std::string &name) {
        const std::string quoted = formats::quoteName(name);
        const quant::GgmlTypeTraits *g = quant::ggmlTypeTraits(ggmlType);
        const std::vector<quant::PlanarPart> &parts =
            quant::ggmlPlanarParts(ggmlType);
        if (!g || parts.empty())
          python::raiseStatus(
              m,
              archive::Status::unsupported(
                  "segment " + quoted + ": ggml " +
                  (g ? std::string(g->name)
                     : "type " + std::to_string(ggmlType)) +
                  " has no planar form (docs/quant.md, section 4: " +
                  planarTypeList() + "); read its values with dequantize()"));
        std::optional<uint64_t> n = formats::numElements(shape);
        if (!n || shape.empty() || shape.back() <= 0 ||
            uint64_t(shape.back()) % g->blockSize != 0 ||
            uint64_t(blocks.size()) != *n / g->blockSize * g->typeSize)
          python::raiseStatus(m, archive::Status::formatError(
                                     "segment " + quoted + ": " +
                                     std::to_string(blocks.size()) +
                                     " bytes are not whole ggml " + g->name +
                                     " blocks of its shape"));
        const uint64_t blockCount = *n / g->blockSize;
        std::vector<py::array> out;
        std::vector<uint8_t *> dst;
        std::vector<ElementType> partTypes;
        for (const quant::PlanarPart &p : parts) {
          partTypes.push_back(*parseElementType(p.type));
          std::vector<int64_t> partShape =
              quant::planarPartShape(ggmlType, p, shape);
          py::array a(
              py::dtype(widenedDtype(partTypes.back()).dtype),
              std::vector<py::ssize_t>(partShape.begin(), partShape.end()));
          dst.push_back(static_cast<uint8_t *>(a.mutable_data()));
          out.push_back(std::move(a));
        }
        const uint8_t *src = blocks.data();
        {
          py::gil_scoped_release release;
          const uint64_t batch = 4096;
          std::vector<std::vector<uint8_t>> scratch(parts.size());
          std::vector<uint8_t *> ptrs(parts.size());
          for (uint64_t b = 0; b < blockCount; b += batch) {
            const uint64_t count = std::min(batch, blockCount - b);
            for (size_t k = 0; k < parts.size(); ++k) {
              scratch[k].resize(count * parts[k].bytesPerBlock());
              ptrs[k] = scratch[k].data();
            }
            archive::Status s = quant::ggmlToPlanar(
                ggmlType, src + b * g->typeSize, count, ptrs.data());
            (void)s; // every byte pattern splits
            for (size_t k = 0; k < parts.size(); ++k) {
              const uint64_t per = parts[k].perBlock;
              const uint64_t itemBytes = widenedDtype(partTypes[k]).itemBytes;
              widen(partTypes[k], ptrs[k], count * per,
                    dst[k] + b * per * itemBytes);
            }
          }
        }
        py::list result;
        for (py::array &a : out)
          result.append(a);
        return result;
      },
      py::arg("ggml_type"), py::arg("blocks"), py::arg("shape"),
      py::arg("name"));
}
