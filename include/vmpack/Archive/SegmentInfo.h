//===- SegmentInfo.h - What the index says about one segment -------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A segment is one constant: a tensor of elements stored in one of the
// encodings of docs/packing.md. One description serves every stage:
// ConstantDesc (what a constant is), SegmentDesc (plus how it is stored; the
// writer takes it) and SegmentInfo (plus where it landed; the decoded index
// record the reader hands out). Both sides check it with validateSegment,
// so a writer cannot produce what a reader would reject.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_SEGMENTINFO_H
#define VMPACK_ARCHIVE_SEGMENTINFO_H

#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/Status.h"
#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmpack::archive {

/// What segments and aliases both say of a constant: its name, logical
/// type and where the compiler found it.
struct ConstantDesc {
  std::string name;
  std::string mlirType;
  vmpack::ElementType elementType;
  std::vector<int64_t> shape;
  SourceKind sourceKind = SourceKind::Dense;
  std::string sourceKey;
  uint32_t sourceAlignment = 0;
};

/// A segment as its writer declares it: the constant and how its bytes are
/// stored. `length` must equal the encoded size of `shape` in `encoding`
/// (validateSegment checks it).
struct SegmentDesc : ConstantDesc {
  vmpack::Encoding encoding = vmpack::Encoding::Packed;
  uint64_t length = 0;
  uint32_t alignment = kDefaultSegmentAlignment;
  /// A foreign segment (format version 2): kForeignGgml with a ggml_type
  /// in foreignType and the logical shape in foreignShape. The segment is
  /// then ui8, shape [length], byte encoding: opaque bytes to vmpack.
  uint8_t foreignKind = kForeignNone;
  uint32_t foreignType = 0;
  std::vector<int64_t> foreignShape;
};

/// The decoded index record of a segment or alias: what its writer
/// declared, and where the bytes landed.
struct SegmentInfo : SegmentDesc {
  SegmentInfo() = default;
  /// A segment before it is placed: offset and checksum still 0.
  explicit SegmentInfo(SegmentDesc desc) : SegmentDesc(std::move(desc)) {}
  /// An alias of segment `aliasOf`, before validateAlias fills in the
  /// stored fields from that segment.
  SegmentInfo(ConstantDesc desc, uint32_t aliasOf)
      : isAlias(true), aliasOf(aliasOf) {
    static_cast<ConstantDesc &>(*this) = std::move(desc);
  }

  /// Product of the shape (complex elements count once).
  uint64_t numElements = 0;
  /// Absolute file offset of the stored bytes (`length` of them).
  uint64_t offset = 0;
  /// CRC-32 of the stored bytes (the ZIP CRC of the segment's entry).
  uint32_t checksum = 0;
  /// An alias (format version 2): a constant of its own name, type and
  /// source whose stored bytes are those of segment `aliasOf`. Encoding,
  /// offset, length, alignment and checksum are that segment's.
  bool isAlias = false;
  uint32_t aliasOf = 0;
};

/// Checks everything about `segment` that does not depend on its position:
/// name and key lengths, element type, shape, encoding, alignment, and that
/// `length` is exactly the encoded size of the shape. Sets numElements.
Status validateSegment(SegmentInfo &segment);

/// Checks module metadata: keys non-empty and unique, keys and values at
/// most kMaxMetadataBytes each.
Status validateMetadata(
    const std::vector<std::pair<std::string, std::string>> &metadata);

/// Checks an alias record against the segment it shares: everything
/// validateSegment checks, with the segment's stored bytes, encoding and
/// alignment, whose length must be exactly the alias's encoded size. Fills
/// in the shared fields from `target`.
Status validateAlias(SegmentInfo &alias, const SegmentInfo &target);

/// Scalars (W-bit values) in the segment: numElements, doubled for complex.
uint64_t numScalars(const SegmentInfo &segment);

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_SEGMENTINFO_H
