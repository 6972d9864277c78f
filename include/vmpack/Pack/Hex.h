//===- Hex.h - Hexadecimal text, decoded and encoded ------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Hexadecimal digits to bytes, as MLIR writes large constants in text
// (`dense<"0x...">` and resource blobs): two digits per byte, the first one
// the high nibble, digits 0-9, a-f and A-F.
//
// decodeHex uses the dispatch level Dispatch.h chooses (SSE2 and AVX2
// kernels on x86-64, plain C++ elsewhere); decodeHexAt runs a given level,
// and reference::decodeHex one byte at a time. All give the same bytes and
// the same verdict. encodeHex writes the digits back, upper case, as MLIR's
// printer does.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PACK_HEX_H
#define VMPACK_PACK_HEX_H

#include "vmpack/Pack/Dispatch.h"

#include <cstdint>

namespace vmpack {

/// Decodes the 2 * `numBytes` digits at `hex` into `numBytes` bytes at
/// `out`. Returns false when any of those characters is not a hex digit;
/// `out` then holds unspecified bytes.
bool decodeHex(const char *hex, uint8_t *out, uint64_t numBytes);

/// Decodes digit pairs at `hex` into `out` up to the first character that
/// is not a hex digit, reading at most 2 * `maxBytes` characters. Returns
/// the number of bytes decoded: the whole pairs before that character.
/// `out` must have room for `maxBytes` bytes; those past the returned count
/// are unspecified. One pass over the text, for digits whose end is not
/// known in advance.
uint64_t decodeHexPrefix(const char *hex, uint8_t *out, uint64_t maxBytes);

/// decodeHex and decodeHexPrefix with the kernels of `level`, which must be
/// supported (isDispatchLevelSupported); for tests and benchmarks.
bool decodeHexAt(DispatchLevel level, const char *hex, uint8_t *out,
                 uint64_t numBytes);
uint64_t decodeHexPrefixAt(DispatchLevel level, const char *hex, uint8_t *out,
                           uint64_t maxBytes);

/// Writes the 2 * `numBytes` upper-case digits of the bytes at `bytes` to
/// `out` (no terminator): the form MLIR prints blobs and `dense<"0x...">`
/// in.
void encodeHex(const uint8_t *bytes, uint64_t numBytes, char *out);

namespace reference {
bool decodeHex(const char *hex, uint8_t *out, uint64_t numBytes);
uint64_t decodeHexPrefix(const char *hex, uint8_t *out, uint64_t maxBytes);
} // namespace reference

} // namespace vmpack

#endif // VMPACK_PACK_HEX_H
