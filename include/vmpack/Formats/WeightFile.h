//===- WeightFile.h - Any supported weight file, opened or written -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The formats vmpack converts between, chosen by file extension or by name,
// behind one interface: an input file is mapped read-only and described as
// tensors plus metadata; an output is written from TensorSources by the
// format's writer (in place, through a temporary file and a rename).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_WEIGHTFILE_H
#define VMPACK_FORMATS_WEIGHTFILE_H

#include "vmpack/Archive/MappedFile.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmpack::formats {

enum class FileFormat { Vmpk, Safetensors, Gguf, Irpa, Onnx };

/// "vmpk", "safetensors", "gguf", "irpa", "onnx".
const char *formatName(FileFormat format);
std::optional<FileFormat> parseFormatName(std::string_view name);
/// From the extension: .vmpk, .safetensors, .gguf, .irpa, and
/// .safetensors.index.json (a sharded safetensors set).
std::optional<FileFormat> formatFromPath(std::string_view path);

/// An input file, mapped for the object's lifetime.
struct WeightFile {
  std::string path;
  FileFormat format = FileFormat::Vmpk;
  std::unique_ptr<archive::MappedFile> map;
  /// Open read-only, for copy_file_range; -1 if unavailable.
  int fd = -1;
  std::vector<TensorInfo> tensors;
  /// safetensors __metadata__ (without vmpack.type.* records), or a .vmpk
  /// module's metadata.
  StringMetadata stringMetadata;
  /// GGUF key/value pairs (without vmpack.type.* records).
  GgufMetadata ggufMetadata;
  /// .irpa splat entries by name: their repeating pattern.
  std::map<std::string, std::vector<uint8_t>> splats;
  /// Where each tensor's bytes are when not at its offset in `map` (ONNX
  /// external data files, decoded typed fields): parallel to `tensors`, or
  /// empty.
  struct Bytes {
    const uint8_t *data = nullptr;
    int fd = -1;
    uint64_t fileOffset = 0;
  };
  std::vector<Bytes> locations;
  /// What keeps those bytes alive (mapped files, decoded buffers).
  std::vector<std::shared_ptr<void>> owned;

  WeightFile() = default;
  WeightFile(const WeightFile &) = delete;
  WeightFile &operator=(const WeightFile &) = delete;
  ~WeightFile();

  /// Where each tensor's bytes are, for a writer.
  std::vector<TensorSource> sources() const;
};

/// Maps and parses `path` as `format`. Errors name the file. ONNX models
/// are opened by openOnnx (vmpack/Formats/Onnx.h, library VmpackOnnx,
/// which links protobuf), not here.
StatusOr<std::unique_ptr<WeightFile>> openWeightFile(const std::string &path,
                                                     FileFormat format);

/// Writes a .vmpk module: one segment per tensor, in the order given, each
/// in the encoding its source has, aligned to `alignment`; `metadata` as
/// the module's string metadata; an empty program. A ggml block tensor
/// becomes a foreign segment (docs/format.md): ui8 bytes with its ggml type
/// and logical shape. Format version 2 only when metadata or a foreign
/// segment is present.
Status writeVmpk(const std::string &path,
                 const std::vector<TensorSource> &tensors,
                 const StringMetadata &metadata, const std::string &moduleName,
                 uint32_t alignment);

/// Writes an IREE parameter archive (.irpa, docs/irpa.md) with the IREE
/// builder's layout: one data entry per tensor, keyed by its name, 64-byte
/// aligned, holding the bytes IREE's VM expects for the constant (vmpack's
/// `word` encoding, i1 one byte per element; ggml blocks verbatim). .irpa
/// keeps no element types, shapes or metadata.
Status writeIrpa(const std::string &path,
                 const std::vector<TensorSource> &tensors);

/// The layout writeIrpa stores a tensor in.
Encoding irpaEncoding(const ElementType &type);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_WEIGHTFILE_H
