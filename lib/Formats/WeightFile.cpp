//===- WeightFile.cpp - Any supported weight file, opened or written ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Formats/WeightFile.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/ArchiveWriter.h"
#include "vmpack/Formats/IrpaReader.h"
#include "vmpack/Formats/IrpaWriter.h"
#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/TypeTable.h"

#include <algorithm>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::formats;

const char *vmpack::formats::formatName(FileFormat format) {
  switch (format) {
  case FileFormat::Vmpk:
    return "vmpk";
  case FileFormat::Safetensors:
    return "safetensors";
  case FileFormat::Gguf:
    return "gguf";
  case FileFormat::Irpa:
    return "irpa";
  case FileFormat::Onnx:
    return "onnx";
  }
  return "?";
}

std::optional<FileFormat>
vmpack::formats::parseFormatName(std::string_view name) {
  for (FileFormat f : {FileFormat::Vmpk, FileFormat::Safetensors,
                       FileFormat::Gguf, FileFormat::Irpa, FileFormat::Onnx})
    if (name == formatName(f))
      return f;
  return std::nullopt;
}

std::optional<FileFormat>
vmpack::formats::formatFromPath(std::string_view path) {
  // A Hugging Face shard index (docs/interop.md, "Sharding").
  constexpr std::string_view kIndex = ".safetensors.index.json";
  if (path.size() > kIndex.size() &&
      path.compare(path.size() - kIndex.size(), kIndex.size(), kIndex) == 0)
    return FileFormat::Safetensors;
  size_t dot = path.find_last_of('.');
  size_t slash = path.find_last_of('/');
  if (dot == std::string_view::npos ||
      (slash != std::string_view::npos && dot < slash))
    return std::nullopt;
  return parseFormatName(path.substr(dot + 1));
}

WeightFile::~WeightFile() {
  if (fd >= 0)
    ::close(fd);
}

