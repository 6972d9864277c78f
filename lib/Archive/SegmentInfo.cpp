//===- SegmentInfo.cpp - Validating a segment record
//-------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/SegmentInfo.h"

#include <set>
#include <string_view>

using namespace vmpack;
using namespace vmpack::archive;

static bool isKnownKind(ScalarKind kind) {
  return kind <= ScalarKind::UnsignedInt || impliedWidth(kind) != 0;
}

uint64_t vmpack::archive::numScalars(const SegmentInfo &segment) {
  return segment.numElements * segment.elementType.scalarsPerElement();
}

Status vmpack::archive::validateSegment(SegmentInfo &s) {
  auto fail = [&](const std::string &what) {
    return Status::formatError("segment '" + printableName(s.name) +
                               "': " + what);
  };
  if (s.name.empty())
    return Status::formatError("segment with an empty name");
  if (s.name.size() > kMaxSegmentNameBytes)
    return fail("name longer than " + std::to_string(kMaxSegmentNameBytes) +
                " bytes");
  if (s.sourceKey.size() > kMaxSourceKeyBytes)
    return fail("source key longer than " + std::to_string(kMaxSourceKeyBytes) +
                " bytes");
  if (s.mlirType.size() > kMaxSourceKeyBytes)
    return fail("MLIR type text longer than " +
                std::to_string(kMaxSourceKeyBytes) + " bytes");
  if (!isValidAlignment(s.alignment))
    return fail("alignment " + std::to_string(s.alignment) +
                " is not a power of two in [1, 65536]");
  if (uint8_t(s.sourceKind) > uint8_t(SourceKind::PackedResource))
    return fail("unknown source kind " + std::to_string(int(s.sourceKind)));

  const ScalarType &scalar = s.elementType.scalar;
  if (!isKnownKind(scalar.kind))
    return fail("unknown scalar kind " + std::to_string(int(scalar.kind)));
  if (scalar.isInteger() && scalar.kind != ScalarKind::Index) {
    if (scalar.width == 0 || scalar.width >= (1u << 24))
      return fail("integer width " + std::to_string(scalar.width) +
                  " is not in [1, 2^24 - 1]");
  } else if (scalar.width != impliedWidth(scalar.kind)) {
    return fail("width " + std::to_string(scalar.width) + " does not match " +
                toString(ScalarType{scalar.kind, impliedWidth(scalar.kind)}));
  }
  if (uint8_t(s.encoding) > uint8_t(Encoding::Byte))
    return fail("unknown encoding " + std::to_string(int(s.encoding)));
  if (!isEncodable(s.encoding, scalar.width))
    return fail(std::string("encoding '") + encodingName(s.encoding) +
                "' is not defined for " + std::to_string(scalar.width) +
                "-bit elements");

  if (s.shape.size() > kMaxRank)
    return fail("rank " + std::to_string(s.shape.size()) + " exceeds " +
                std::to_string(kMaxRank));
  uint64_t count = 1;
  for (int64_t dim : s.shape) {
    if (dim < 0)
      return fail("negative dimension " + std::to_string(dim));
    if (__builtin_mul_overflow(count, uint64_t(dim), &count))
      return fail("element count overflows 64 bits");
  }
  uint64_t scalars;
  if (__builtin_mul_overflow(count, uint64_t(s.elementType.scalarsPerElement()),
                             &scalars))
    return fail("element count overflows 64 bits");
  std::optional<uint64_t> expected =
      encodedSize(s.encoding, scalar.width, scalars);
  if (!expected)
    return fail("encoded size overflows 64 bits");
  if (*expected != s.length)
    return fail("length " + std::to_string(s.length) + " is not the " +
                encodingName(s.encoding) + " size of " +
                toString(s.elementType) + " x " + std::to_string(count) + " (" +
                std::to_string(*expected) + " bytes)");
  s.numElements = count;
  if (s.foreignKind != kForeignNone) {
    if (s.foreignKind != kForeignGgml)
      return fail("unknown foreign kind " + std::to_string(s.foreignKind));
    if (!(s.elementType ==
          ElementType{ScalarType{ScalarKind::UnsignedInt, 8}, false}) ||
        s.encoding != Encoding::Byte || s.shape.size() != 1)
      return fail("a foreign segment must be 1-D ui8 bytes, byte encoding");
    if (s.foreignShape.size() > kMaxRank)
      return fail("foreign rank " + std::to_string(s.foreignShape.size()) +
                  " exceeds " + std::to_string(kMaxRank));
    for (int64_t dim : s.foreignShape)
      if (dim < 0)
        return fail("negative foreign dimension " + std::to_string(dim));
  } else if (s.foreignType != 0 || !s.foreignShape.empty()) {
    return fail("foreign type or shape without a foreign kind");
  }
  return Status::ok();
}

Status vmpack::archive::validateAlias(SegmentInfo &alias,
                                      const SegmentInfo &target) {
  alias.isAlias = true;
  alias.encoding = target.encoding;
  alias.offset = target.offset;
  alias.length = target.length;
  alias.alignment = target.alignment;
  alias.checksum = target.checksum;
  return validateSegment(alias);
}

Status vmpack::archive::validateMetadata(
    const std::vector<std::pair<std::string, std::string>> &metadata) {
  std::set<std::string_view> keys;
  for (const auto &[key, value] : metadata) {
    if (key.empty())
      return Status::formatError("metadata key is empty");
    if (key.size() > kMaxMetadataBytes || value.size() > kMaxMetadataBytes)
      return Status::formatError("metadata key '" + printableName(key) +
                                 "': key or value longer than " +
                                 std::to_string(kMaxMetadataBytes) + " bytes");
    if (!keys.insert(key).second)
      return Status::formatError("metadata key '" + printableName(key) +
                                 "' appears twice");
  }
  return Status::ok();
}
