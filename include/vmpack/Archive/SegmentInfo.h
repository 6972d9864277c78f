//===- SegmentInfo.h - What the index says about one segment -------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A segment is one constant: a tensor of elements stored in one of the
// encodings of docs/packing.md. SegmentInfo is the decoded index record; the
// reader hands it out, and both sides check it with validateSegment, so a
// writer cannot produce what a reader would reject.
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

struct SegmentInfo {
  std::string name;
  std::string mlirType;
  vmpack::ElementType elementType;
  std::vector<int64_t> shape;
  vmpack::Encoding encoding = vmpack::Encoding::Packed;
  /// Product of the shape (complex elements count once).
  uint64_t numElements = 0;
  /// Absolute file offset and length of the stored bytes.
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t alignment = kDefaultSegmentAlignment;
  /// CRC-32 of the stored bytes (the ZIP CRC of the segment's entry).
  uint32_t checksum = 0;
  SourceKind sourceKind = SourceKind::Dense;
  std::string sourceKey;
  uint32_t sourceAlignment = 0;
  /// An alias (format version 2): a constant of its own name, type and
  /// source whose stored bytes are those of segment `aliasOf`. Encoding,
  /// offset, length, alignment and checksum are that segment's.
  bool isAlias = false;
  uint32_t aliasOf = 0;
  /// A foreign segment (format version 2): kForeignGgml with a ggml_type
  /// in foreignType and the logical shape in foreignShape. The segment is
  /// then ui8, shape [length], byte encoding: opaque bytes to vmpack.
  uint8_t foreignKind = kForeignNone;
  uint32_t foreignType = 0;
  std::vector<int64_t> foreignShape;
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
