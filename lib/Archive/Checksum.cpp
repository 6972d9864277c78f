//===- Checksum.cpp - CRC-32 over large buffers
//-----------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// zlib's crc32 is the portable reference (slicing tables, about 4 GB/s per
// core here). ISA-L's crc32_gzip_refl and libdeflate_crc32 fold the data
// with carry-less multiplication (PCLMULQDQ, and VPCLMULQDQ where the CPU
// has it), chosen at run time by the library. Which of them are compiled in
// is decided at configure time (VMPACK_HAVE_ISAL, VMPACK_HAVE_LIBDEFLATE);
// the order of preference is the measured one (docs/performance.md, "CRC-32").
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Checksum.h"

#include <zlib.h>

#if VMPACK_HAVE_ISAL
#include <isa-l/crc.h>
#endif
#if VMPACK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cstdlib>

using namespace vmpack::archive;

namespace {

uint32_t zlibCrc32(uint32_t crc, const void *data, uint64_t size) {
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

#if VMPACK_HAVE_ISAL
uint32_t isalCrc32(uint32_t crc, const void *data, uint64_t size) {
  // crc32_gzip_refl takes and returns the finished CRC (it applies the
  // initial and final inversions itself), exactly like zlib's crc32.
  if (size == 0)
    return crc;
  return ::crc32_gzip_refl(crc, static_cast<const unsigned char *>(data), size);
}
#endif

#if VMPACK_HAVE_LIBDEFLATE
uint32_t libdeflateCrc32(uint32_t crc, const void *data, uint64_t size) {
  static_assert(sizeof(size_t) >= sizeof(uint64_t) || sizeof(void *) < 8,
                "size_t must hold buffer lengths");
  if (size == 0)
    return crc;
  return ::libdeflate_crc32(crc, data, size_t(size));
}
#endif

} // namespace

std::vector<Crc32Implementation>
vmpack::archive::availableCrc32Implementations() {
  std::vector<Crc32Implementation> result;
#if VMPACK_HAVE_ISAL
  result.push_back(Crc32Implementation::Isal);
#endif
#if VMPACK_HAVE_LIBDEFLATE
  result.push_back(Crc32Implementation::Libdeflate);
#endif
  result.push_back(Crc32Implementation::Zlib);
  return result;
}

Crc32Implementation vmpack::archive::defaultCrc32Implementation() {
#if VMPACK_HAVE_ISAL
  return Crc32Implementation::Isal;
#elif VMPACK_HAVE_LIBDEFLATE
  return Crc32Implementation::Libdeflate;
#else
  return Crc32Implementation::Zlib;
#endif
}

const char *vmpack::archive::crc32ImplementationName(Crc32Implementation impl) {
  switch (impl) {
  case Crc32Implementation::Zlib:
    return "zlib";
  case Crc32Implementation::Isal:
    return "isa-l";
  case Crc32Implementation::Libdeflate:
    return "libdeflate";
  }
  return "unknown";
}

uint32_t vmpack::archive::crc32UpdateWith(Crc32Implementation impl,
                                          uint32_t crc, const void *data,
                                          uint64_t size) {
  switch (impl) {
  case Crc32Implementation::Zlib:
    return zlibCrc32(crc, data, size);
  case Crc32Implementation::Isal:
#if VMPACK_HAVE_ISAL
    return isalCrc32(crc, data, size);
#else
    break;
#endif
  case Crc32Implementation::Libdeflate:
#if VMPACK_HAVE_LIBDEFLATE
    return libdeflateCrc32(crc, data, size);
#else
    break;
#endif
  }
  // Asking for an implementation that is not built is a programming error.
  std::abort();
}

uint32_t vmpack::archive::crc32Update(uint32_t crc, const void *data,
                                      uint64_t size) {
#if VMPACK_HAVE_ISAL
  return isalCrc32(crc, data, size);
#elif VMPACK_HAVE_LIBDEFLATE
  return libdeflateCrc32(crc, data, size);
#else
  return zlibCrc32(crc, data, size);
#endif
}

uint32_t vmpack::archive::crc32Combine(uint32_t crcA, uint32_t crcB,
                                       uint64_t lengthB) {
  static_assert(sizeof(z_off_t) >= 8 || sizeof(void *) < 8,
                "zlib's z_off_t must hold 64-bit lengths");
  return uint32_t(::crc32_combine(crcA, crcB, z_off_t(lengthB)));
}
