//===- Gguf.h - Reading and writing GGUF files ---------------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// GGUF as ggml-org/ggml docs/gguf.md ("File Structure") defines it, version
// 3 (version 2, identical in layout, is read too): a header with tensor and
// key/value counts, typed key/value metadata, tensor infos (name, dimensions
// innermost first, ggml type, offset), padding to `general.alignment`
// (default 32), then the tensor data, each tensor aligned.
//
// Plain ggml types map to MLIR element types through the interop table
// (TypeTable.h); block-quantized types are carried as opaque blocks with
// their ggml type, shape and name. The reader treats every byte as hostile
// and never reads outside the input; ggml types 4 and 5 (removed from ggml,
// no defined block size) are rejected by name. docs/interop.md specifies
// what vmpack writes.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_GGUF_H
#define VMPACK_FORMATS_GGUF_H

#include "vmpack/Formats/Tensor.h"

#include <string>
#include <string_view>
#include <vector>

namespace vmpack::formats {

/// gguf_metadata_value_type (docs/gguf.md). Stored in files: never renumber.
enum class GgufType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

/// Bytes of one scalar of a metadata value type (ggml's gguf_type_size);
/// 0 for String and Array. The reader, the writer and the text form of
/// values (GgufValueText.h) all size values by it.
unsigned ggufScalarBytes(GgufType type);
/// True for the signed integer types (Int8, Int16, Int32, Int64).
bool ggufIsSigned(GgufType type);

/// One metadata value. Numbers and booleans keep their exact bits in
/// `scalars` (one entry, or one per array element); strings are in
/// `strings`. Arrays of arrays are not allowed (ggml's reader rejects them).
struct GgufValue {
  GgufType type = GgufType::UInt32;
  /// For Array: the element type (never Array).
  GgufType elementType = GgufType::UInt32;
  std::vector<uint64_t> scalars;
  std::vector<std::string> strings;

  static GgufValue uint32(uint32_t v);
  static GgufValue string(std::string v);
  bool operator==(const GgufValue &o) const {
    return type == o.type &&
           (type != GgufType::Array || elementType == o.elementType) &&
           scalars == o.scalars && strings == o.strings;
  }
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
  bool operator==(const GgufKeyValue &o) const {
    return key == o.key && value == o.value;
  }
};

using GgufMetadata = std::vector<GgufKeyValue>;

/// Key prefix of vmpack's logical-type records, as in safetensors:
/// "vmpack.type.NAME" is a string holding the MLIR tensor type of NAME.
inline constexpr std::string_view kGgufTypeKeyPrefix = "vmpack.type.";
inline constexpr std::string_view kGgufAlignmentKey = "general.alignment";
inline constexpr uint32_t kGgufDefaultAlignment = 32;
/// The longest tensor name vmpack writes: ggml's reader rejects names of
/// GGML_MAX_NAME (64) bytes or more.
inline constexpr size_t kGgufMaxWrittenNameBytes = 63;

struct GgufLimits {
  uint64_t maxKeyValues = 1u << 20;
  uint64_t maxTensors = 1u << 22;
  /// Elements in one metadata array (a tokenizer's vocabulary is ~256k).
  uint64_t maxArrayElements = 1u << 24;
  /// docs/gguf.md: keys at most 65535 bytes, tensor names at most 64.
  uint64_t maxKeyBytes = 65535;
  uint64_t maxNameBytes = 64;
  /// GGML_MAX_DIMS.
  uint32_t maxRank = 4;
};

struct GgufFile {
  uint32_t version = 3;
  /// In file order, vmpack.type.* records removed once applied.
  GgufMetadata metadata;
  /// In file (tensor info) order; offsets are absolute.
  std::vector<TensorInfo> tensors;
  uint32_t alignment = kGgufDefaultAlignment;
  /// Absolute offset of the tensor data section.
  uint64_t dataStart = 0;
};

/// Parses a whole GGUF file held in [data, data + size).
StatusOr<GgufFile> readGguf(const uint8_t *data, size_t size,
                            const GgufLimits &limits = {});

/// Writes GGUF version 3 to `path` via a temporary file and a rename:
/// `metadata` in order (general.alignment, if present, must be a uint32
/// power of two and multiple of 8 and sets the alignment; otherwise 32),
/// then vmpack.type.* records; tensors in the order given, each at the next
/// aligned offset, the file padded with zeros to the alignment, as ggml's
/// gguf writer lays it out. With a group, the rename is left to it.
class OutputGroup;
Status writeGguf(const std::string &path,
                 const std::vector<TensorSource> &tensors,
                 const GgufMetadata &metadata, OutputGroup *group = nullptr);

/// The bytes writeGguf stores for `tensor` (before alignment padding), or
/// the error it would report.
StatusOr<uint64_t> ggufStoredBytes(const TensorInfo &tensor);

/// The size in bytes of a ggml type's tensor of `shape` (MLIR order), or an
/// error naming what is wrong (unknown type, row not a whole number of
/// blocks, overflow).
StatusOr<uint64_t> ggmlTensorBytes(uint32_t ggmlType,
                                   const std::vector<int64_t> &shape);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_GGUF_H
