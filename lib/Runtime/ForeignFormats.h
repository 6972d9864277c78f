//===- ForeignFormats.h - safetensors and GGUF files for the C API -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The runtime opens safetensors and GGUF files as it opens module archives:
// recognised by their first bytes, parsed by the hardened readers of the
// formats layer (lib/Formats), and described to the C API as typed
// segments plus string metadata. Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_RUNTIME_FOREIGNFORMATS_H
#define VMPACK_LIB_RUNTIME_FOREIGNFORMATS_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/Tensor.h"
#include "vmpack/vmpack.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vmpack::runtime {

using archive::Status;
using archive::StatusOr;

/// One metadata key/value pair as the C API hands it out: the value as
/// text, and the name of the type it had in the file.
struct MetadataEntry {
  std::string key;
  std::string value;
  std::string type;
};

/// The ggml type of a foreign segment as the C API spells it
/// ("ggml.Q4_0"), or nullopt for a number ggml does not define.
std::optional<std::string> ggmlForeignTypeName(uint32_t ggmlType);

/// A GGUF value as the C API gives it (vmpack.h, vmpack_metadata_entry_t):
/// a string as it is; any other value as the JSON part of the formats
/// layer's text form (formats::ggufValueJson: integers in decimal, floats
/// as the shortest decimal that reads back to the same bits, NaN and
/// infinities as a string "0x..." of their bits, true/false, flat arrays
/// of those or of JSON strings), the one form vmpack uses for GGUF values
/// wherever they become text. Type names are formats::ggufTypeName's.
StatusOr<std::string> ggufValueText(const formats::GgufValue &value);

enum class ForeignContainer { Safetensors, Gguf };

/// Which foreign format [data, data + size) is by its first bytes:
/// "GGUF" for GGUF; for safetensors, an 8-byte length followed by '{' (the
/// reference reader requires the header to start so).
std::optional<ForeignContainer> sniffForeign(const uint8_t *data, size_t size);
/// The format a path's extension names (.safetensors, .gguf), if any.
std::optional<ForeignContainer> foreignFromPath(std::string_view path);

/// A parsed safetensors or GGUF file over bytes it does not own.
class ForeignFile {
public:
  /// Parses [data, data + size) as `container`: every offset checked by the
  /// formats layer's readers. Errors name what is wrong.
  static StatusOr<std::unique_ptr<ForeignFile>>
  open(ForeignContainer container, const uint8_t *data, size_t size);

  ForeignContainer container() const { return kind; }
  /// GGUF: the file's version; safetensors: 0 (the format has none).
  uint32_t version() const { return formatVersion; }

  size_t numTensors() const { return tensors.size(); }
  /// The segment view of tensor `i`: a ggml block tensor is ui8 bytes of
  /// shape [length] in the byte encoding, as a foreign .vmpk segment is.
  const formats::TensorInfo &tensor(size_t i) const { return tensors[i]; }
  const std::string &mlirType(size_t i) const { return mlirTypes[i]; }
  const std::string &elementTypeName(size_t i) const {
    return elementTypeNames[i];
  }
  uint64_t numElements(size_t i) const { return elementCounts[i]; }
  /// The largest power of two, at most 4096, that divides the offset
  /// (safetensors), or general.alignment (GGUF).
  uint32_t alignment(size_t i) const;
  const uint8_t *tensorData(size_t i) const { return base + tensors[i].offset; }
  /// A ggml block tensor's type name and logical shape; "" and empty
  /// otherwise.
  const std::string &foreignType(size_t i) const { return foreignTypes[i]; }
  const std::vector<int64_t> &foreignShape(size_t i) const {
    return foreignShapes[i];
  }

  std::optional<size_t> find(std::string_view name) const;

  const std::vector<MetadataEntry> &metadata() const { return entries; }

  /// GGUF: the file's place in a gguf-split set of more than one file
  /// (formats::ggufSplitPosition); nullopt otherwise.
  const std::optional<formats::SetPosition> &splitPosition() const {
    return split;
  }

private:
  ForeignFile() = default;
  Status describe();

  ForeignContainer kind = ForeignContainer::Safetensors;
  const uint8_t *base = nullptr;
  uint32_t formatVersion = 0;
  uint32_t fileAlignment = 0;
  std::vector<formats::TensorInfo> tensors;
  std::vector<std::string> mlirTypes;
  std::vector<std::string> elementTypeNames;
  std::vector<uint64_t> elementCounts;
  std::vector<std::string> foreignTypes;
  std::vector<std::vector<int64_t>> foreignShapes;
  std::unordered_map<std::string_view, size_t> byName;
  std::vector<MetadataEntry> entries;
  std::optional<formats::SetPosition> split;
};

/// Fills the C API's record of tensor `index` (see vmpack.h: typed, no
/// checksum, no source).
void fillSegmentInfo(const ForeignFile &file, size_t index,
                     vmpack_segment_info_t &info);

} // namespace vmpack::runtime

#endif // VMPACK_LIB_RUNTIME_FOREIGNFORMATS_H