std::vector<TensorSource> WeightFile::sources() const {
  std::vector<TensorSource> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo &t = tensors[i];
    TensorSource s;
    s.info = t;
    if (!locations.empty()) {
      s.data = locations[i].data;
      s.fd = locations[i].fd;
      s.fileOffset = locations[i].fileOffset;
      out.push_back(std::move(s));
      continue;
    }
    auto splat = splats.find(t.name);
    if (splat != splats.end()) {
      const std::vector<uint8_t> *pattern = &splat->second;
      s.produce = [pattern](uint64_t first, uint64_t n, uint8_t *out) {
        for (uint64_t k = 0; k < n; ++k)
          out[k] = (*pattern)[(first + k) % pattern->size()];
      };
      out.push_back(std::move(s));
      continue;
    }
    s.data = map->data() + t.offset;
    s.fd = fd;
    s.fileOffset = t.offset;
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<std::unique_ptr<WeightFile>>
vmpack::formats::openWeightFile(const std::string &path, FileFormat format) {
  auto file = std::make_unique<WeightFile>();
  file->path = path;
  file->format = format;
  StatusOr<std::unique_ptr<archive::MappedFile>> map =
      archive::MappedFile::open(path);
  if (!map)
    return map.status();
  file->map = std::move(*map);
  file->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const uint8_t *data = file->map->data();
  size_t size = file->map->size();
  auto failed = [&](const Status &s) {
    return s.withContext("'" + path + "': ");
  };
  switch (format) {
  case FileFormat::Onnx:
    return failed(Status::unsupported(
        "ONNX models are opened by formats::openOnnx (library VmpackOnnx)"));
  case FileFormat::Safetensors: {
    StatusOr<SafetensorsFile> f = readSafetensors(data, size);
    if (!f)
      return failed(f.status());
    file->tensors = std::move(f->tensors);
    file->stringMetadata = std::move(f->metadata);
    break;
  }
  case FileFormat::Gguf: {
    StatusOr<GgufFile> f = readGguf(data, size);
    if (!f)
      return failed(f.status());
    file->tensors = std::move(f->tensors);
    file->ggufMetadata = std::move(f->metadata);
    break;
  }
  case FileFormat::Irpa: {
    // Entries are bytes: ui8 tensors of their length. Splats are expanded
    // while writing (TensorSource::produce), never in memory.
    StatusOr<std::unique_ptr<IrpaReader>> reader = IrpaReader::open(data, size);
    if (!reader)
      return failed(reader.status());
    for (size_t i = 0; i < (*reader)->numEntries(); ++i) {
      const IrpaEntry &e = (*reader)->entry(i);
      if (e.length > uint64_t(std::numeric_limits<int64_t>::max()))
        return failed(
            Status::formatError("entry '" + e.key + "' is too large"));
      TensorInfo t;
      t.name = e.key;
      t.elementType = opaqueByteType();
      t.shape = {int64_t(e.length)};
      t.encoding = Encoding::Byte;
      t.offset = e.offset;
      t.length = e.length;
      if (e.kind == IrpaEntryKind::Splat) {
        file->splats.emplace(
            t.name, std::vector<uint8_t>(e.pattern.begin(),
                                         e.pattern.begin() + e.patternLength));
        t.offset = 0;
      }
      file->tensors.push_back(std::move(t));
    }
    break;
  }
  case FileFormat::Vmpk: {
    StatusOr<std::unique_ptr<archive::ArchiveReader>> reader =
        archive::ArchiveReader::open(data, size);
    if (!reader)
      return failed(reader.status());
    for (const archive::SegmentInfo &s : (*reader)->allSegments()) {
      TensorInfo t;
      t.name = s.name;
      t.elementType = s.elementType;
      t.shape = s.shape;
      t.encoding = s.encoding;
      t.offset = s.offset;
      t.length = s.length;
      if (s.foreignKind == archive::kForeignGgml) {
        StatusOr<uint64_t> bytes =
            ggmlTensorBytes(s.foreignType, s.foreignShape);
        if (!bytes || *bytes != s.length)
          return failed(Status::formatError(
              "segment '" + s.name + "': ggml type " +
              std::to_string(s.foreignType) + " of shape " +
              tensorTypeString(s.elementType, s.foreignShape) +
              (bytes ? " needs " + std::to_string(*bytes) + " bytes, not " +
                           std::to_string(s.length)
                     : ": " + bytes.status().message())));
        t.ggmlBlockType = s.foreignType;
        t.shape = s.foreignShape;
      }
      file->tensors.push_back(std::move(t));
    }
    file->stringMetadata = (*reader)->metadata();
    break;
  }
  }
  return file;
}

Status vmpack::formats::writeVmpk(const std::string &path,
                                  const std::vector<TensorSource> &tensors,
                                  const StringMetadata &metadata,
                                  const std::string &moduleName,
                                  uint32_t alignment) {
  archive::WriterOptions options;
  options.moduleName = moduleName;
  options.producer = "vmpack-convert";
  options.metadata = metadata;
  StatusOr<std::unique_ptr<archive::ArchiveWriter>> writer =
      archive::ArchiveWriter::create(path, options);
  if (!writer)
    return writer.status();
  for (const TensorSource &src : tensors) {
    const TensorInfo &t = src.info;
    archive::SegmentDesc desc;
    desc.name = t.name;
    desc.mlirType = tensorTypeString(t.elementType, t.shape);
    desc.elementType = t.elementType;
    desc.shape = t.shape;
    desc.encoding = t.encoding;
    desc.length = t.length;
    desc.alignment = alignment;
    if (t.isOpaque()) {
      // Opaque bytes to vmpack, with the ggml type and logical shape.
      StatusOr<uint64_t> bytes = ggmlTensorBytes(*t.ggmlBlockType, t.shape);
      if (!bytes || *bytes != t.length)
        return Status::formatError(
            "tensor '" + t.name + "': " +
            (bytes ? "its source holds " + std::to_string(t.length) + " bytes"
                   : bytes.status().message()));
      desc.elementType = opaqueByteType();
      desc.shape = {int64_t(t.length)};
      desc.mlirType = tensorTypeString(desc.elementType, desc.shape);
      desc.encoding = Encoding::Byte;
      desc.foreignKind = archive::kForeignGgml;
      desc.foreignType = *t.ggmlBlockType;
      desc.foreignShape = t.shape;
    }
    StatusOr<uint32_t> added = (*writer)->addSegment(std::move(desc));
    if (!added)
      return added.status();
  }
  (*writer)->setProgram(std::string());
  if (Status s = (*writer)->beginData(); !s)
    return s;
  // Stored bytes go to the writer 64 MiB at a time; computed ones (a
  // source's produce) kProduceChunkBytes at a time, so that the buffer they
  // are computed into stays small (and in cache) whatever the tensor's size.
  constexpr uint64_t kChunk = uint64_t(64) << 20;
  std::vector<uint8_t> buffer;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t chunk = tensors[i].produce ? kProduceChunkBytes : kChunk;
    for (uint64_t at = 0; at < tensors[i].info.length; at += chunk) {
      uint64_t n = std::min(chunk, tensors[i].info.length - at);
      const uint8_t *bytes = tensors[i].data + at;
      if (tensors[i].produce) {
        buffer.assign(size_t(n), 0);
        tensors[i].produce(at, n, buffer.data());
        bytes = buffer.data();
      }
      if (Status s =
              (*writer)->writeSegmentData(uint32_t(i), at, bytes, size_t(n));
          !s)
        return s;
    }
  }
  return (*writer)->finish();
}

Encoding vmpack::formats::irpaEncoding(const ElementType &type) {
  // Whole-byte scalars are the same bytes in `word` and `byte`; i1 is one
  // byte per element in IREE's VM.
  uint32_t w = type.scalarBits();
  if (w % 8 == 0 || (w == 1 && !type.isComplex))
    return Encoding::Byte;
  return isEncodable(Encoding::Word, w) ? Encoding::Word : Encoding::Byte;
}

Status vmpack::formats::writeIrpa(const std::string &path,
                                  const std::vector<TensorSource> &tensors) {
  StatusOr<std::unique_ptr<IrpaWriter>> writer = IrpaWriter::create(path);
  if (!writer)
    return writer.status();
  std::vector<Encoding> encodings;
  for (const TensorSource &src : tensors) {
    const TensorInfo &t = src.info;
    Encoding enc = t.isOpaque() ? Encoding::Byte : irpaEncoding(t.elementType);
    std::optional<uint64_t> length =
        t.isOpaque() ? std::optional<uint64_t>(t.length)
                     : storedSize(t.elementType, t.shape, enc);
    if (!length)
      return Status::formatError("tensor '" + t.name + "': " +
                                 tensorTypeString(t.elementType, t.shape) +
                                 " has no .irpa layout");
    if (StatusOr<uint32_t> added = (*writer)->addDataEntry(t.name, *length);
        !added)
      return added.status();
    encodings.push_back(enc);
  }
  if (Status s = (*writer)->beginData(); !s)
    return s;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (Status s = forEachTensorChunk(
            tensors[i], encodings[i],
            [&](uint64_t at, const uint8_t *data, uint64_t n) {
              return (*writer)->writeEntryData(uint32_t(i), at, data,
                                               size_t(n));
            });
        !s)
      return s;
  return (*writer)->finish();
}
