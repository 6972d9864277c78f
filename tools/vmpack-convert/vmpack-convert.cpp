//===- vmpack-convert.cpp - Convert between weight file formats -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-convert IN... -o OUT [--from=FORMAT] [--to=FORMAT]
//
// Reads every input (mapped, never copied into memory as a whole) and
// writes their tensors, in input order, to OUT in place through a temporary
// file and a rename. Bytes whose layout does not change are copied verbatim
// (copy_file_range where the kernel can); sub-byte tensors are repacked by
// the Pack layer. Formats come from the extensions (.vmpk, .safetensors,
// .gguf) unless --from/--to name them. docs/interop.md says what each
// format keeps.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/DequantSplit.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/WeightFile.h"

#include "ConvertMetadata.h"
#include "MlirFormat.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

/// A format of the formats layer, or MLIR.
struct Format {
  std::optional<FileFormat> file;
  std::optional<convert::MlirFormat> mlir;
  explicit operator bool() const { return file || mlir; }
};

Format parseFormat(std::string_view name) {
  return {parseFormatName(name), convert::parseMlirFormatName(name)};
}

Format formatOfPath(std::string_view path) {
  return {formatFromPath(path), convert::mlirFormatFromPath(path)};
}

const char *kFormatNames = "vmpk|safetensors|gguf|irpa|mlir|mlirbc";

const char *kUsage =
    "usage: vmpack-convert [options] IN... -o OUT\n"
    "\n"
    "Converts weight files between .vmpk, .safetensors, .gguf, .irpa and\n"
    "MLIR (.mlir, .mlirbc). The tensors of all inputs are written to OUT in\n"
    "input order; names must be unique.\n"
    "A sharded input is named by its first file or its index\n"
    "(NAME-00001-of-0000N.EXT or NAME.safetensors.index.json).\n"
    "\n"
    "options:\n"
    "  -o OUT              the output file (written via a temporary file)\n"
    "  --from=FORMAT       read every input as FORMAT (vmpk, safetensors,\n"
    "                      gguf, irpa, mlir, mlirbc) instead of by extension\n"
    "  --to=FORMAT         write OUT as FORMAT instead of by extension\n"
    "  --alignment=N       .vmpk segment alignment (default 64), GGUF\n"
    "                      general.alignment (default: the input's, else 32)\n"
    "                      or MLIR blob alignment (default 16)\n"
    "  --dense             MLIR: dense<...> values instead of dense_resource\n"
    "                      blobs\n"
    "  --module-name=NAME  the .vmpk module name (default: OUT's file name)\n"
    "  --max-shard-size=SIZE\n"
    "                      write OUT as numbered shards of at most SIZE bytes\n"
    "                      of tensor data each (K/M/G: powers of 1000,\n"
    "                      KiB/MiB/GiB: of 1024; a larger tensor goes alone):\n"
    "                      NAME-00001-of-0000N.safetensors + NAME.safetensors\n"
    "                      .index.json, NAME-00001-of-0000N.gguf with\n"
    "                      gguf-split's split.* keys, or NAME-0000K-of-0000N\n"
    "                      .vmpk modules with vmpack.shard.* metadata\n"
    "  --dequant-split     replace ggml Q4_0, Q4_1 and Q8_0 tensors NAME by\n"
    "                      NAME.q (i4, ui4 or i8), NAME.d (f16 scales) and,\n"
    "                      for Q4_1, NAME.m (f16 minimums)\n"
    "  -q, --quiet         print nothing on success\n"
    "  -h, --help          this text\n";

int error(const std::string &message) {
  std::fprintf(stderr, "vmpack-convert: error: %s\n", message.c_str());
  return 1;
}

