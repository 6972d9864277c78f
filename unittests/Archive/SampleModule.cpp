//===- SampleModule.cpp - Test modules with known contents
//-----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "SampleModule.h"

#include "vmpack/Pack/Convert.h"

#include <algorithm>
#include <random>
#include <thread>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::testing;

SampleSegment vmpack::archive::testing::makeSegment(const std::string &name,
                                                    const std::string &type,
                                                    std::vector<int64_t> shape,
                                                    Encoding encoding,
                                                    uint32_t alignment,
                                                    uint64_t seed) {
  SampleSegment s;
  std::optional<ElementType> elementType = parseElementType(type);
  if (!elementType)
    std::abort();
  uint64_t elements = 1;
  std::string mlirType = "tensor<";
  for (int64_t d : shape) {
    elements *= uint64_t(d);
    mlirType += std::to_string(d) + "x";
  }
  mlirType += type + ">";
  uint32_t w = elementType->scalarBits();
  uint64_t scalars = elements * elementType->scalarsPerElement();
  std::mt19937_64 rng(seed);
  uint64_t mask = w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  // Byte encoding first (easy to fill), then convert to the target.
  uint64_t bytesPer = (w + 7) / 8;
  std::vector<uint8_t> byteForm(scalars * bytesPer);
  for (uint64_t i = 0; i < scalars; ++i) {
    uint64_t v = rng() & mask;
    s.values.push_back(v);
    for (uint64_t b = 0; b < bytesPer; ++b)
      byteForm[i * bytesPer + b] = b < 8 ? uint8_t(v >> (8 * b)) : 0;
  }
  s.bytes.resize(*encodedSize(encoding, w, scalars));
  convert(Encoding::Byte, encoding, w, byteForm.data(), s.bytes.data(),
          scalars);
  s.desc.name = name;
  s.desc.mlirType = mlirType;
  s.desc.elementType = *elementType;
  s.desc.shape = std::move(shape);
  s.desc.encoding = encoding;
  s.desc.length = s.bytes.size();
  s.desc.alignment = alignment;
  return s;
}

std::vector<SampleSegment> vmpack::archive::testing::sampleSegments() {
  std::vector<SampleSegment> segments;
  segments.push_back(
      makeSegment("layer0.weight", "i4", {16, 32}, Encoding::Packed, 64, 1));
  segments.push_back(
      makeSegment("layer0.bias", "f16", {32}, Encoding::Word, 64, 2));
  SampleSegment escaped =
      makeSegment("embed/table 0", "i3", {3, 5}, Encoding::Word, 16, 3);
  escaped.desc.sourceKind = SourceKind::DenseResource;
  escaped.desc.sourceKey = "embed_table_0";
  escaped.desc.sourceAlignment = 16;
  segments.push_back(std::move(escaped));
  segments.push_back(makeSegment("mask", "i1", {10}, Encoding::Packed, 64, 4));
  segments.push_back(
      makeSegment("scales", "f8E4M3FN", {4, 2}, Encoding::Byte, 4096, 5));
  SampleSegment packed =
      makeSegment("layer1.weight", "ui4", {8, 8}, Encoding::Packed, 64, 6);
  packed.desc.sourceKind = SourceKind::PackedResource;
  packed.desc.sourceKey = "layer1_weight_packed";
  packed.desc.sourceAlignment = 64;
  segments.push_back(std::move(packed));
  segments.push_back(makeSegment("empty", "i8", {0}, Encoding::Byte, 64, 7));
  return segments;
}

std::vector<SampleSegment> vmpack::archive::testing::smallSampleSegments() {
  std::vector<SampleSegment> segments;
  segments.push_back(makeSegment("w", "i4", {5, 3}, Encoding::Packed, 64, 1));
  segments.push_back(makeSegment("b/x", "f16", {3}, Encoding::Word, 16, 2));
  segments.push_back(makeSegment("m", "i3", {7}, Encoding::Word, 4, 3));
  segments.push_back(makeSegment("s", "f8E4M3FN", {2}, Encoding::Byte, 1, 4));
  segments.push_back(makeSegment("z", "i8", {0}, Encoding::Byte, 8, 5));
  return segments;
}

AliasDesc vmpack::archive::testing::makeAlias(const std::string &name,
                                              const std::string &type,
                                              std::vector<int64_t> shape,
                                              uint32_t segment,
                                              const std::string &sourceKey) {
  AliasDesc a;
  a.name = name;
  a.elementType = *parseElementType(type);
  a.mlirType = "tensor<";
  for (int64_t d : shape)
    a.mlirType += std::to_string(d) + "x";
  a.mlirType += type + ">";
  a.shape = std::move(shape);
  a.segment = segment;
  a.sourceKind = SourceKind::DenseResource;
  a.sourceKey = sourceKey;
  a.sourceAlignment = 16;
  return a;
}

std::vector<AliasDesc> vmpack::archive::testing::smallSampleAliases() {
  return {makeAlias("w_u", "ui4", {15}, 0, "w_blob"),
          makeAlias("w_t", "si4", {3, 5}, 0, "w_blob")};
}

Status vmpack::archive::testing::writeModule(
    const std::string &path, const std::string &moduleName,
    const std::vector<SampleSegment> &segments, const std::string &program,
    unsigned threads, uint64_t shuffleSeed,
    const std::vector<AliasDesc> &aliases) {
  WriterOptions options;
  options.moduleName = moduleName;
  options.producer = "vmpack-tests";
  auto writer = ArchiveWriter::create(path, options);
  if (!writer)
    return writer.status();
  for (const SampleSegment &s : segments) {
    auto id = (*writer)->addSegment(s.desc);
    if (!id)
      return id.status();
  }
  for (const AliasDesc &a : aliases)
    if (Status st = (*writer)->addAlias(a); !st)
      return st;
  (*writer)->setProgram(program);
  if (Status st = (*writer)->beginData(); !st)
    return st;

  struct Chunk {
    uint32_t segment;
    uint64_t offset, size;
  };
  std::vector<Chunk> chunks;
  std::mt19937_64 rng(shuffleSeed);
  for (uint32_t i = 0; i < segments.size(); ++i) {
    uint64_t length = segments[i].bytes.size();
    for (uint64_t done = 0; done < length;) {
      uint64_t size = std::min<uint64_t>(length - done, 1 + rng() % 97);
      chunks.push_back({i, done, size});
      done += size;
    }
  }
  std::shuffle(chunks.begin(), chunks.end(), rng);

  std::vector<Status> results(threads, Status::ok());
  auto work = [&](unsigned t) {
    for (size_t k = t; k < chunks.size(); k += threads) {
      const Chunk &c = chunks[k];
      Status st = (*writer)->writeSegmentData(
          c.segment, c.offset, segments[c.segment].bytes.data() + c.offset,
          c.size);
      if (!st) {
        results[t] = st;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work, t);
  work(0);
  for (std::thread &t : pool)
    t.join();
  for (const Status &st : results)
    if (!st)
      return st;
  return (*writer)->finish();
}
