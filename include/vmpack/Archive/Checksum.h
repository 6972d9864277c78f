//===- Checksum.h - CRC-32 over large buffers ----------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The checksum of every entry is the ZIP CRC-32 (reflected polynomial
// 0xEDB88320, initial value and final XOR 0xFFFFFFFF: zlib's crc32). These
// compute it over 64-bit lengths and combine the CRCs of adjacent pieces
// computed independently, which is how parallel writers and verifiers get one
// CRC per entry without a sequential pass.
//
// Several implementations can be compiled in: zlib (always present, the
// portable fallback), ISA-L and libdeflate (carry-less-multiply kernels,
// each used when found at configure time). They compute the same function;
// crc32Update uses the fastest one built, and crc32UpdateWith lets tests and
// benchmarks run each of them.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_CHECKSUM_H
#define VMPACK_ARCHIVE_CHECKSUM_H

#include <cstdint>
#include <vector>

namespace vmpack::archive {

/// The CRC-32 implementations vmpack knows about.
enum class Crc32Implementation { Zlib, Isal, Libdeflate };

/// CRC-32 of `size` bytes, continuing from `crc` (0 to start).
uint32_t crc32Update(uint32_t crc, const void *data, uint64_t size);

/// The CRC of A followed by B, from crc(A), crc(B) and B's length.
uint32_t crc32Combine(uint32_t crcA, uint32_t crcB, uint64_t lengthB);

/// The implementations compiled into this build, the default one first.
std::vector<Crc32Implementation> availableCrc32Implementations();

/// The implementation crc32Update uses.
Crc32Implementation defaultCrc32Implementation();

/// "zlib", "isa-l" or "libdeflate".
const char *crc32ImplementationName(Crc32Implementation impl);

/// crc32Update through one implementation; `impl` must be available.
uint32_t crc32UpdateWith(Crc32Implementation impl, uint32_t crc,
                         const void *data, uint64_t size);

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_CHECKSUM_H
