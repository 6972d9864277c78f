//===- FormatTable.h - The files vmpack's tools read and write ----*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The one table of file formats, their names, extensions and magic bytes,
// and of which tool reads and writes which, shared by every tool and by
// Python. The weight-file rows take their names and extensions from the
// formats layer (formats::formatName, formats::formatFromPath); the table
// adds the MLIR files and what the formats layer does not need to know:
// content detection, the tools that take each format, and how an output's
// format is chosen. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_FORMATTABLE_H
#define VMPACK_TOOLS_FORMATTABLE_H

#include "vmpack/Archive/Status.h"
#include "vmpack/Formats/WeightFile.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmpack::tools {

using archive::Status;
using archive::StatusOr;

enum class Format { Vmpk, Safetensors, Gguf, Irpa, Onnx, Mlir, Mlirbc };

struct FormatInfo {
  Format format;
  /// The name --format, --to and --from take: "vmpk", "safetensors",
  /// "gguf", "irpa", "onnx" (formats::formatName), "mlir", "mlirbc".
  const char *name;
  /// The formats layer's format, for the weight files.
  std::optional<formats::FileFormat> fileFormat;
  /// For messages: "a vmpack module archive", "MLIR bytecode".
  const char *description;
  /// The extensions that name it; the first is the one outputs get.
  std::vector<std::string> extensions;
  /// True when the first or last bytes tell the format (for ONNX, a
  /// protobuf message, its first fields: formatFromContent); false for
  /// MLIR text, which only its extension names.
  bool hasMagic;
  /// True for binary formats, which are never written to a terminal.
  bool binary;
};

/// Every row, in the order messages list them.
const std::vector<FormatInfo> &formatTable();
const FormatInfo &formatInfo(Format format);
const char *formatName(Format format);
std::optional<Format> parseFormat(std::string_view name);
Format fromFileFormat(formats::FileFormat format);
/// By extension, the longest that matches (x.safetensors.index.json is
/// safetensors); nullopt when none does.
std::optional<Format> formatFromExtension(std::string_view path);

/// The format the bytes show: `head` is the file's first bytes (at least
/// 16 when the file has them), `tail` its last 66 (or fewer), `size` the
/// file's size. nullopt when no magic matches.
std::optional<Format> formatFromContent(const uint8_t *head, size_t headSize,
                                        const uint8_t *tail, size_t tailSize,
                                        uint64_t size);
/// Reads the first and last bytes of `path` and applies formatFromContent.
/// Errors (the file cannot be opened) name the file.
StatusOr<std::optional<Format>> sniffFile(const std::string &path);

enum class Tool { Compile, Convert, Dump, Opt, Gen };

struct ToolInfo {
  Tool tool;
  const char *name;
  /// What it does, for "vmpack-X takes it" messages.
  const char *purpose;
  std::vector<Format> reads;
  /// The formats its -o can name.
  std::vector<Format> writes;
};
const ToolInfo &toolInfo(Tool tool);
const std::vector<ToolInfo> &toolTable();

/// "vmpk, irpa, safetensors or gguf" (`conjunction` between the last two).
std::string formatList(const std::vector<Format> &formats,
                       const char *conjunction = "or");
/// "vmpk|irpa|safetensors|gguf", for a flag's value.
std::string formatChoices(const std::vector<Format> &formats);
/// "vmpack-convert (between weight formats) or vmpack-dump (...)": the
/// tools other than `except` that read `format`.
std::string toolsReading(Format format, Tool except);

/// The format of an input of `tool`. `forced` (--from) wins; then the
/// content; then, when no magic matches, the extension (for MLIR text, and
/// so that a damaged file of a named format gets that reader's message;
/// a tool that reads MLIR alone takes any other file as MLIR text).
/// A format the tool does not read is an error that names the format and
/// the tools that take it; so is a file nothing identifies.
StatusOr<Format> inputFormat(const std::string &path, Tool tool,
                             std::optional<Format> forced = std::nullopt);

/// The format of output `path` of `tool`: `named` (from --format or --to,
/// spelled `flag` in messages) when given, else the extension. Errors
/// (InvalidArgument: a usage error) list what the tool writes.
StatusOr<Format> outputFormat(const std::string &path,
                              const std::optional<std::string> &named,
                              const char *flag, Tool tool);

/// True for the output name "-": standard output.
inline bool isStdout(std::string_view path) { return path == "-"; }

} // namespace vmpack::tools

#endif // VMPACK_TOOLS_FORMATTABLE_H
