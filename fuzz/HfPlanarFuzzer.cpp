//===- HfPlanarFuzzer.cpp - Fuzz target: group planar sets ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The group planar sets a file records (vmpack.planar.NAME = "group": the
// parts NAME.q, NAME.d and NAME.m read back before converting). Byte 0
// holds flags, then up to four part headers, each a suffix (q, d, m or
// another), an element type from a table (signed, unsigned and signless
// codes of 1..9 bits, the three float types, i32), an encoding, a rank
// 0..3 and one byte per dimension; the rest of the input is the parts'
// bytes, repeated as needed.
//  - checkHfPlanarSet on the headers with a byte length from the input
//    (often not the packed size): what it accepts has siN or uiN codes of
//    2..8 bits [out, in] of exactly their packed size, f16/bf16/f32 scales
//    [out, in / G] with G dividing in, and offsets only for unsigned codes,
//    zero points of the codes' type or biases of the scales', of the
//    scales' shape; a refusal has a message.
//  - openHfPlanarModel on the parts with their bytes (any encoding,
//    re-encoded to packed): an accepted model's linear has the set's facts,
//    and every conversion vmpack offers (floats, every Hugging Face scheme,
//    planar, the ggml type hfGgmlTarget picks) is either refused with a
//    message or produces exactly its tensors' lengths, read in two chunks.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/HfQuant.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using vmpack::fuzz::check;
using namespace vmpack;
using namespace vmpack::formats;

