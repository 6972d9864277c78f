//===- IndexChecksum.h - Mutated indexes past the trailer CRC ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The trailer holds the index's CRC-32, so almost every mutation of the
// index stops at that check and the FlatBuffers verifier and the record
// checks behind it would rarely see mutated input. Each target therefore
// runs twice when the CRC is the only thing wrong: once as given, once
// with the trailer's CRC recomputed. Changes to types, shapes and
// encodings that keep the layout then reach unpacking.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FUZZ_INDEXCHECKSUM_H
#define VMPACK_FUZZ_INDEXCHECKSUM_H

#include "ZipLayout.h" // lib/Archive
#include "vmpack/Archive/Checksum.h"
#include "vmpack/Archive/Format.h"

#include <cstring>
#include <optional>

namespace vmpack::fuzz {

/// Rewrites the trailer of [data, data + size) so that its CRC matches the
/// index it points at. Returns false when there is no such trailer or the
/// CRC already matched (nothing new to try).
inline bool repairIndexChecksum(uint8_t *data, size_t size) {
  using namespace vmpack::archive;
  if (size < zip::end::kSize + kTrailerLength)
    return false;
  char *text = reinterpret_cast<char *>(data + size - kTrailerLength);
  std::optional<Trailer> t =
      parseTrailer(std::string_view(text, kTrailerLength));
  if (!t || t->indexOffset > size || t->indexLength > size - t->indexOffset)
    return false;
  uint32_t crc = crc32Update(0, data + t->indexOffset, t->indexLength);
  if (crc == t->indexChecksum)
    return false;
  t->indexChecksum = crc;
  std::string fixed = formatTrailer(*t);
  if (fixed.size() != kTrailerLength)
    return false;
  std::memcpy(text, fixed.data(), kTrailerLength);
  return true;
}

} // namespace vmpack::fuzz

#endif // VMPACK_FUZZ_INDEXCHECKSUM_H
