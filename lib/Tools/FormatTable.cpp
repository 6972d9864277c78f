//===- FormatTable.cpp - The files vmpack's tools read and write ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Tools/FormatTable.h"

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/IrpaFormat.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::tools;
using formats::FileFormat;

namespace {

FormatInfo weightRow(FileFormat f, const char *description) {
  std::string ext = std::string(".") + formats::formatName(f);
  std::vector<std::string> extensions{ext};
  // A Hugging Face shard index names its set (docs/interop.md).
  if (f == FileFormat::Safetensors)
    extensions.push_back(ext + ".index.json");
  return {fromFileFormat(f), formats::formatName(f), f, description, extensions,
          /*hasMagic=*/true, /*binary=*/true};
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// An ONNX ModelProto as protobuf writers serialize it (fields in number
/// order, onnx/onnx.proto): field 1, ir_version, a varint (key 0x08) of one
/// byte (IR versions are small), then the key of another ModelProto field
/// with its wire type: producer_name 2, producer_version 3, domain 4,
/// model_version 5 (a varint), doc_string 6, graph 7, opset_import 8,
/// metadata_props 14, training_info 20, functions 25, configuration 26.
/// A model without ir_version (which onnx.checker refuses) is found by its
/// extension only.
bool looksLikeOnnx(const uint8_t *head, size_t headSize) {
  if (headSize < 4 || head[0] != 0x08 || head[1] == 0 || head[1] >= 0x80)
    return false;
  switch (head[2]) {
  case 0x12: // 2 << 3 | 2
  case 0x1a:
  case 0x22:
  case 0x28: // 5 << 3 | 0
  case 0x32:
  case 0x3a:
  case 0x42:
  case 0x72: // 14 << 3 | 2
    return true;
  case 0xa2: // 20 << 3 | 2, two-byte key
  case 0xca: // 25
  case 0xd2: // 26
    return head[3] == 0x01;
  default:
    return false;
  }
}

} // namespace

Format vmpack::tools::fromFileFormat(FileFormat format) {
  switch (format) {
  case FileFormat::Vmpk:
    return Format::Vmpk;
  case FileFormat::Safetensors:
    return Format::Safetensors;
  case FileFormat::Gguf:
    return Format::Gguf;
  case FileFormat::Irpa:
    return Format::Irpa;
  case FileFormat::Onnx:
    return Format::Onnx;
  }
  return Format::Vmpk;
}

const std::vector<FormatInfo> &vmpack::tools::formatTable() {
  static const std::vector<FormatInfo> table = {
      weightRow(FileFormat::Vmpk, "a vmpack module archive"),
      weightRow(FileFormat::Irpa, "an IREE parameter archive"),
      weightRow(FileFormat::Safetensors, "a safetensors file"),
      weightRow(FileFormat::Gguf, "a GGUF file"),
      // A protobuf ModelProto has no magic bytes, but its first fields do
      // (formatFromContent).
      {Format::Onnx,
       "onnx",
       FileFormat::Onnx,
       "an ONNX model",
       {".onnx"},
       /*hasMagic=*/true,
       /*binary=*/true},
      {Format::Mlir,
       "mlir",
       std::nullopt,
       "MLIR text",
       {".mlir"},
       /*hasMagic=*/false,
       /*binary=*/false},
      {Format::Mlirbc,
       "mlirbc",
       std::nullopt,
       "MLIR bytecode",
       {".mlirbc"},
       /*hasMagic=*/true,
       /*binary=*/true},
  };
  return table;
}

const FormatInfo &vmpack::tools::formatInfo(Format format) {
  for (const FormatInfo &row : formatTable())
    if (row.format == format)
      return row;
  return formatTable().front();
}

const char *vmpack::tools::formatName(Format format) {
  return formatInfo(format).name;
}

std::optional<Format> vmpack::tools::parseFormat(std::string_view name) {
  for (const FormatInfo &row : formatTable())
    if (name == row.name)
      return row.format;
  return std::nullopt;
}

std::optional<Format>
vmpack::tools::formatFromExtension(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view file =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::optional<Format> best;
  size_t bestLength = 0;
  for (const FormatInfo &row : formatTable())
    for (const std::string &ext : row.extensions)
      if (file.size() > ext.size() && endsWith(file, ext) &&
          ext.size() > bestLength) {
        best = row.format;
        bestLength = ext.size();
      }
  return best;
}

std::optional<Format> vmpack::tools::formatFromContent(const uint8_t *head,
                                                       size_t headSize,
                                                       const uint8_t *tail,
                                                       size_t tailSize,
                                                       uint64_t size) {
  auto starts = [&](const char *magic, size_t n) {
    return headSize >= n && std::memcmp(head, magic, n) == 0;
  };
  if (starts("GGUF", 4))
    return Format::Gguf;
  if (formats::irpa::hasMagic(head, headSize))
    return Format::Irpa;
  // MLIR's bytecode magic (mlir/lib/Bytecode/Writer: "ML\xefR").
  if (starts("ML\xef"
             "R",
             4))
    return Format::Mlirbc;
  // A module archive ends with its trailer, the EOCD comment
  // (docs/format.md section 5), and is a ZIP: a local file header first.
  if (tailSize >= archive::kTrailerLength &&
      std::memcmp(tail + tailSize - archive::kTrailerLength, "vmpack ", 7) == 0)
    return Format::Vmpk;
  if (starts("PK\x03\x04", 4))
    return Format::Vmpk;
  // safetensors: a little-endian u64 header length, then a JSON object.
  if (headSize > 8 && head[8] == '{') {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
      n = n << 8 | head[i];
    if (n <= size - 8)
      return Format::Safetensors;
  }
  if (looksLikeOnnx(head, headSize))
    return Format::Onnx;
  return std::nullopt;
}

StatusOr<std::optional<Format>>
vmpack::tools::sniffFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::ioError("cannot open '" + path +
                           "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    return Status::ioError("'" + path + "' is " +
                           (dir ? "a directory" : "not a regular file"));
  }
  uint8_t head[16], tail[archive::kTrailerLength];
  ssize_t h = ::pread(fd, head, sizeof(head), 0);
  uint64_t size = uint64_t(st.st_size);
  size_t tailSize = size_t(std::min<uint64_t>(size, sizeof(tail)));
  ssize_t t = ::pread(fd, tail, tailSize, off_t(size - tailSize));
  ::close(fd);
  if (h < 0 || t < 0)
    return Status::ioError("cannot read '" + path +
                           "': " + std::strerror(errno));
  return formatFromContent(head, size_t(h), tail, size_t(t), size);
}

