//===- DumpOutput.h - Text and file output of vmpack-dump -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vmpack::dump {

/// `s` as a JSON string literal in ASCII: names are arbitrary bytes.
std::string jsonString(const std::string &s);

/// Prints "vmpack-dump: error: MESSAGE" to stderr; returns 1.
int error(const std::string &message);

/// Writes `size` bytes to `path` through a temporary file beside it that
/// is renamed over `path` only when complete (never over an input), or
/// for "-" to standard output (refused when it is a terminal). `produce(offset,
/// buffer, n)` fills `n` bytes of the output starting at `offset`.
archive::Status writeOutputFile(
    const std::string &path, uint64_t size,
    const std::function<void(uint64_t, uint8_t *, size_t)> &produce);

/// A ggml type: "ggml Q4_0 (2)", "ggml type (99)" when this build does
/// not know it.
std::string ggmlTypeText(uint32_t type);

/// A quantized ggml type's scheme, as a line (quant::describe: "ggml.q4_K:
/// ui4 codes, groups of 32, scales f16 x ui6 (super-block 256), ..."), or
/// "" for a plain or unknown type.
std::string quantSchemeText(uint32_t ggmlType);

/// The same as a JSON object: {"scheme", "code_type", "group_size",
/// "scale_type" (the stored levels, outermost first, " x "-joined),
/// "offsets", "block_size", "shape" (logical), "description", "parts"}, or
/// "null".
std::string quantSchemeJson(uint32_t ggmlType,
                            const std::vector<int64_t> &shape);

/// The same object for any scheme: `blockSize` values per stored block
/// (the group when the format has no blocks of its own), `shape` the
/// logical shape, `description` the table's line, `parts` the tensors the
/// weight is made of as a JSON object (part -> name), "null" for ggml
/// blocks, which are one tensor.
std::string quantJson(const quant::QuantScheme &scheme, uint64_t blockSize,
                      const std::vector<int64_t> &shape,
                      const std::string &description,
                      const std::string &parts = "null");

/// "[3, 128]".
std::string shapeList(const std::vector<int64_t> &shape);

/// One tensor of `vmpack-dump --json` (docs/dump-json.md): the fields
/// every format has, each empty (JSON null) where the format has no value.
struct JsonTensor {
  std::string name;
  /// The stored tensor as an MLIR type, its element type, and the logical
  /// shape of its values (a ggml block tensor's dequantized shape).
  std::optional<std::string> type, elementType;
  std::optional<std::vector<int64_t>> shape;
  std::optional<std::string> encoding;
  /// Index into "files".
  size_t file = 0;
  std::optional<uint64_t> offset;
  uint64_t length = 0;
  std::optional<uint64_t> alignment;
  std::optional<uint32_t> checksum;
  /// A ggml block type (ggml_type value): "ggml_type" and "quant".
  std::optional<uint32_t> ggmlType;
  /// "quant" (quantJson) of a quantized weight that is not ggml blocks:
  /// ONNX MatMulNBits and DequantizeLinear codes, planar sets' codes.
  std::optional<std::string> quant;
  /// The per-format object, as JSON text.
  std::string extra = "null";
};

/// An alias: a name and type of its own over another tensor's bytes.
struct JsonAlias {
  std::string name;
  std::optional<std::string> type, elementType;
  std::optional<std::vector<int64_t>> shape;
  std::string target;
  std::string extra = "null";
};

/// One file read: its path, size, how many tensors it stores.
struct JsonFile {
  std::string path;
  uint64_t size = 0;
  size_t tensors = 0;
  std::string extra = "null";
};

/// Everything `vmpack-dump --json` prints, in one shape for every format.
struct JsonDocument {
  /// FormatInfo::name: "vmpk", "safetensors", "gguf", "irpa".
  std::string format;
  std::vector<JsonFile> files;
  std::vector<JsonTensor> tensors;
  std::vector<JsonAlias> aliases;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string extra = "null";
  /// What vmpack-dump noticed that is not an error (a planar set that does
  /// not hold, an ONNX node whose weights could not be read).
  std::vector<std::string> notes;
};

/// Prints `doc` to stdout as docs/vmpack-dump.schema.json describes it:
/// one line per file, tensor, alias and metadata pair.
void printJsonDocument(const JsonDocument &doc);

/// `fields` (names and already-encoded JSON values) as one JSON object:
/// {"offset": 64, "length": 256}.
std::string
jsonObject(const std::vector<std::pair<const char *, std::string>> &fields);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H
