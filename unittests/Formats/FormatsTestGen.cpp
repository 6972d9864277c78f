//===- FormatsTestGen.cpp - Sample files for the interop tests ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Usage: vmpack-formats-testgen KIND OUT
//   safetensors  one tensor of every sample type (SampleTensors.h)
//   gguf         the same, plus one tensor of every ggml block type
//   gguf-q       Q4_0, Q4_1 and Q8_0 tensors only (for --dequant-split),
//                with finite f16 scales
//   gguf-planar  one tensor of every ggml block type with a planar form
//                (for --quant=planar), the pattern bytes as they are
//   gguf-only-T  the one block tensor of ggml type T (Q4_0, Q4_K, ...);
//                Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 with finite f16 scales
//   extra        a small safetensors file: "e0.i4" and "e1.bf16", names no
//                other kind uses (to test several inputs at once)
//   gguf-kv      a few plain tensors and metadata of every GGUF value type
//                (every scalar type, arrays of each, an empty array, NaN,
//                infinity and -0.0 floats, extreme integers)
//   gguf-iree    only the types IREE's GGUF parser sizes correctly: ggml
//                types below 16 (F32, F16, Q4_0 ... Q8_K). It rejects types
//                of 19 and above, and gives 16-18 (IQ2_XXS, IQ2_XS,
//                IQ3_XXS) sizes other than ggml's.
//
// Readers outside vmpack check every byte against the pattern formula:
// block tensors "qN.TYPE" hold byte j = (j * 37 + N * 11) mod 256.
//
//===----------------------------------------------------------------------===//

#include "SampleTensors.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlPlanar.h"

#include <cstdio>
#include <string>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;

static std::vector<OwnedTensor> blockTensors(bool forIree) {
  std::vector<OwnedTensor> out;
  uint64_t t = 100;
  for (const GgmlTypeTraits &traits : ggmlTypes()) {
    ++t;
    if (traits.blockSize == 1 || (forIree && traits.type >= 16))
      continue;
    // IREE (like @huggingface/gguf) sizes Q8_1 blocks at 40 bytes, the
    // layout ggml had before its scales became halves; ggml's is 36.
    if (forIree && traits.type == 9)
      continue;
    // Shape [3, 2 blocks]: rows of 2 * blockSize elements.
    std::vector<int64_t> shape = {3, int64_t(2 * traits.blockSize)};
    uint64_t bytes = 3 * 2 * uint64_t(traits.typeSize);
    OwnedTensor o =
        patternTensor("q" + std::to_string(t) + "." + traits.name,
                      *parseElementType("ui8"), {int64_t(bytes)}, t);
    o.source.info.shape = shape;
    o.source.info.ggmlBlockType = traits.type;
    out.push_back(o);
  }
  return out;
}

