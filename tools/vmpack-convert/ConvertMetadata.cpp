//===- ConvertMetadata.cpp - Metadata of several inputs as one ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "ConvertMetadata.h"

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::convert;

Status MetadataMerger::addStrings(const StringMetadata &metadata,
                                  const std::string &path) {
  StatusOr<GgufMetadata> typed = stringMetadataToGguf(metadata);
  if (!typed)
    return typed.status().withContext("'" + path + "': ");
  return addGguf(*typed, path);
}

Status MetadataMerger::addGguf(const GgufMetadata &metadata,
                               const std::string &path) {
  for (const GgufKeyValue &kv : metadata) {
    auto [it, added] = owner.emplace(kv.key, std::make_pair(all.size(), path));
    if (added) {
      all.push_back(kv);
      continue;
    }
    if (!(all[it->second.first].value == kv.value))
      return Status::invalidArgument("metadata key '" + kv.key +
                                     "' differs between '" + it->second.second +
                                     "' and '" + path + "'");
  }
  return Status::ok();
}
