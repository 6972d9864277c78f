//===- Safetensors.h - Reading and writing safetensors files ------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The safetensors layout (huggingface/safetensors, safetensors/src/tensor.rs
// and its README's "Format" section): an 8-byte little-endian header length
// N, N bytes of a UTF-8 JSON object, then the data buffer. Each tensor entry
// gives a dtype, a shape and [begin, end) offsets into the buffer; the
// optional "__metadata__" entry maps strings to strings.
//
// The reader treats every byte as hostile: the header length and JSON
// nesting are bounded, duplicate keys, unknown dtypes and fields, shapes
// whose product overflows, lengths that do not match the shape, and offsets
// that overlap, leave holes or run past the file are rejected with a message
// that names the tensor. docs/interop.md specifies what vmpack writes,
// including the "vmpack.type.NAME" metadata keys that record logical types
// safetensors has no dtype for (sub-byte integers, among others).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_SAFETENSORS_H
#define VMPACK_FORMATS_SAFETENSORS_H

#include "vmpack/Formats/Tensor.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmpack::formats {

/// String key/value metadata, in file order.
using StringMetadata = std::vector<std::pair<std::string, std::string>>;

/// __metadata__ key prefix: "vmpack.type.NAME" holds the MLIR tensor type
/// (e.g. "tensor<64x128xi4>") of tensor NAME when its dtype does not say it.
inline constexpr std::string_view kSafetensorsTypeKeyPrefix = "vmpack.type.";

struct SafetensorsLimits {
  /// The reference implementation's MAX_HEADER_SIZE.
  uint64_t maxHeaderBytes = 100'000'000;
  /// The header is object -> tensor object -> shape array: depth 3.
  unsigned maxDepth = 3;
  unsigned maxRank = 64;
};

struct SafetensorsFile {
  /// In data order (ascending offset). Offsets are absolute.
  std::vector<TensorInfo> tensors;
  /// __metadata__ without the vmpack.type.* keys the reader applied.
  StringMetadata metadata;
  /// N: the JSON header's length in bytes.
  uint64_t headerBytes = 0;
};

/// Parses a whole safetensors file held in [data, data + size).
StatusOr<SafetensorsFile> readSafetensors(const uint8_t *data, size_t size,
                                          const SafetensorsLimits &limits = {});

class OutputGroup;

/// Writes `tensors` (in the order given) and `metadata` to `path` via a
/// temporary file and a rename (left to `group` when one is given). The
/// header is padded with spaces to a multiple of 8 bytes, as the reference
/// writer does.
Status writeSafetensors(const std::string &path,
                        const std::vector<TensorSource> &tensors,
                        const StringMetadata &metadata,
                        OutputGroup *group = nullptr);

/// The bytes writeSafetensors stores for `tensor` in the data buffer, or
/// the error it would report.
StatusOr<uint64_t> safetensorsStoredBytes(const TensorInfo &tensor);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_SAFETENSORS_H
