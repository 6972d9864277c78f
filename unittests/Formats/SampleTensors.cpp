//===- SampleTensors.cpp - Tensors with known contents for format tests ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "SampleTensors.h"

#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Convert.h"

#include <cassert>
#include <functional>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;

namespace {
OwnedTensor makeTensor(const std::string &name, const ElementType &type,
                       const std::vector<int64_t> &shape,
                       const std::function<uint64_t(uint64_t)> &value) {
  OwnedTensor t;
  t.source.info.name = name;
  t.source.info.elementType = type;
  t.source.info.shape = shape;
  t.source.info.encoding = Encoding::Byte;
  uint64_t n = *numElements(shape) * type.scalarsPerElement();
  uint32_t bits = type.scalarBits();
  unsigned bytes = (bits + 7) / 8;
  t.bytes = std::make_shared<std::vector<uint8_t>>(size_t(n * bytes));
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t v = value(k);
    for (unsigned b = 0; b < bytes; ++b)
      (*t.bytes)[size_t(k * bytes + b)] = b < 8 ? uint8_t(v >> (8 * b)) : 0;
  }
  t.source.info.length = t.bytes->size();
  t.source.data = t.bytes->data();
  return t;
}
uint64_t mask(uint32_t bits, uint64_t v) {
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}
} // namespace

OwnedTensor vmpack::formats::testing::patternTensor(
    const std::string &name, const ElementType &type,
    const std::vector<int64_t> &shape, uint64_t t) {
  return makeTensor(name, type, shape, [&](uint64_t k) {
    return patternValue(type.scalarBits(), k, t);
  });
}

OwnedTensor vmpack::formats::testing::randomTensor(
    const std::string &name, const ElementType &type,
    const std::vector<int64_t> &shape, std::mt19937_64 &rng) {
  return makeTensor(name, type, shape,
                    [&](uint64_t) { return mask(type.scalarBits(), rng()); });
}

std::vector<std::string> vmpack::formats::testing::sampleTypeNames() {
  std::vector<std::string> names;
  // The rows safetensors or GGUF have; the ONNX-only ones (i4, ui2,
  // complex<f64>, ...) are among the extras or not sampled here.
  for (const InteropType &row : interopTypes())
    if (row.safetensorsDtype || row.ggmlType >= 0)
      names.push_back(toString(row.type));
  for (const char *extra :
       {"i2", "i3", "i4", "si4", "ui4", "i7", "ui1", "i12", "f8E4M3", "f8E3M4",
        "tf32", "complex<i4>", "complex<f16>"})
    names.push_back(extra);
  return names;
}

std::vector<OwnedTensor> vmpack::formats::testing::sampleTensors() {
  std::vector<OwnedTensor> out;
  uint64_t t = 0;
  for (const std::string &name : sampleTypeNames()) {
    std::optional<ElementType> type = parseElementType(name);
    assert(type && "sample type names parse");
    // Odd shapes: sub-byte tensors do not end on a byte boundary.
    std::vector<int64_t> shape = t % 3 == 0   ? std::vector<int64_t>{3, 5}
                                 : t % 3 == 1 ? std::vector<int64_t>{7}
                                              : std::vector<int64_t>{2, 3, 3};
    out.push_back(
        patternTensor("t" + std::to_string(t) + "." + name, *type, shape, t));
    ++t;
  }
  return out;
}

std::vector<uint8_t>
vmpack::formats::testing::toByteEncoding(const TensorInfo &info,
                                         const uint8_t *data) {
  uint32_t bits = info.elementType.scalarBits();
  uint64_t n = *numElements(info.shape) * info.elementType.scalarsPerElement();
  std::vector<uint8_t> out(size_t(*encodedSize(Encoding::Byte, bits, n)));
  vmpack::convert(info.encoding, Encoding::Byte, bits, data + info.offset,
                  out.data(), n);
  return out;
}

std::vector<TensorSource>
vmpack::formats::testing::sources(const std::vector<OwnedTensor> &tensors) {
  std::vector<TensorSource> out;
  for (const OwnedTensor &t : tensors)
    out.push_back(t.source);
  return out;
}
