//===- QuantFuzzer.cpp - Fuzz target: block decoders and planar joiner ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Byte 0 picks a ggml block type, byte 1 a mode; the rest is data.
//  - decode: decodeGgmlBytes on the data into an exactly sized buffer (a
//    size that is not a whole number of blocks must be refused), then the
//    whole blocks again one at a time, which must give the same bits.
//  - planar (types with a planar form): the data split into parts and
//    joined back must be the same bytes, and decodeGgmlPlanar the same bits;
//    the data read as parts, joined and split again, the same parts.
//  - repack: the data as a group-quantized weight (code type, group size,
//    scale type and offsets from the next bytes) through repackToGgml, which
//    must refuse or give blocks that decode to decodeGroupQuant's bits.
//  - quantize: the data as float32 rows through quantizeGgmlBlocks for
//    Q4_0 ... Q8_0, whose blocks must decode; every float16 pattern in the
//    data must survive ggmlFloatToHalf(ggmlHalfToFloat(h)) unless a NaN;
//    and the data as a --quant value and a vmpack.planar.NAME record
//    (formats::parseQuantTarget, parsePlanarRecord), which must name a type
//    with a planar form spelled as the data (any case) or be refused.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlQuantize.h"

#include <cctype>
#include <string>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using vmpack::fuzz::check;
using namespace vmpack::quant;

