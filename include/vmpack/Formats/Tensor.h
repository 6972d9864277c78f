//===- Tensor.h - One tensor of a weight file, in any format ------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The description every reader in the formats layer produces and every
// writer consumes: a name, a logical type and shape, how the stored bytes
// lay the elements out, and where those bytes are. A tensor whose elements
// vmpack cannot describe (a ggml block-quantized type) carries its foreign
// type instead and is moved as opaque bytes.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_TENSOR_H
#define VMPACK_FORMATS_TENSOR_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vmpack::formats {

using archive::Status;
using archive::StatusOr;

struct TensorInfo {
  std::string name;
  /// The logical element type; meaningless when ggmlType is a block type.
  ElementType elementType;
  /// Outermost dimension first, as in MLIR (GGUF stores the reverse).
  std::vector<int64_t> shape;
  /// How the stored bytes lay the elements out (docs/packing.md).
  Encoding encoding = Encoding::Byte;
  /// A ggml block-quantized type (ggml_type value), carried as opaque
  /// blocks; nullopt for element types vmpack describes itself.
  std::optional<uint32_t> ggmlBlockType;
  /// Absolute offset in the file and length of the stored bytes.
  uint64_t offset = 0;
  uint64_t length = 0;

  bool isOpaque() const { return ggmlBlockType.has_value(); }
};

/// A tensor to write: its description (offset ignored) and where its bytes
/// are now. `data` must hold info.length bytes. When `fd` is an open file
/// holding the same bytes at `fileOffset`, writers may copy them in the
/// kernel (copy_file_range) instead of through memory.
///
/// Bytes that exist nowhere yet (computed tensors) come from `produce`
/// instead of `data`: it fills `out` with stored bytes [first, first + n)
/// in info.encoding. Writers call it in bounded chunks, so memory does not
/// grow with the tensor.
struct TensorSource {
  TensorInfo info;
  const uint8_t *data = nullptr;
  int fd = -1;
  uint64_t fileOffset = 0;
  std::function<void(uint64_t first, uint64_t n, uint8_t *out)> produce;
};

/// How many bytes writers ask `produce` for at a time (the last chunk of a
/// tensor may be shorter). Small enough that the chunk just computed is
/// still in the core's L2 cache when pwrite copies it into the page cache:
/// 4 MiB chunks made a 7B GPTQ -> Q4_0 GGUF conversion 3x slower on ext4
/// (docs/performance.md).
constexpr uint64_t kProduceChunkBytes = uint64_t(256) << 10;

/// Product of `shape`, or nullopt if a dimension is negative or the product
/// does not fit in 63 bits.
/// A name for a message: quoted, every byte outside printable ASCII as
/// \xNN (names come from untrusted files), at most 200 bytes then "...".
std::string quoteName(std::string_view name);

std::optional<uint64_t> numElements(const std::vector<int64_t> &shape);

/// The exact stored size of a non-opaque tensor in `encoding`, or nullopt
/// on overflow or an encoding that is not defined for the type.
std::optional<uint64_t> storedSize(const ElementType &type,
                                   const std::vector<int64_t> &shape,
                                   Encoding encoding);

/// "tensor<3x4xi4>": MLIR's spelling of a ranked tensor type.
/// How a format stores a tensor whose MLIR type it records in a
/// "vmpack.type.NAME" metadata entry (docs/interop.md): either under the
/// format's own type for it (an alias: si8 stored as I8), or as a dense bit
/// stream in a 1-D tensor of bytes.
struct LogicalTypeRule {
  /// The element type the format stores `type` as, and that stored type's
  /// name for messages ("dtype I8", "ggml type i8"); nullopt when the format
  /// has no type for it.
  std::function<std::optional<std::pair<ElementType, std::string>>(
      const ElementType &type)>
      nativeType;
  /// The 1-D byte tensor's element type and its name ("U8", "I8").
  ElementType byteType;
  const char *byteTypeName = "";
  /// The highest rank the format stores.
  size_t maxRank = SIZE_MAX;
};

/// Applies the record `value` (an MLIR tensor type) to `info`, as `rule`
/// allows; `where` names the record in messages.
Status applyTypeRecord(TensorInfo &info, const std::string &value,
                       const std::string &where, const LogicalTypeRule &rule);

std::string tensorTypeString(const ElementType &type,
                             const std::vector<int64_t> &shape);
/// Parses tensorTypeString's output (static shapes only).
std::optional<std::pair<ElementType, std::vector<int64_t>>>
parseTensorTypeString(std::string_view text);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_TENSOR_H
