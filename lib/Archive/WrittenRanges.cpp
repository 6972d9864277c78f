//===- WrittenRanges.cpp - Which bytes of an output were written ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/WrittenRanges.h"

#include "vmpack/Archive/Checksum.h"

#include <algorithm>
#include <iterator>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

std::optional<ByteRange> WrittenRanges::add(uint64_t start, uint64_t end,
                                            uint32_t crc) {
  if (start >= end)
    return std::nullopt;
  // The first recorded byte of [start, end) is in the range before `next`
  // or, failing that, in `next`.
  auto next = pieces.lower_bound(start);
  auto prev = next == pieces.begin() ? pieces.end() : std::prev(next);
  if (prev != pieces.end() && prev->second.end > start)
    return ByteRange{start, std::min(end, prev->second.end)};
  if (next != pieces.end() && next->first < end)
    return ByteRange{next->first, std::min(end, next->second.end)};
  // Merge with the ranges this one touches, so that a segment written in
  // order stays one range.
  if (prev != pieces.end() && prev->second.end == start) {
    crc = crc32Combine(prev->second.crc, crc, end - start);
    start = prev->first;
    pieces.erase(prev);
  }
  if (next != pieces.end() && next->first == end) {
    crc = crc32Combine(crc, next->second.crc, next->second.end - end);
    end = next->second.end;
    pieces.erase(next);
  }
  pieces.emplace(start, Piece{end, crc});
  return std::nullopt;
}

std::optional<ByteRange> WrittenRanges::firstHole(uint64_t length) const {
  uint64_t holeStart = 0;
  for (const auto &[start, piece] : pieces) {
    if (start > holeStart || holeStart >= length)
      break;
    holeStart = piece.end;
  }
  if (holeStart >= length)
    return std::nullopt;
  uint64_t holeEnd = length;
  auto after = pieces.upper_bound(holeStart);
  if (after != pieces.end())
    holeEnd = std::min(length, after->first);
  return ByteRange{holeStart, holeEnd};
}

std::optional<uint32_t> WrittenRanges::checksum(uint64_t length) const {
  if (length == 0)
    return pieces.empty() ? std::optional<uint32_t>(0) : std::nullopt;
  if (pieces.size() == 1 && pieces.begin()->first == 0 &&
      pieces.begin()->second.end == length)
    return pieces.begin()->second.crc;
  return std::nullopt;
}
