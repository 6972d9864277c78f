//===- BoundedJson.cpp - JSON from untrusted files, with limits ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The nesting limit and the repeated-key check run in nlohmann::json's
// parser callback, which sees each container and key as it is read: a
// hostile file is rejected before the value it describes is built, and the
// parser is iterative, so depth cannot exhaust the stack either way.
//
//===----------------------------------------------------------------------===//

#include "BoundedJson.h"

#include "vmpack/Formats/Tensor.h"

#include <set>
#include <vector>

using namespace vmpack;
using namespace vmpack::formats;
using json = nlohmann::json;

namespace {
/// Thrown by the parser callback; caught in parseBoundedJson.
struct LimitError {
  std::string message;
};
} // namespace

StatusOr<json> vmpack::formats::parseBoundedJson(const uint8_t *data,
                                                 size_t size, unsigned maxDepth,
                                                 const std::string &subject,
                                                 const JsonKeyObserver &onKey) {
  // One set of keys per open container (arrays hold none; their entry keeps
  // the stack aligned with the nesting).
  std::vector<std::set<std::string>> keys;
  json::parser_callback_t callback = [&](int depth, json::parse_event_t event,
                                         json &parsed) -> bool {
    switch (event) {
    case json::parse_event_t::object_start:
    case json::parse_event_t::array_start:
      // `depth` counts the containers already open.
      if (unsigned(depth) + 1 > maxDepth)
        throw LimitError{subject + " nests deeper than " +
                         std::to_string(maxDepth) + " levels"};
      keys.emplace_back();
      break;
    case json::parse_event_t::object_end:
    case json::parse_event_t::array_end:
      if (!keys.empty())
        keys.pop_back();
      break;
    case json::parse_event_t::key: {
      const std::string &key = parsed.get_ref<const std::string &>();
      if (onKey)
        onKey(depth, key);
      if (!keys.empty() && !keys.back().insert(key).second)
        throw LimitError{subject + " repeats the key " + quoteName(key)};
      break;
    }
    case json::parse_event_t::value:
      break;
    }
    return true;
  };
  try {
    return json::parse(data, data + size, callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const LimitError &e) {
    return Status::formatError(e.message);
  } catch (const json::exception &e) {
    return Status::formatError(subject + " is not valid JSON: " + e.what());
  }
}
