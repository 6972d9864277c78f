//===- Checksum.cpp - CRC-32 over large buffers -----------------------------===//

#include "vmpack/Archive/Checksum.h"

#include <zlib.h>

#include <algorithm>

using namespace vmpack::archive;

uint32_t vmpack::archive::crc32Update(uint32_t crc, const void *data,
                                      uint64_t size) {
  // zlib takes 32-bit lengths.
  constexpr uint64_t kStep = uint64_t(1) << 30;
  const auto *p = static_cast<const Bytef *>(data);
  uLong c = crc;
  while (size > 0) {
    uint64_t n = std::min(size, kStep);
    c = ::crc32(c, p, uInt(n));
    p += n;
    size -= n;
  }
  return uint32_t(c);
}

uint32_t vmpack::archive::crc32Combine(uint32_t crcA, uint32_t crcB,
                                       uint64_t lengthB) {
  static_assert(sizeof(z_off_t) >= 8 || sizeof(void *) < 8,
                "zlib's z_off_t must hold 64-bit lengths");
  return uint32_t(::crc32_combine(crcA, crcB, z_off_t(lengthB)));
}
