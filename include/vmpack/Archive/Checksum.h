//===- Checksum.h - CRC-32 over large buffers ----------------------*- C++ -*-===//
//
// The checksum of every entry is the ZIP CRC-32 (zlib's crc32). These wrap
// zlib for 64-bit lengths and for combining the CRCs of adjacent pieces
// computed independently, which is how parallel writers and verifiers get
// one CRC per entry without a sequential pass.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_CHECKSUM_H
#define VMPACK_ARCHIVE_CHECKSUM_H

#include <cstdint>

namespace vmpack::archive {

/// CRC-32 of `size` bytes, continuing from `crc` (0 to start).
uint32_t crc32Update(uint32_t crc, const void *data, uint64_t size);

/// The CRC of A followed by B, from crc(A), crc(B) and B's length.
uint32_t crc32Combine(uint32_t crcA, uint32_t crcB, uint64_t lengthB);

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_CHECKSUM_H
