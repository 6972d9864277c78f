//===- GgmlConvert.cpp - ggml block tensors to planar sets and other types ===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every transform here works on runs of whole blocks, so that a writer's
// chunk of bytes is computed from the blocks that hold it and nothing
// larger than a batch is ever in memory. docs/quant.md, section 9.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/GgmlConvert.h"

#include "vmpack/Formats/HfQuant.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlQuantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

/// Blocks a batch holds at most.
constexpr uint64_t kBatchBlocks = 1024;
/// Elements a conversion decodes at once: a multiple of every block size
/// (32, 64, 256).
constexpr uint64_t kChunkElements = 64 * 1024;

void readBytes(const TensorSource &s, uint64_t first, uint64_t n,
               uint8_t *out) {
  if (s.produce)
    s.produce(first, n, out);
  else
    std::memcpy(out, s.data + first, n);
}

std::string typeName(uint32_t type) {
  const quant::GgmlTypeTraits *t = quant::ggmlTypeTraits(type);
  return t ? t->name : "type " + std::to_string(type);
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::string floatText(float f) {
  std::ostringstream os;
  os.precision(9);
  os << f << " (0x" << std::hex << bitsOf(f) << ")";
  return os.str();
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool isLegacy(uint32_t t) {
  return t == quant::kGgmlQ4_0 || t == quant::kGgmlQ4_1 ||
         t == quant::kGgmlQ5_0 || t == quant::kGgmlQ5_1 ||
         t == quant::kGgmlQ8_0;
}

} // namespace

std::optional<QuantTarget>
vmpack::formats::parseQuantTarget(std::string_view name) {
  QuantTarget t;
  if (name == "gptq" || name == "gptq_v2" || name == "awq" ||
      name == "compressed-tensors" || name == "mlx" || name == "bnb-nf4") {
    t.kind = QuantTarget::HfScheme;
    return t;
  }
  if (name == "planar") {
    t.kind = QuantTarget::Planar;
    return t;
  }
  if (name == "ggml") {
    t.kind = QuantTarget::Recorded;
    return t;
  }
  const quant::GgmlTypeTraits *g = quant::ggmlTypeByName(name);
  if (!g || !quant::hasGgmlPlanarForm(g->type))
    return std::nullopt;
  t.kind = QuantTarget::Ggml;
  t.ggmlType = g->type;
  return t;
}

std::string vmpack::formats::planarRecordKey(const std::string &name) {
  return "vmpack.planar." + name;
}

std::optional<uint32_t>
vmpack::formats::parsePlanarRecord(std::string_view value) {
  const quant::GgmlTypeTraits *g = quant::ggmlTypeByName(value);
  if (!g || !quant::hasGgmlPlanarForm(g->type))
    return std::nullopt;
  return g->type;
}

std::string vmpack::formats::elementIndexText(const std::vector<int64_t> &shape,
                                              uint64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t n = shape[d] > 0 ? uint64_t(shape[d]) : 1;
    idx[d] = int64_t(flat % n);
    flat /= n;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

Status vmpack::formats::checkGgmlBlockTensor(const TensorInfo &in) {
  assert(in.isOpaque());
  const uint32_t type = *in.ggmlBlockType;
  const quant::GgmlTypeTraits *t = quant::ggmlTypeTraits(type);
  std::optional<uint64_t> n = numElements(in.shape);
  if (!t || !n || in.shape.empty() || in.shape.back() <= 0 ||
      in.shape.back() % int64_t(t->blockSize) != 0 ||
      in.length != *n / t->blockSize * t->typeSize)
    return Status::formatError(
        "tensor " + quoteName(in.name) + ": ggml " + typeName(type) +
        " of shape " + shapeText(in.shape) + " is not a whole number of " +
        std::to_string(t ? t->blockSize : 0) + "-element blocks in its " +
        std::to_string(in.length) + " bytes");
  return Status::ok();
}

std::vector<TensorSource>
vmpack::formats::planarSplit(const TensorSource &blocks, bool signlessCodes) {
  const uint32_t type = *blocks.info.ggmlBlockType;
  const std::vector<quant::PlanarPart> &parts = quant::ggmlPlanarParts(type);
  assert(!parts.empty());
  const uint32_t blockBytes = quant::ggmlBlockBytes(type);
  auto src = std::make_shared<TensorSource>(blocks);
  std::vector<TensorSource> out;
  for (size_t p = 0; p < parts.size(); ++p) {
    const quant::PlanarPart &part = parts[p];
    TensorSource t;
    t.info.name = blocks.info.name + "." + part.suffix;
    std::string spelled = part.type;
    if (signlessCodes && part.role == quant::PlanarRole::Codes &&
        (type == quant::kGgmlQ4_0 || type == quant::kGgmlQ8_0))
      spelled = spelled.substr(1); // si4 -> i4, si8 -> i8
    t.info.elementType = *parseElementType(spelled);
    t.info.shape = quant::planarPartShape(type, part, blocks.info.shape);
    t.info.encoding = Encoding::Packed;
    const uint32_t perBlock = part.bytesPerBlock();
    t.info.length = blocks.info.length / blockBytes * perBlock;
    t.produce = [src, type, blockBytes, perBlock, p,
                 &parts](uint64_t first, uint64_t n, uint8_t *dst) {
      uint64_t b = first / perBlock,
               end = (first + n + perBlock - 1) / perBlock;
      std::vector<uint8_t> in;
      std::vector<std::vector<uint8_t>> scratch(parts.size());
      std::vector<uint8_t *> ptrs(parts.size());
      while (b < end) {
        uint64_t count = std::min(kBatchBlocks, end - b);
        in.resize(count * blockBytes);
        readBytes(*src, b * blockBytes, in.size(), in.data());
        for (size_t k = 0; k < parts.size(); ++k) {
          scratch[k].resize(count * parts[k].bytesPerBlock());
          ptrs[k] = scratch[k].data();
        }
        Status s = quant::ggmlToPlanar(type, in.data(), count, ptrs.data());
        assert(s.isOk());
        (void)s;
        // The asked bytes inside this batch.
        uint64_t lo = std::max(first, b * perBlock);
        uint64_t hi = std::min(first + n, (b + count) * perBlock);
        std::memcpy(dst + (lo - first), scratch[p].data() + (lo - b * perBlock),
                    hi - lo);
        b += count;
      }
    };
    out.push_back(std::move(t));
  }
  return out;
}

TensorSource vmpack::formats::joinPlanar(uint32_t type, const std::string &name,
                                         std::vector<TensorSource> parts) {
  const std::vector<quant::PlanarPart> &layout = quant::ggmlPlanarParts(type);
  assert(parts.size() == layout.size());
  const uint32_t blockBytes = quant::ggmlBlockBytes(type);
  const uint32_t blockSize = quant::ggmlBlockElements(type);
  TensorSource out;
  out.info.name = name;
  out.info.shape = parts[0].info.shape;
  out.info.ggmlBlockType = type;
  out.info.elementType = *parseElementType("ui8");
  out.info.encoding = Encoding::Byte;
  out.info.length = *numElements(out.info.shape) / blockSize * blockBytes;
  auto shared = std::make_shared<std::vector<TensorSource>>(std::move(parts));
  out.produce = [shared, type, blockBytes, &layout](uint64_t first, uint64_t n,
                                                    uint8_t *dst) {
    const std::vector<TensorSource> &ps = *shared;
    uint64_t b = first / blockBytes,
             end = (first + n + blockBytes - 1) / blockBytes;
    std::vector<std::vector<uint8_t>> scratch(ps.size());
    std::vector<const uint8_t *> ptrs(ps.size());
    std::vector<uint8_t> blocks;
    while (b < end) {
      uint64_t count = std::min(kBatchBlocks, end - b);
      for (size_t k = 0; k < ps.size(); ++k) {
        uint64_t pb = layout[k].bytesPerBlock();
        scratch[k].resize(count * pb);
        readBytes(ps[k], b * pb, scratch[k].size(), scratch[k].data());
        ptrs[k] = scratch[k].data();
      }
      blocks.resize(count * blockBytes);
      Status s = quant::planarToGgml(type, ptrs.data(), count, blocks.data());
      assert(s.isOk());
      (void)s;
      uint64_t lo = std::max(first, b * blockBytes);
      uint64_t hi = std::min(first + n, (b + count) * blockBytes);
      std::memcpy(dst + (lo - first), blocks.data() + (lo - b * blockBytes),
                  hi - lo);
      b += count;
    }
  };
  return out;
}

namespace {

/// The block of Q4_0, Q5_0 or Q8_0 (value = f(q) * d) that holds the 32
/// values `w` exactly, if there is one, into `blk`. A complete search: if
/// some d and codes hold them, the element of largest magnitude is q * d
/// for a code q, a product that is exact in float32 (8-bit q, 11-bit d),
/// so d = w[max] / q exactly, for one of the at most 255 codes tried; each
/// other code is then w[i] / d. The block is built and checked by
/// repackToGgml (its decode compared bit for bit).
bool exactSymmetric(uint32_t to, const std::string &name, const float *w,
                    uint8_t *blk) {
  int lo, hi;
  if (to == quant::kGgmlQ4_0)
    lo = -8, hi = 7;
  else if (to == quant::kGgmlQ5_0)
    lo = -16, hi = 15;
  else if (to == quant::kGgmlQ8_0)
    lo = -128, hi = 127;
  else
    return false;
  uint32_t imax = 0;
  for (uint32_t i = 0; i < 32; ++i) {
    if (!std::isfinite(w[i]))
      return false;
    if (std::fabs(w[i]) > std::fabs(w[imax]))
      imax = i;
  }
  int8_t codes[32];
  uint8_t scale[2];
  quant::GroupQuantSource src;
  src.name = name;
  src.shape = {32};
  src.codeType = "si8";
  src.codes = reinterpret_cast<const uint8_t *>(codes);
  src.groupSize = 32;
  src.scaleType = "f16";
  src.scales = scale;
  auto attempt = [&](float d) {
    uint16_t h = quant::ggmlFloatToHalf(d);
    if (bitsOf(quant::ggmlHalfToFloat(h)) != bitsOf(d))
      return false; // d is not a float16
    for (uint32_t i = 0; i < 32; ++i) {
      float q = w[i] == 0.0f ? 0.0f : std::nearbyint(w[i] / d);
      if (d == 0.0f) // every value is a zero: -0 is (-1) * +0
        q = std::signbit(w[i]) ? -1.0f : 0.0f;
      if (!(q >= float(lo) && q <= float(hi)) || bitsOf(q * d) != bitsOf(w[i]))
        return false;
      codes[i] = int8_t(q);
    }
    scale[0] = uint8_t(h), scale[1] = uint8_t(h >> 8);
    uint8_t built[34];
    if (!quant::repackToGgml(to, src, built).isOk())
      return false;
    std::memcpy(blk, built, quant::ggmlBlockBytes(to));
    return true;
  };
  if (w[imax] == 0.0f)
    return attempt(0.0f);
  // w[max] = k * d: the odd part of its significand is the odd part of k
  // times that of d's (at most 11 bits), which rules out most k at once.
  auto oddPart = [](uint32_t v) {
    while (v && !(v & 1))
      v >>= 1;
    return v;
  };
  uint32_t bits = bitsOf(w[imax]);
  uint32_t sig = (bits & 0x7FFFFF) | ((bits & 0x7F800000) ? 0x800000 : 0);
  const uint32_t odd = oddPart(sig);
  for (int k = hi; k >= lo; --k) {
    if (k == 0)
      continue;
    uint32_t ko = oddPart(uint32_t(k < 0 ? -k : k));
    if (odd % ko != 0 || odd / ko > 2047)
      continue;
    if (attempt(w[imax] / float(k)))
      return true;
  }
  return false;
}

/// One conversion's fixed facts, shared by the check and the writer.
struct Conversion {
  TensorSource source;
  uint32_t from = 0; ///< ggml type of the source; kGgmlF32 for floats
  uint32_t to = 0;
  bool allowRounding = false;
  uint64_t elements = 0;

  /// Decodes elements [e0, e0 + n) (whole source blocks) to float32.
  void decode(uint64_t e0, uint64_t n, float *out) const {
    if (from == quant::kGgmlF32) {
      readBytes(source, e0 * 4, n * 4, reinterpret_cast<uint8_t *>(out));
      return;
    }
    uint32_t sb = quant::ggmlBlockElements(from),
             bytes = quant::ggmlBlockBytes(from);
    std::vector<uint8_t> in(n / sb * bytes);
    readBytes(source, e0 / sb * bytes, in.size(), in.data());
    Status s = quant::decodeGgmlBlocks(from, in.data(), n / sb, out);
    assert(s.isOk());
    (void)s;
  }

  /// The source's blocks for elements [e0, e0 + n), as the group-quantized
  /// weight of their planar form (from is one of the legacy types).
  struct Group {
    std::vector<std::vector<uint8_t>> parts;
    quant::GroupQuantSource src;
  };
  void group(uint64_t e0, uint64_t n, Group &g) const {
    const std::vector<quant::PlanarPart> &layout = quant::ggmlPlanarParts(from);
    uint32_t bytes = quant::ggmlBlockBytes(from);
    std::vector<uint8_t> in(n / 32 * bytes);
    readBytes(source, e0 / 32 * bytes, in.size(), in.data());
    g.parts.assign(layout.size(), {});
    std::vector<uint8_t *> ptrs;
    for (size_t k = 0; k < layout.size(); ++k) {
      g.parts[k].resize(n / 32 * layout[k].bytesPerBlock());
      ptrs.push_back(g.parts[k].data());
    }
    (void)quant::ggmlToPlanar(from, in.data(), n / 32, ptrs.data());
    g.src.name = source.info.name;
    g.src.shape = {int64_t(n)};
    g.src.codeType = layout[0].type;
    g.src.codes = g.parts[0].data();
    g.src.groupSize = 32;
    g.src.scaleType = "f16";
    g.src.scales = g.parts[1].data();
    g.src.offsetKind = layout.size() > 2 ? quant::OffsetKind::AddMinimum
                                         : quant::OffsetKind::None;
    g.src.offsets = layout.size() > 2 ? g.parts[2].data() : nullptr;
  }

  /// Builds the target blocks of elements [e0, e0 + n) into `out`; with
  /// `report`, checks and measures them (else they were checked before).
  Status build(uint64_t e0, uint64_t n, uint8_t *out,
               RoundingReport *report) const {
    const uint32_t tb = quant::ggmlBlockElements(to),
                   tbytes = quant::ggmlBlockBytes(to);
    const bool structural = isLegacy(from) && isLegacy(to);
    Group g;
    if (structural) {
      group(e0, n, g);
      if (quant::repackToGgml(to, g.src, out).isOk()) {
        if (report)
          report->blocks += n / tb;
        return Status::ok();
      }
    }
    std::vector<float> want(n), got(tb);
    decode(e0, n, want.data());
    const std::vector<quant::PlanarPart> *layout =
        structural ? &quant::ggmlPlanarParts(from) : nullptr;
    for (uint64_t j = 0; j < n / tb; ++j) {
      uint8_t *blk = out + j * tbytes;
      const float *w = want.data() + j * tb;
      if (report)
        ++report->blocks;
      if (structural) {
        // The one block moved exactly (tb = 32 here).
        quant::GroupQuantSource one = g.src;
        one.shape = {32};
        one.codes = g.src.codes + j * (*layout)[0].bytesPerBlock();
        one.scales = g.src.scales + j * 2;
        if (one.offsets)
          one.offsets = g.src.offsets + j * 2;
        if (quant::repackToGgml(to, one, blk).isOk())
          continue;
      }
      if (!quant::hasGgmlQuantizer(to))
        return Status::unsupported(
            "tensor " + quoteName(source.info.name) + " (" +
            (from == quant::kGgmlF32 ? std::string("f32")
                                     : "ggml " + typeName(from)) +
            ") cannot become ggml " + typeName(to) +
            " exactly, and vmpack has no " + typeName(to) +
            " quantizer (it rounds into Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0): "
            "only " +
            typeName(to) + " blocks and planar " + typeName(to) +
            " sets become " + typeName(to));
      (void)quant::quantizeGgmlBlocks(to, w, 1, blk);
      (void)quant::decodeGgmlBlocks(to, blk, 1, got.data());
      bool same = true;
      for (uint32_t i = 0; i < tb && same; ++i)
        same = bitsOf(w[i]) == bitsOf(got[i]);
      if (same || exactSymmetric(to, source.info.name, w, blk))
        continue;
      bool changed = false;
      for (uint32_t i = 0; i < tb; ++i) {
        if (bitsOf(w[i]) == bitsOf(got[i]))
          continue;
        uint64_t at = e0 + j * tb + i;
        if (!report)
          break; // checked before
        if (!allowRounding)
          return Status::formatError(
              "tensor " + quoteName(source.info.name) + ": element " +
              elementIndexText(source.info.shape, at) + " would change from " +
              floatText(w[i]) + " to " + floatText(got[i]) + " in ggml " +
              typeName(to) +
              " (not exactly representable; --allow-rounding "
              "permits the change)");
        changed = true;
        if (!std::isfinite(w[i]) || !std::isfinite(got[i])) {
          ++report->nonFinite;
          continue;
        }
        double abs = std::fabs(double(got[i]) - double(w[i]));
        if (abs > report->maxAbsError) {
          report->maxAbsError = abs;
          report->maxAbsAt = at;
        }
        if (w[i] != 0.0f &&
            abs / std::fabs(double(w[i])) > report->maxRelError) {
          report->maxRelError = abs / std::fabs(double(w[i]));
          report->maxRelAt = at;
        }
      }
      if (changed)
        ++report->roundedBlocks;
    }
    return Status::ok();
  }
};

} // namespace

StatusOr<TensorSource>
vmpack::formats::convertGgmlTensor(const TensorSource &source, uint32_t to,
                                   bool allowRounding, RoundingReport *report) {
  auto c = std::make_shared<Conversion>();
  c->source = source;
  c->to = to;
  c->allowRounding = allowRounding;
  const TensorInfo &in = source.info;
  if (in.isOpaque()) {
    if (Status s = checkGgmlBlockTensor(in); !s)
      return s;
    c->from = *in.ggmlBlockType;
    if (!quant::canDecodeGgml(c->from))
      return Status::unsupported("tensor " + quoteName(in.name) + " is ggml " +
                                 typeName(c->from) +
                                 ", which vmpack cannot decode");
  } else if (toString(in.elementType) == "f32" &&
             in.encoding == Encoding::Byte) {
    c->from = quant::kGgmlF32;
  } else {
    return Status::unsupported("tensor " + quoteName(in.name) + " is " +
                               toString(in.elementType) +
                               ", not ggml blocks or f32 values");
  }
  const uint32_t tb = quant::ggmlBlockElements(to),
                 tbytes = quant::ggmlBlockBytes(to);
  std::optional<uint64_t> n = numElements(in.shape);
  if (!quant::isGgmlBlockType(to) || !n || in.shape.empty() ||
      in.shape.back() % int64_t(tb) != 0)
    return Status::formatError(
        "tensor " + quoteName(in.name) + ": its last dimension " +
        (in.shape.empty() ? std::string("(none)")
                          : std::to_string(in.shape.back())) +
        " is not a whole number of ggml " + typeName(to) + "'s " +
        std::to_string(tb) + "-element blocks");
  c->elements = *n;
  if (c->from == to)
    return source;
  // Every block, checked (and measured) before a byte is written.
  RoundingReport local;
  RoundingReport &r = report ? *report : local;
  r = RoundingReport();
  std::vector<uint8_t> scratch(kChunkElements / tb * tbytes);
  for (uint64_t e = 0; e < c->elements; e += kChunkElements) {
    uint64_t len = std::min(kChunkElements, c->elements - e);
    if (Status s = c->build(e, len, scratch.data(), &r); !s)
      return s;
  }
  TensorSource out;
  out.info.name = in.name;
  out.info.shape = in.shape;
  out.info.ggmlBlockType = to;
  out.info.elementType = *parseElementType("ui8");
  out.info.encoding = Encoding::Byte;
  out.info.length = c->elements / tb * tbytes;
  out.produce = [c, tb, tbytes](uint64_t first, uint64_t count, uint8_t *dst) {
    const uint64_t chunkBlocks = kChunkElements / tb;
    uint64_t b = first / tbytes / chunkBlocks * chunkBlocks;
    std::vector<uint8_t> blocks(chunkBlocks * tbytes);
    while (b * tbytes < first + count) {
      uint64_t e = b * tb;
      uint64_t len = std::min(kChunkElements, c->elements - e);
      (void)c->build(e, len, blocks.data(), nullptr);
      uint64_t lo = std::max(first, b * tbytes);
      uint64_t hi = std::min(first + count, b * tbytes + len / tb * tbytes);
      std::memcpy(dst + (lo - first), blocks.data() + (lo - b * tbytes),
                  hi - lo);
      b += chunkBlocks;
    }
  };
  return out;
}

std::string vmpack::formats::roundingReportText(
    const std::string &name, const std::string &from, uint32_t to,
    const std::vector<int64_t> &shape, const RoundingReport &r) {
  auto num = [](double v) {
    std::ostringstream os;
    os.precision(6);
    os << v;
    return os.str();
  };
  std::string text = "tensor " + quoteName(name) + ": " + from + " -> " +
                     typeName(to) + " rounded " +
                     std::to_string(r.roundedBlocks) + " of " +
                     std::to_string(r.blocks) + " blocks";
  if (!r.roundedBlocks)
    return text + " (every value exact)";
  text += ": largest absolute error " + num(r.maxAbsError) + " at " +
          elementIndexText(shape, r.maxAbsAt) + ", largest relative error " +
          num(r.maxRelError) + " at " + elementIndexText(shape, r.maxRelAt);
  if (r.nonFinite)
    text +=
        "; " + std::to_string(r.nonFinite) + " changed values are not finite";
  return text;
}

StatusOr<HfGgmlBlocks>
vmpack::formats::hfLinearToGgml(const HfQuantLinear &l,
                                std::optional<uint32_t> requested,
                                bool allowRounding, const std::string &where) {
  StatusOr<uint32_t> type = hfGgmlTarget(l, requested);
  const bool inexact =
      !type && type.status().code() == archive::StatusCode::Format;
  if (inexact && allowRounding && requested) {
    // Not exact: the values requantized by ggml's reference quantizer, the
    // errors reported.
    StatusOr<TensorSource> floats = hfLinearAsFloats(l, quant::FloatType::F32);
    if (!floats)
      return floats.status();
    RoundingReport report;
    StatusOr<TensorSource> blocks =
        convertGgmlTensor(*floats, *requested, true, &report);
    if (!blocks)
      return blocks.status();
    HfGgmlBlocks out;
    out.blocks = std::move(*blocks);
    out.ggmlType = *requested;
    out.rounding = roundingReportText(l.weight.name,
                                      std::string(hfQuantMethodName(l.method)) +
                                          " " + std::to_string(l.bits) + "-bit",
                                      *requested, l.weight.shape, report);
    return out;
  }
  if (!type)
    return Status::error(
        type.status().code(),
        "'" + where + "': " + type.status().message() +
            (inexact ? " (--quant=TYPE --allow-rounding requantizes it)" : ""));
  StatusOr<TensorSource> blocks = hfLinearAsGgml(l, *type);
  if (!blocks)
    return blocks.status();
  HfGgmlBlocks out;
  out.blocks = std::move(*blocks);
  out.ggmlType = *type;
  return out;
}