namespace {

/// At most this many blocks per input: keeps each run fast.
constexpr uint64_t kMaxBlocks = 64;

std::vector<uint32_t> blockTypes() {
  std::vector<uint32_t> out;
  for (const GgmlTypeTraits &t : ggmlTypes())
    if (t.blockSize > 1)
      out.push_back(t.type);
  return out;
}

bool sameBits(const float *a, const float *b, size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

void fuzzDecode(uint32_t type, const uint8_t *data, size_t size) {
  uint32_t bytes = ggmlBlockBytes(type), elems = ggmlBlockElements(type);
  uint64_t blocks = std::min<uint64_t>(size / bytes, kMaxBlocks);
  uint64_t n = blocks * elems;
  std::unique_ptr<float[]> out(new float[n ? n : 1]);
  Status s = decodeGgmlBytes(type, data, blocks * bytes, out.get(), n);
  check(s.isOk());
  if (size % bytes != 0 && size / bytes <= kMaxBlocks) {
    std::unique_ptr<float[]> big(new float[(blocks + 1) * elems]);
    check(!decodeGgmlBytes(type, data, size, big.get(), (blocks + 1) * elems)
               .isOk());
  }
  if (blocks) // too small by one float
    check(
        !decodeGgmlBytes(type, data, blocks * bytes, out.get(), n - 1).isOk());
  std::vector<float> one(elems);
  for (uint64_t i = 0; i < blocks; ++i) {
    check(decodeGgmlBlocks(type, data + i * bytes, 1, one.data()).isOk());
    check(sameBits(one.data(), out.get() + i * elems, elems));
  }
}

void fuzzPlanar(uint32_t type, const uint8_t *data, size_t size) {
  const std::vector<PlanarPart> &layout = ggmlPlanarParts(type);
  uint32_t bytes = ggmlBlockBytes(type), elems = ggmlBlockElements(type);
  uint64_t blocks = std::min<uint64_t>(size / bytes, kMaxBlocks);
  std::vector<std::unique_ptr<uint8_t[]>> parts;
  std::vector<uint8_t *> ptrs;
  for (const PlanarPart &p : layout) {
    parts.emplace_back(new uint8_t[blocks * p.bytesPerBlock() + 1]);
    ptrs.push_back(parts.back().get());
  }
  check(ggmlToPlanar(type, data, blocks, ptrs.data()).isOk());
  std::unique_ptr<uint8_t[]> back(new uint8_t[blocks * bytes + 1]);
  std::vector<const uint8_t *> cptrs(ptrs.begin(), ptrs.end());
  check(planarToGgml(type, cptrs.data(), blocks, back.get()).isOk());
  check(std::memcmp(back.get(), data, blocks * bytes) == 0);
  std::vector<float> a(blocks * elems + 1), b(blocks * elems + 1);
  check(decodeGgmlBlocks(type, data, blocks, a.data()).isOk());
  check(decodeGgmlPlanar(type, cptrs.data(), blocks, b.data()).isOk());
  check(sameBits(a.data(), b.data(), blocks * elems));

  // The data as parts, one after another.
  size_t perBlock = 0;
  for (const PlanarPart &p : layout)
    perBlock += p.bytesPerBlock();
  uint64_t pb = std::min<uint64_t>(size / perBlock, kMaxBlocks);
  std::vector<const uint8_t *> in;
  size_t at = 0;
  for (const PlanarPart &p : layout) {
    in.push_back(data + at);
    at += pb * p.bytesPerBlock();
  }
  std::unique_ptr<uint8_t[]> joined(new uint8_t[pb * bytes + 1]);
  check(planarToGgml(type, in.data(), pb, joined.get()).isOk());
  std::vector<std::unique_ptr<uint8_t[]>> again;
  std::vector<uint8_t *> againPtrs;
  for (const PlanarPart &p : layout) {
    again.emplace_back(new uint8_t[pb * p.bytesPerBlock() + 1]);
    againPtrs.push_back(again.back().get());
  }
  check(ggmlToPlanar(type, joined.get(), pb, againPtrs.data()).isOk());
  for (size_t p = 0; p < layout.size(); ++p)
    check(std::memcmp(againPtrs[p], in[p], pb * layout[p].bytesPerBlock()) ==
          0);
}

void fuzzRepack(const uint8_t *data, size_t size) {
  if (size < 4)
    return;
  static const uint32_t targets[] = {kGgmlQ4_0, kGgmlQ4_1, kGgmlQ5_0,
                                     kGgmlQ5_1, kGgmlQ8_0, kGgmlQ4_K};
  static const char *codeTypes[] = {"si4", "ui4", "si5", "ui5",
                                    "si8", "ui8", "si3", "f16"};
  static const char *scaleTypes[] = {"f16", "bf16", "f32", "f64"};
  uint32_t target = targets[data[0] % 6];
  GroupQuantSource src;
  src.name = "fuzz";
  src.codeType = codeTypes[data[1] % 8];
  src.scaleType = scaleTypes[(data[1] >> 3) % 4];
  src.offsetKind = OffsetKind((data[1] >> 5) % 4);
  src.groupSize = 16u << (data[2] % 4); // 16 .. 128
  uint64_t rows = 1 + data[3] % 3, k = 128;
  src.shape = {int64_t(rows), int64_t(k)};
  data += 4;
  size -= 4;
  uint64_t codeBytes = rows * k; // enough for 8-bit codes
  uint64_t groups = rows * k / src.groupSize;
  uint64_t scaleBytes = groups * 4;
  if (size < codeBytes + 2 * scaleBytes)
    return;
  src.codes = data;
  src.scales = data + codeBytes;
  src.offsets = data + codeBytes + scaleBytes;
  // Exactly the target's bytes, so that ASan sees any write past them.
  std::unique_ptr<uint8_t[]> out(
      new uint8_t[rows * k / 32 * ggmlBlockBytes(target)]);
  Status s = repackToGgml(target, src, out.get());
  if (!s.isOk())
    return;
  std::vector<float> want(rows * k), got(rows * k);
  check(decodeGroupQuant(src, want.data()).isOk());
  check(decodeGgmlBlocks(target, out.get(), rows * k / 32, got.data()).isOk());
  check(sameBits(want.data(), got.data(), rows * k));
}

void fuzzQuantize(const uint8_t *data, size_t size) {
  uint64_t blocks = std::min<uint64_t>(size / 128, kMaxBlocks);
  std::vector<float> x(blocks * 32), got(blocks * 32);
  if (!x.empty()) // memcpy's pointers may not be null, even for no bytes
    std::memcpy(x.data(), data, x.size() * 4);
  for (uint32_t t : {kGgmlQ4_0, kGgmlQ4_1, kGgmlQ5_0, kGgmlQ5_1, kGgmlQ8_0}) {
    std::vector<uint8_t> out(blocks * ggmlBlockBytes(t));
    check(quantizeGgmlBlocks(t, x.data(), blocks, out.data()).isOk());
    check(decodeGgmlBlocks(t, out.data(), blocks, got.data()).isOk());
  }
  for (size_t i = 0; i + 1 < size; i += 2) {
    uint16_t h = uint16_t(data[i] | data[i + 1] << 8);
    if ((h & 0x7C00) != 0x7C00 || (h & 0x3FF) == 0)
      check(ggmlFloatToHalf(ggmlHalfToFloat(h)) == h);
  }
  std::string text(reinterpret_cast<const char *>(data),
                   std::min<size_t>(size, 64));
  auto sameName = [&](uint32_t type) {
    const char *name = ggmlTypeTraits(type)->name;
    if (std::strlen(name) != text.size())
      return false;
    for (size_t i = 0; i < text.size(); ++i)
      if (std::tolower(uint8_t(text[i])) != std::tolower(uint8_t(name[i])))
        return false;
    return true;
  };
  if (std::optional<uint32_t> t = vmpack::formats::parsePlanarRecord(text))
    check(hasGgmlPlanarForm(*t) && sameName(*t));
  if (std::optional<vmpack::formats::QuantTarget> q =
          vmpack::formats::parseQuantTarget(text);
      q && q->kind == vmpack::formats::QuantTarget::Ggml)
    check(hasGgmlPlanarForm(q->ggmlType) && sameName(q->ggmlType));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  static const std::vector<uint32_t> types = blockTypes();
  uint32_t type = types[data[0] % types.size()];
  uint8_t mode = data[1] % 4;
  data += 2;
  size -= 2;
  if (mode == 0)
    fuzzDecode(type, data, size);
  else if (mode == 1 && hasGgmlPlanarForm(type))
    fuzzPlanar(type, data, size);
  else if (mode == 2)
    fuzzRepack(data, size);
  else if (mode == 3)
    fuzzQuantize(data, size);
  else
    fuzzDecode(type, data, size);
  return 0;
}