namespace {

constexpr const char *kTypes[] = {
    "si1", "si2", "si3", "si4", "si5",  "si6", "si7", "si8", "si9",
    "ui1", "ui2", "ui3", "ui4", "ui5",  "ui6", "ui7", "ui8", "ui9",
    "i2",  "i4",  "i8",  "f16", "bf16", "f32", "i32"};
constexpr size_t kTypeCount = sizeof kTypes / sizeof kTypes[0];
constexpr const char *kSuffixes[] = {"q", "d", "m", "x"};

struct Part {
  std::string suffix, type;
  Encoding encoding = Encoding::Packed;
  std::vector<int64_t> shape;
};

/// Every byte of `t`: its data, or produce in two chunks.
void drain(const TensorSource &t) {
  const uint64_t n = t.info.length;
  check(n < (uint64_t(64) << 20));
  std::vector<uint8_t> out(n);
  if (t.data) {
    if (n)
      std::memcpy(out.data(), t.data, n);
    return;
  }
  check(bool(t.produce));
  const uint64_t first = n / 2;
  if (first)
    t.produce(0, first, out.data());
  if (n - first)
    t.produce(first, n - first, out.data() + first);
}

void drainAll(const StatusOr<std::vector<TensorSource>> &parts) {
  if (!parts) {
    check(!parts.status().message().empty());
    return;
  }
  for (const TensorSource &t : *parts)
    drain(t);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t at = 0;
  auto next = [&]() -> uint8_t { return at < size ? data[at++] : 0; };
  const uint8_t flags = next();
  const unsigned count = 1 + (flags & 3);
  std::vector<Part> parts;
  for (unsigned i = 0; i < count; ++i) {
    Part p;
    p.suffix = kSuffixes[next() % 4];
    p.type = kTypes[next() % kTypeCount];
    const uint8_t layout = next();
    p.encoding = Encoding(layout % 3);
    for (unsigned r = 0; r < unsigned(layout / 3 % 4); ++r)
      p.shape.push_back(int64_t(next()));
    parts.push_back(std::move(p));
  }
  const uint8_t *pool = data + at;
  const size_t poolSize = size - at;
  const std::string name = "w";

  // The headers alone, with byte lengths from the input.
  std::vector<quant::PlanarTensorInfo> infos;
  for (size_t i = 0; i < parts.size(); ++i) {
    uint64_t length = 0;
    std::optional<ElementType> type = parseElementType(parts[i].type);
    check(type.has_value());
    std::optional<uint64_t> packed =
        storedSize(*type, parts[i].shape, Encoding::Packed);
    if (packed)
      length = *packed;
    if (flags & (8u << i))
      length += i < poolSize ? pool[i] : 1;
    infos.push_back(
        {name + "." + parts[i].suffix, parts[i].type, parts[i].shape, length});
  }
  StatusOr<HfPlanarSet> set = checkHfPlanarSet(name, infos);
  if (set) {
    check(set->bits >= 2 && set->bits <= 8);
    check(set->out > 0 && set->in > 0 && set->groupSize > 0 &&
          uint64_t(set->in) % set->groupSize == 0);
    check(set->scaleType == "f16" || set->scaleType == "bf16" ||
          set->scaleType == "f32");
    const quant::PlanarTensorInfo *q = nullptr, *m = nullptr;
    for (const quant::PlanarTensorInfo &p : infos) {
      if (p.name == "w.q")
        q = &p;
      if (p.name == "w.m")
        m = &p;
    }
    check(q &&
          q->byteLength ==
              (uint64_t(set->out) * uint64_t(set->in) * set->bits + 7) / 8);
    check(set->symmetric == (q->type[0] == 's'));
    check(!set->symmetric || !m);
    check(set->symmetric || m);
    check(!set->affine || m->type == set->scaleType);
  } else {
    check(!set.status().message().empty());
  }

  // The parts with bytes, as a file would give them.
  std::vector<std::unique_ptr<std::vector<uint8_t>>> bytes;
  std::vector<TensorSource> tensors;
  for (const Part &p : parts) {
    TensorSource t;
    t.info.name = name + "." + p.suffix;
    t.info.elementType = *parseElementType(p.type);
    t.info.shape = p.shape;
    t.info.encoding = p.encoding;
    std::optional<uint64_t> length =
        storedSize(t.info.elementType, p.shape, p.encoding);
    if (!length || *length > (uint64_t(1) << 20))
      return 0;
    t.info.length = *length;
    auto b = std::make_unique<std::vector<uint8_t>>(*length);
    for (uint64_t k = 0; k < *length && poolSize; ++k)
      (*b)[k] = pool[k % poolSize];
    t.data = b->data();
    bytes.push_back(std::move(b));
    tensors.push_back(std::move(t));
  }
  StringMetadata metadata = {{planarRecordKey(name), kHfPlanarRecord}};
  if (flags & 4)
    metadata.push_back({planarRecordKey("v"), kHfPlanarRecord});
  StatusOr<std::unique_ptr<HfQuantModel>> model =
      openHfPlanarModel(std::move(tensors), metadata, "fuzz");
  if (!model) {
    check(!model.status().message().empty());
    return 0;
  }
  check(!(flags & 4)); // "v" has no v.q
  check((*model)->linears.size() == 1);
  const HfQuantLinear &l = (*model)->linears.front();
  check(l.method == HfQuantMethod::Planar);
  check(l.weight.name == name && l.out > 0 && l.in > 0);
  for (quant::FloatType to :
       {quant::FloatType::F32, quant::FloatType::F16, quant::FloatType::BF16}) {
    StatusOr<TensorSource> f = hfLinearAsFloats(l, to);
    if (f)
      drain(*f);
    else
      check(!f.status().message().empty());
  }
  for (const char *scheme :
       {"gptq", "gptq_v2", "awq", "compressed-tensors", "mlx", "bnb-nf4"})
    drainAll(hfLinearAsScheme(l, scheme));
  drainAll(hfLinearAsPlanar(l));
  StatusOr<uint32_t> ggml = hfGgmlTarget(l, std::nullopt);
  if (ggml) {
    StatusOr<TensorSource> g = hfLinearAsGgml(l, *ggml);
    check(bool(g));
    drain(*g);
  } else {
    check(!ggml.status().message().empty());
  }
  return 0;
}