const std::vector<ToolInfo> &vmpack::tools::toolTable() {
  using F = Format;
  static const std::vector<ToolInfo> table = {
      {Tool::Compile,
       "vmpack-compile",
       "compiles MLIR into a module",
       {F::Mlir, F::Mlirbc},
       {F::Vmpk, F::Irpa, F::Safetensors, F::Gguf}},
      {Tool::Convert,
       "vmpack-convert",
       "converts between formats",
       {F::Vmpk, F::Irpa, F::Safetensors, F::Gguf, F::Onnx, F::Mlir, F::Mlirbc},
       {F::Vmpk, F::Irpa, F::Safetensors, F::Gguf, F::Onnx, F::Mlir,
        F::Mlirbc}},
      {Tool::Dump,
       "vmpack-dump",
       "shows, verifies and extracts",
       {F::Vmpk, F::Irpa, F::Safetensors, F::Gguf, F::Onnx},
       {F::Mlir, F::Mlirbc}},
      {Tool::Opt,
       "vmpack-opt",
       "runs MLIR passes",
       {F::Mlir, F::Mlirbc},
       {F::Mlir, F::Mlirbc}},
      {Tool::Gen,
       "vmpack-gen",
       "writes example models",
       {},
       {F::Mlir, F::Mlirbc}},
  };
  return table;
}

const ToolInfo &vmpack::tools::toolInfo(Tool tool) {
  for (const ToolInfo &row : toolTable())
    if (row.tool == tool)
      return row;
  return toolTable().front();
}

std::string vmpack::tools::formatList(const std::vector<Format> &formats,
                                      const char *conjunction) {
  std::string out;
  for (size_t i = 0; i < formats.size(); ++i) {
    if (i)
      out += i + 1 == formats.size() ? std::string(" ") + conjunction + " "
                                     : std::string(", ");
    out += formatName(formats[i]);
  }
  return out;
}

