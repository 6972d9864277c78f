//===- WrittenRanges.h - Which bytes of an output were written -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The writers of module archives and parameter archives take the bytes of
// each segment in chunks, from any thread, in any order; together the
// chunks must cover the segment exactly once. WrittenRanges records the
// chunks of one segment as merged ranges (with their combined CRC-32), so
// that a chunk written twice is refused at once with the bytes it overlaps,
// and a segment left incomplete is refused at the end with its first hole.
// Memory grows with the number of unmerged ranges, not with the data.
//
// Not thread-safe: the writers call it under their own lock.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_WRITTENRANGES_H
#define VMPACK_ARCHIVE_WRITTENRANGES_H

#include "vmpack/Archive/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace vmpack::archive::detail {

/// Bytes [start, end) of one segment.
struct ByteRange {
  uint64_t start = 0;
  uint64_t end = 0;
};

class WrittenRanges {
public:
  /// Records bytes [start, end), whose CRC-32 is `crc`, as written. If any
  /// of them was recorded before, records nothing and returns the first
  /// range of [start, end) that was.
  std::optional<ByteRange> add(uint64_t start, uint64_t end, uint32_t crc = 0);
  /// The first range of [0, length) not recorded, or nullopt when all of it
  /// was. Recorded bytes at or past `length` are not looked at.
  std::optional<ByteRange> firstHole(uint64_t length) const;
  /// The CRC-32 of bytes [0, length) when they are all recorded and nothing
  /// else is; 0 for length 0.
  std::optional<uint32_t> checksum(uint64_t length) const;
  /// Number of separate (not touching) recorded ranges.
  size_t numRanges() const { return pieces.size(); }

  /// add(), failing as the writers report it: "<what>: bytes [a, b) were
  /// written twice". `what` is only called on failure.
  template <typename What>
  Status record(uint64_t start, uint64_t end, uint32_t crc, What what) {
    if (std::optional<ByteRange> twice = add(start, end, crc))
      return Status::invalidArgument(what() + ": bytes " + text(*twice) +
                                     " were written twice");
    return Status::ok();
  }
  /// firstHole(), failing as the writers report it: "<what>: bytes [a, b) of
  /// N were never written".
  template <typename What>
  Status checkComplete(uint64_t length, What what) const {
    if (std::optional<ByteRange> hole = firstHole(length))
      return Status::invalidArgument(what() + ": bytes " + text(*hole) +
                                     " of " + std::to_string(length) +
                                     " were never written");
    return Status::ok();
  }

private:
  static std::string text(ByteRange r) {
    return "[" + std::to_string(r.start) + ", " + std::to_string(r.end) + ")";
  }
  struct Piece {
    uint64_t end;
    uint32_t crc;
  };
  std::map<uint64_t, Piece> pieces; // keyed by start; never touching
};

} // namespace vmpack::archive::detail

#endif // VMPACK_ARCHIVE_WRITTENRANGES_H
