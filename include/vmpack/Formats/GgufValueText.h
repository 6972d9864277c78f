//===- GgufValueText.h - GGUF metadata values as strings -----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// safetensors, .vmpk and MLIR keep metadata as string pairs; GGUF values
// are typed. A GGUF pair whose value is not a string travels in a string
// map as key "vmpack.gguf.KEY" with a typed text value ("uint32:32",
// "array<string>:[\"a\",\"b\"]"; docs/interop.md, "GGUF values in string
// metadata"), so GGUF -> safetensors / .vmpk / MLIR -> GGUF writes the
// same key/value section again. String values stay plain pairs. Decoding
// treats the text as hostile: every error names the key.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_GGUFVALUETEXT_H
#define VMPACK_FORMATS_GGUFVALUETEXT_H

#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"

#include <string>
#include <string_view>

namespace vmpack::formats {

/// Key prefix of a GGUF value that is not a string, in string metadata.
inline constexpr std::string_view kGgufValueKeyPrefix = "vmpack.gguf.";

/// "uint8", "int8", ..., "float64" (GGUF's type names, lower case); arrays
/// are "array<TYPE>".
std::string ggufTypeName(const GgufValue &value);

/// The text form of a value of any type but String: "TYPE:JSON", where
/// JSON is an integer, true/false, a number for finite floats (the
/// shortest decimal that reads back to the same bits) or a string
/// "0x..." of the bits for other floats (NaN, infinities), or an array of
/// those (strings as JSON strings). Fails for a string that is not UTF-8.
StatusOr<std::string> encodeGgufValue(const GgufValue &value);

/// The JSON part of that form (what follows "TYPE:"). It is also the C
/// runtime's text of a GGUF value (vmpack.h, vmpack_metadata_entry_t), with
/// `replaceInvalidUtf8`: the bytes of an array's strings that are not UTF-8
/// become U+FFFD there instead of an error (readable, not decodable back).
StatusOr<std::string> ggufValueJson(const GgufValue &value,
                                    bool replaceInvalidUtf8 = false);

/// The inverse of encodeGgufValue, strict: the type must be known, numbers
/// in range and integral where the type is, arrays flat and at most
/// `limits.maxArrayElements` long.
StatusOr<GgufValue> decodeGgufValue(std::string_view text,
                                    const GgufLimits &limits = {});

/// Typed GGUF metadata as string pairs, in order: strings as they are,
/// other values under kGgufValueKeyPrefix + key.
StatusOr<StringMetadata> ggufToStringMetadata(const GgufMetadata &metadata);

/// String pairs as typed GGUF metadata, in order: kGgufValueKeyPrefix
/// entries decoded (errors name the key), every other pair a string.
StatusOr<GgufMetadata> stringMetadataToGguf(const StringMetadata &metadata);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_GGUFVALUETEXT_H