std::string vmpack::tools::formatChoices(const std::vector<Format> &formats) {
  std::string out;
  for (Format f : formats)
    out += (out.empty() ? "" : "|") + std::string(formatName(f));
  return out;
}

std::string vmpack::tools::toolsReading(Format format, Tool except) {
  std::vector<const ToolInfo *> tools;
  for (const ToolInfo &row : toolTable())
    if (row.tool != except)
      for (Format f : row.reads)
        if (f == format)
          tools.push_back(&row);
  std::string out;
  for (size_t i = 0; i < tools.size(); ++i) {
    if (i)
      out += i + 1 == tools.size() ? " or " : ", ";
    out += std::string(tools[i]->name) + " (" + tools[i]->purpose + ")";
  }
  return out;
}

namespace {

bool reads(const ToolInfo &tool, Format format) {
  for (Format f : tool.reads)
    if (f == format)
      return true;
  return false;
}

Status notRead(const std::string &path, Format format, Tool tool) {
  const ToolInfo &info = toolInfo(tool);
  std::string takers = toolsReading(format, tool);
  return Status::unsupported(
      "'" + path + "' is " + formatInfo(format).description + " (" +
      formatName(format) + "), which " + info.name +
      " does not read (it reads " + formatList(info.reads) + ")" +
      (takers.empty() ? std::string() : "; " + takers + " takes it"));
}

} // namespace

StatusOr<Format> vmpack::tools::inputFormat(const std::string &path, Tool tool,
                                            std::optional<Format> forced) {
  const ToolInfo &info = toolInfo(tool);
  if (forced) {
    if (!reads(info, *forced))
      return notRead(path, *forced, tool);
    return *forced;
  }
  StatusOr<std::optional<Format>> sniffed = sniffFile(path);
  if (!sniffed)
    return sniffed.status();
  std::optional<Format> format = *sniffed;
  if (!format)
    format = formatFromExtension(path);
  // A tool that reads MLIR alone takes any other file as MLIR text (which
  // has no magic): its parser says, with a location, what is wrong.
  bool onlyMlir =
      std::all_of(info.reads.begin(), info.reads.end(), [](Format f) {
        return f == Format::Mlir || f == Format::Mlirbc;
      });
  if (!format && onlyMlir && !info.reads.empty())
    format = Format::Mlir;
  if (!format)
    return Status::formatError(
        "cannot tell the format of '" + path +
        "': its first bytes are none of " + formatList(info.reads) +
        " and its name has no extension of them" +
        (tool == Tool::Convert ? "; name the format with --from=FORMAT" : ""));
  if (!reads(info, *format))
    return notRead(path, *format, tool);
  return *format;
}

StatusOr<Format>
vmpack::tools::outputFormat(const std::string &path,
                            const std::optional<std::string> &named,
                            const char *flag, Tool tool) {
  const ToolInfo &info = toolInfo(tool);
  auto writes = [&](Format f) {
    for (Format w : info.writes)
      if (w == f)
        return true;
    return false;
  };
  if (named) {
    std::optional<Format> f = parseFormat(*named);
    if (!f || !writes(*f))
      return Status::invalidArgument(std::string(flag) + "=" + *named + ": " +
                                     info.name + " writes " +
                                     formatList(info.writes));
    return *f;
  }
  if (isStdout(path))
    return Status::invalidArgument(
        std::string("-o - (standard output) has no extension: name the "
                    "format with ") +
        flag + "=" + formatChoices(info.writes));
  std::optional<Format> f = formatFromExtension(path);
  if (!f || !writes(*f)) {
    std::string exts;
    for (Format w : info.writes)
      exts += (exts.empty() ? "" : ", ") + formatInfo(w).extensions.front();
    return Status::invalidArgument(
        "'" + path + "': " +
        (f ? std::string("its extension names ") + formatInfo(*f).description +
                 ", which " + info.name + " does not write"
           : std::string("its extension names no format ") + info.name +
                 " writes") +
        "; it writes " + exts + " (or name the format with " + flag + "=" +
        formatChoices(info.writes) + ")");
  }
  return *f;
}
