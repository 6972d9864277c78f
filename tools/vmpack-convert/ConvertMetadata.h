//===- ConvertMetadata.h - Metadata of several inputs as one ------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Every input's metadata as typed GGUF pairs, merged in input order:
// safetensors, .vmpk and MLIR string pairs (with "vmpack.gguf." entries
// decoded to their GGUF type), GGUF pairs as they are. Shards repeat their
// metadata: equal values merge, different ones are an error.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACK_CONVERT_CONVERTMETADATA_H
#define VMPACK_TOOLS_VMPACK_CONVERT_CONVERTMETADATA_H

#include "vmpack/Formats/GgufValueText.h"

#include <map>
#include <string>

namespace vmpack::convert {

class MetadataMerger {
public:
  /// Adds one input's pairs; fails naming the key and both inputs when a
  /// key has a different value in an earlier input.
  formats::Status addStrings(const formats::StringMetadata &metadata,
                             const std::string &path);
  formats::Status addGguf(const formats::GgufMetadata &metadata,
                          const std::string &path);

  const formats::GgufMetadata &merged() const { return all; }

private:
  formats::GgufMetadata all;
  std::map<std::string, std::pair<size_t, std::string>> owner;
};

} // namespace vmpack::convert

#endif // VMPACK_TOOLS_VMPACK_CONVERT_CONVERTMETADATA_H
