//===- Format.cpp - Entry names and the trailer
//----------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/Format.h"

#include <cinttypes>
#include <cstdio>

using namespace vmpack::archive;

bool vmpack::archive::isValidAlignment(uint64_t alignment) {
  return alignment != 0 && alignment <= kMaxAlignment &&
         (alignment & (alignment - 1)) == 0;
}

static bool isPlainNameByte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static const char kHexUpper[] = "0123456789ABCDEF";

std::string vmpack::archive::escapeSegmentName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    // A leading '.' would make "." and ".." (and hidden files) when unzipped.
    if (isPlainNameByte(c) && !(i == 0 && c == '.')) {
      out.push_back(char(c));
      continue;
    }
    out.push_back('%');
    out.push_back(kHexUpper[c >> 4]);
    out.push_back(kHexUpper[c & 15]);
  }
  return out;
}

static int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::optional<std::string>
vmpack::archive::unescapeSegmentName(std::string_view entryName) {
  std::string out;
  for (size_t i = 0; i < entryName.size(); ++i) {
    char c = entryName[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    if (i + 2 >= entryName.size())
      return std::nullopt;
    int hi = hexValue(entryName[i + 1]), lo = hexValue(entryName[i + 2]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out.push_back(char(hi * 16 + lo));
    i += 2;
  }
  // Only the canonical spelling is accepted, so names and entries are 1:1.
  if (escapeSegmentName(out) != entryName)
    return std::nullopt;
  return out;
}

std::string vmpack::archive::printableName(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(char(c));
      continue;
    }
    out += "\\x";
    out.push_back(kHexUpper[c >> 4]);
    out.push_back(kHexUpper[c & 15]);
  }
  return out;
}

std::string vmpack::archive::formatTrailer(const Trailer &trailer) {
  char buf[kTrailerLength + 1];
  int n = std::snprintf(buf, sizeof(buf),
                        "vmpack %04" PRIu32 " index=%016" PRIx64 "+%016" PRIx64
                        " crc32=%08" PRIx32,
                        trailer.formatVersion % 10000, trailer.indexOffset,
                        trailer.indexLength, trailer.indexChecksum);
  return std::string(buf, n > 0 ? size_t(n) : 0);
}

/// Parses exactly `digits` characters of `text` at `pos` in `base`.
static std::optional<uint64_t> parseFixed(std::string_view text, size_t pos,
                                          size_t digits, int base) {
  uint64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[pos + i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return std::nullopt;
    value = value * uint64_t(base) + uint64_t(d);
  }
  return value;
}

std::optional<Trailer> vmpack::archive::parseTrailer(std::string_view comment) {
  // "vmpack VVVV index=OOOOOOOOOOOOOOOO+LLLLLLLLLLLLLLLL crc32=CCCCCCCC"
  //  0      7    11     18              34               51     58
  if (comment.size() != kTrailerLength || comment.substr(0, 7) != "vmpack " ||
      comment.substr(11, 7) != " index=" || comment[34] != '+' ||
      comment.substr(51, 7) != " crc32=")
    return std::nullopt;
  auto version = parseFixed(comment, 7, 4, 10);
  auto offset = parseFixed(comment, 18, 16, 16);
  auto length = parseFixed(comment, 35, 16, 16);
  auto crc = parseFixed(comment, 58, 8, 16);
  if (!version || !offset || !length || !crc)
    return std::nullopt;
  Trailer t;
  t.formatVersion = uint32_t(*version);
  t.indexOffset = *offset;
  t.indexLength = *length;
  t.indexChecksum = uint32_t(*crc);
  return t;
}
