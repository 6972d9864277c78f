//===- BoundedJson.h - JSON from untrusted files, with limits --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one JSON parser of the formats layer, for the safetensors header and
// the safetensors shard index: nlohmann::json with a parser callback that
// enforces a nesting limit and rejects a key repeated in one object before
// any value is built. Private to lib/Formats.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_FORMATS_BOUNDEDJSON_H
#define VMPACK_LIB_FORMATS_BOUNDEDJSON_H

#include "vmpack/Archive/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace vmpack::formats {

using archive::Status;
using archive::StatusOr;

/// Called for every key with the number of objects open (1 for the keys of
/// the top-level object).
using JsonKeyObserver = std::function<void(int depth, const std::string &)>;

/// Parses `size` bytes of JSON. `subject` starts the messages ("the JSON
/// header nests deeper than 64 levels", "... repeats the key 'a'", "... is
/// not valid JSON: ..."); every failure is a format error.
StatusOr<nlohmann::json> parseBoundedJson(const uint8_t *data, size_t size,
                                          unsigned maxDepth,
                                          const std::string &subject,
                                          const JsonKeyObserver &onKey = {});

} // namespace vmpack::formats

#endif // VMPACK_LIB_FORMATS_BOUNDEDJSON_H