void warning(const std::string &message) {
  std::fprintf(stderr, "vmpack-convert: warning: %s\n", message.c_str());
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

bool startsWith(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputs;
  std::string output, moduleName;
  Format from, to;
  std::optional<uint32_t> alignment;
  std::optional<uint64_t> maxShard;
  bool quiet = false;
  bool dequant = false;
  bool dense = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> std::optional<std::string> {
      std::string eq = std::string(flag) + "=";
      if (startsWith(arg, eq.c_str()))
        return arg.substr(eq.size());
      if (arg == flag && i + 1 < argc)
        return std::string(argv[++i]);
      return std::nullopt;
    };
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "-q" || arg == "--quiet") {
      quiet = true;
    } else if (arg == "--dense") {
      dense = true;
    } else if (arg == "--dequant-split") {
      dequant = true;
    } else if (arg == "-o") {
      if (i + 1 >= argc)
        return error("-o needs a file name");
      output = argv[++i];
    } else if (startsWith(arg, "--from") || startsWith(arg, "--to")) {
      bool isFrom = startsWith(arg, "--from");
      std::optional<std::string> v = value(isFrom ? "--from" : "--to");
      Format f = v ? parseFormat(*v) : Format();
      if (!f)
        return error("unknown format in '" + arg +
                     "' (vmpk, safetensors, gguf, irpa, mlir or mlirbc)");
      (isFrom ? from : to) = f;
    } else if (startsWith(arg, "--alignment")) {
      std::optional<std::string> v = value("--alignment");
      char *end = nullptr;
      unsigned long n = v ? std::strtoul(v->c_str(), &end, 10) : 0;
      if (!v || v->empty() || *end || n == 0 || n > (1ul << 30) ||
          (n & (n - 1)))
        return error("--alignment needs a power of two up to 2^30");
      alignment = uint32_t(n);
    } else if (startsWith(arg, "--max-shard-size")) {
      std::optional<std::string> v = value("--max-shard-size");
      maxShard = v ? parseShardSize(*v) : std::nullopt;
      if (!maxShard)
        return error("--max-shard-size needs a positive size such as 5G, "
                     "500MB, 2GiB or 1000000");
    } else if (startsWith(arg, "--module-name")) {
      std::optional<std::string> v = value("--module-name");
      if (!v)
        return error("--module-name needs a name");
      moduleName = *v;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return error("unknown option '" + arg + "'\n" + kUsage);
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty())
    return error(std::string("no input given\n") + kUsage);
  if (output.empty())
    return error("no output given (-o OUT)");
  if (!to)
    to = formatOfPath(output);
  if (!to)
    return error("cannot tell the format of '" + output +
                 "' from its extension; use --to=" + kFormatNames);
  if (dense && !to.mlir)
    return error("--dense applies to MLIR outputs (.mlir, .mlirbc) only");
  if (maxShard && (to.file == FileFormat::Irpa || to.mlir))
    return error(std::string("--max-shard-size: ") +
                 (to.mlir ? "MLIR has no sharding convention; write one "
                            "module per input instead"
                          : "IREE's .irpa has no sharding convention; write "
                            "one .irpa per input instead") +
                 " (shards are written for .safetensors, .gguf and .vmpk)");

  // Metadata: typed pairs in input order; GGUF keeps them as they are,
  // the string-keyed formats hold values that are not strings under
  // "vmpack.gguf." keys (docs/interop.md). Shards repeat their metadata:
  // equal values merge, different ones clash.
  convert::MetadataMerger merger;
  std::vector<std::unique_ptr<WeightFile>> files;
  std::vector<std::unique_ptr<convert::MlirInput>> mlirFiles;
  std::vector<TensorSource> tensors;
  std::map<std::string, std::string> owner; // tensor name -> input
  auto addSources = [&](std::vector<TensorSource> sources,
                        const std::string &path) -> Status {
    for (TensorSource &source : sources) {
      std::vector<TensorSource> parts;
      if (dequant && source.info.isOpaque() &&
          canDequantSplit(*source.info.ggmlBlockType))
        parts = dequantSplit(source);
      else
        parts.push_back(std::move(source));
      for (TensorSource &s : parts) {
        auto [it, added] = owner.emplace(s.info.name, path);
        if (!added)
          return Status::invalidArgument("tensor '" + s.info.name +
                                         "' is in both '" + it->second +
                                         "' and '" + path + "'");
        tensors.push_back(std::move(s));
      }
    }
    return Status::ok();
  };
  for (const std::string &path : inputs) {
    Format format = from ? from : formatOfPath(path);
    if (!format)
      return error("cannot tell the format of '" + path +
                   "' from its extension; use --from=" + kFormatNames);
    if (format.mlir) {
      StatusOr<std::unique_ptr<convert::MlirInput>> file =
          convert::openMlirInput(path);
      if (!file)
        return error(file.status().message());
      if (Status s = merger.addStrings((*file)->metadata, path); !s)
        return error(s.message());
      if (Status s = addSources(std::move((*file)->tensors), path); !s)
        return error(s.message());
      mlirFiles.push_back(std::move(*file));
      continue;
    }
    StatusOr<std::vector<std::unique_ptr<WeightFile>>> set =
        openWeightSet(path, *format.file);
    if (!set)
      return error(set.status().message());
    for (std::unique_ptr<WeightFile> &file : *set) {
      Status added = file->format == FileFormat::Gguf
                         ? merger.addGguf(file->ggufMetadata, file->path)
                         : merger.addStrings(file->stringMetadata, file->path);
      if (!added)
        return error(added.message());
      if (Status s = addSources(file->sources(), file->path); !s)
        return error(s.message());
      files.push_back(std::move(file));
    }
  }
  std::vector<std::string> writtenFiles;
  auto sharded = [&](StatusOr<std::vector<std::string>> files) {
    if (!files)
      return files.status();
    writtenFiles = std::move(*files);
    return Status::ok();
  };
  GgufMetadata gguf = merger.merged();
  StringMetadata strings;
  if (to.file != FileFormat::Gguf) {
    StatusOr<StringMetadata> asStrings = ggufToStringMetadata(gguf);
    if (!asStrings)
      return error(asStrings.status().message());
    strings = std::move(*asStrings);
  }
  size_t inputFiles = files.size() + mlirFiles.size();

  Status written = Status::ok();
  if (to.mlir) {
    convert::MlirOutputOptions options;
    options.format = *to.mlir;
    options.dense = dense;
    options.alignment = alignment ? *alignment : 16;
    options.moduleName = moduleName;
    written = convert::writeMlirOutput(output, tensors, strings, options);
  } else {
    switch (*to.file) {
    case FileFormat::Safetensors:
      written = maxShard ? sharded(writeShardedSafetensors(output, tensors,
                                                           strings, *maxShard))
                         : writeSafetensors(output, tensors, strings);
      break;
    case FileFormat::Gguf:
      if (alignment) {
        if (*alignment < 8)
          return error("GGUF alignment must be at least 8");
        for (auto it = gguf.begin(); it != gguf.end(); ++it)
          if (it->key == kGgufAlignmentKey) {
            gguf.erase(it);
            break;
          }
        gguf.push_back(
            {std::string(kGgufAlignmentKey), GgufValue::uint32(*alignment)});
      }
      written =
          maxShard ? sharded(writeShardedGguf(output, tensors, gguf, *maxShard))
                   : writeGguf(output, tensors, gguf);
      break;
    case FileFormat::Irpa:
      if (!gguf.empty())
        warning(std::to_string(gguf.size()) +
                " metadata entries have no .irpa form and are not written");
      written = writeIrpa(output, tensors);
      break;
    case FileFormat::Vmpk: {
      std::string name = moduleName.empty() ? baseName(output) : moduleName;
      uint32_t align =
          alignment ? *alignment : archive::kDefaultSegmentAlignment;
      written = maxShard ? sharded(writeShardedVmpk(output, tensors, strings,
                                                    name, align, *maxShard))
                         : writeVmpk(output, tensors, strings, name, align);
    } break;
    }
  }
  if (!written)
    return error(written.message());
  if (!quiet && !writtenFiles.empty()) {
    std::printf("wrote %zu file(s): %zu tensors from %zu file(s), %s\n",
                writtenFiles.size(), tensors.size(), inputFiles,
                formatName(*to.file));
    for (const std::string &file : writtenFiles)
      std::printf("  %s\n", file.c_str());
  } else if (!quiet) {
    std::printf(
        "wrote %s: %zu tensors from %zu file(s), %s\n", output.c_str(),
        tensors.size(), inputFiles,
        to.mlir ? (*to.mlir == convert::MlirFormat::Text ? "mlir" : "mlirbc")
                : formatName(*to.file));
  }
  return 0;
}