/// Metadata of every GGUF value type, interleaved with strings.
static GgufMetadata everyValueType() {
  auto scalar = [](GgufType type, uint64_t bits) {
    GgufValue v;
    v.type = type;
    v.scalars = {bits};
    return v;
  };
  auto array = [](GgufType type, std::vector<uint64_t> bits) {
    GgufValue v;
    v.type = GgufType::Array;
    v.elementType = type;
    v.scalars = std::move(bits);
    return v;
  };
  GgufValue names;
  names.type = GgufType::Array;
  names.elementType = GgufType::String;
  names.strings = {"<s>", "", "quote \" and \\ and \n", "\xc3\xa9t\xc3\xa9"};
  GgufValue emptyStrings = names;
  emptyStrings.strings.clear();
  return {
      {"general.architecture", GgufValue::string("llama")},
      {"test.uint8", scalar(GgufType::UInt8, 255)},
      {"test.int8", scalar(GgufType::Int8, 0x80)},
      {"test.uint16", scalar(GgufType::UInt16, 65535)},
      {"test.int16", scalar(GgufType::Int16, 0xfffe)},
      {"test.uint32", scalar(GgufType::UInt32, 4000000000u)},
      {"test.int32", scalar(GgufType::Int32, 0x80000000u)},
      {"test.float32", scalar(GgufType::Float32, 0x3dcccccd)}, // 0.1f
      {"general.name", GgufValue::string("every value type")},
      {"test.float32.nan", scalar(GgufType::Float32, 0x7fc00001)},
      {"test.float32.negzero", scalar(GgufType::Float32, 0x80000000u)},
      {"test.float32.inf", scalar(GgufType::Float32, 0xff800000u)},
      {"test.float32.tiny", scalar(GgufType::Float32, 1)}, // denormal
      {"test.bool", scalar(GgufType::Bool, 1)},
      {"test.uint64", scalar(GgufType::UInt64, ~uint64_t(0))},
      {"test.int64", scalar(GgufType::Int64, uint64_t(1) << 63)},
      {"test.float64", scalar(GgufType::Float64, 0x3fb999999999999aull)},
      {"test.float64.nan", scalar(GgufType::Float64, 0xfff8000000000123ull)},
      {"test.array.uint8", array(GgufType::UInt8, {0, 1, 255})},
      {"test.array.int8", array(GgufType::Int8, {0x80, 0x7f, 0xff})},
      {"test.array.uint16", array(GgufType::UInt16, {1, 65535})},
      {"test.array.int16", array(GgufType::Int16, {0x8000})},
      {"test.array.uint32", array(GgufType::UInt32, {})},
      {"test.array.int32", array(GgufType::Int32, {0xffffffffu, 7})},
      {"test.array.float32",
       array(GgufType::Float32, {0x3f800000, 0x7f800000, 0x00800000})},
      {"test.array.bool", array(GgufType::Bool, {0, 1, 1})},
      {"tokenizer.ggml.tokens", names},
      {"test.array.string.empty", emptyStrings},
      {"test.array.uint64", array(GgufType::UInt64, {uint64_t(1) << 53})},
      {"test.array.int64", array(GgufType::Int64, {~uint64_t(0)})},
      {"test.array.float64", array(GgufType::Float64, {0x8000000000000000ull,
                                                       0x7fefffffffffffffull})},
      {"general.alignment", scalar(GgufType::UInt32, 64)},
  };
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: %s "
                 "safetensors|gguf|gguf-iree|gguf-kv|gguf-q|gguf-planar|gguf-"
                 "only-TYPE|extra OUT\n",
                 argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  std::vector<OwnedTensor> tensors = sampleTensors();
  Status s = Status::invalidArgument("unknown kind '" + kind + "'");
  // general.quantization_version as quantizing tools (llama-quantize,
  // gguf-py) write it beside block tensors; vmpack's writer adds no key.
  GgufMetadata meta = {{"general.name", GgufValue::string("vmpack sample")},
                       {"general.quantization_version", GgufValue::uint32(2)}};
  if (kind == "extra") {
    std::vector<OwnedTensor> extra = {
        patternTensor("e0.i4", *parseElementType("i4"), {3, 5}, 0),
        patternTensor("e1.bf16", *parseElementType("bf16"), {7}, 1)};
    s = writeSafetensors(argv[2], sources(extra), {{"format", "pt"}});
  } else if (kind == "safetensors") {
    s = writeSafetensors(argv[2], sources(tensors), {{"format", "pt"}});
  } else if (kind == "gguf") {
    for (OwnedTensor &b : blockTensors(false))
      tensors.push_back(b);
    s = writeGguf(argv[2], sources(tensors), meta);
  } else if (kind == "gguf-kv") {
    std::vector<OwnedTensor> plain = {
        patternTensor("w.f16", *parseElementType("f16"), {4, 3}, 0),
        patternTensor("w.i8", *parseElementType("i8"), {5}, 1),
        patternTensor("w.i4", *parseElementType("i4"), {3, 3}, 2)};
    s = writeGguf(argv[2], sources(plain), everyValueType());
  } else if (kind == "gguf-q") {
    std::vector<OwnedTensor> q;
    for (OwnedTensor &b : blockTensors(false)) {
      uint32_t type = *b.source.info.ggmlBlockType;
      if (type != 2 && type != 3 && type != 8)
        continue;
      // Keep every f16 scale finite: clear exponent bit 14 of each half.
      uint32_t size = ggmlTypeTraits(type)->typeSize;
      for (size_t at = 0; at < b.bytes->size(); at += size)
        for (size_t h = 0; h < (type == 3 ? 2u : 1u); ++h)
          (*b.bytes)[at + 2 * h + 1] &= 0xbf;
      q.push_back(b);
    }
    s = writeGguf(argv[2], sources(q), meta);
  } else if (kind == "gguf-planar") {
    std::vector<OwnedTensor> q;
    for (OwnedTensor &b : blockTensors(false))
      if (quant::hasGgmlPlanarForm(*b.source.info.ggmlBlockType))
        q.push_back(b);
    s = writeGguf(argv[2], sources(q), meta);
  } else if (kind.rfind("gguf-only-", 0) == 0) {
    std::vector<OwnedTensor> q;
    for (OwnedTensor &b : blockTensors(false)) {
      uint32_t type = *b.source.info.ggmlBlockType;
      if (ggmlTypeTraits(type)->name != kind.substr(10))
        continue;
      uint32_t size = ggmlTypeTraits(type)->typeSize;
      uint32_t halves = type == 3 || type == 7                ? 2
                        : type == 2 || type == 6 || type == 8 ? 1
                                                              : 0;
      for (size_t at = 0; at < b.bytes->size(); at += size)
        for (size_t h = 0; h < halves; ++h)
          (*b.bytes)[at + 2 * h + 1] &= 0xbf;
      q.push_back(b);
    }
    s = q.empty() ? Status::invalidArgument("no block tensor of type '" +
                                            kind.substr(10) + "'")
                  : writeGguf(argv[2], sources(q), meta);
  } else if (kind == "gguf-iree") {
    std::vector<OwnedTensor> iree;
    for (OwnedTensor &t : tensors) {
      std::optional<uint32_t> g = toGgmlType(t.source.info.elementType);
      if (g && *g < 16 && fromGgmlType(*g) == t.source.info.elementType)
        iree.push_back(t);
    }
    for (OwnedTensor &b : blockTensors(true))
      iree.push_back(b);
    s = writeGguf(argv[2], sources(iree), meta);
  }
  if (!s) {
    std::fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
