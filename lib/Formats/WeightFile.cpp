//===- WeightFile.cpp - Any supported weight file, opened or written ------===//

#include "vmpack/Formats/WeightFile.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/ArchiveWriter.h"
#include "vmpack/Formats/TypeTable.h"

#include <algorithm>
#include <fcntl.h>
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
  }
  return "?";
}

std::optional<FileFormat>
vmpack::formats::parseFormatName(std::string_view name) {
  for (FileFormat f :
       {FileFormat::Vmpk, FileFormat::Safetensors, FileFormat::Gguf})
    if (name == formatName(f))
      return f;
  return std::nullopt;
}

std::optional<FileFormat>
vmpack::formats::formatFromPath(std::string_view path) {
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
  for (const TensorInfo &t : tensors) {
    TensorSource s;
    s.info = t;
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
    return Status::error("'" + path + "': " + s.message());
  };
  switch (format) {
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
          return failed(Status::error(
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
        return Status::error(
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
  constexpr uint64_t kChunk = uint64_t(64) << 20;
  std::vector<uint8_t> buffer;
  for (size_t i = 0; i < tensors.size(); ++i)
    for (uint64_t at = 0; at < tensors[i].info.length; at += kChunk) {
      uint64_t n = std::min(kChunk, tensors[i].info.length - at);
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
  return (*writer)->finish();
}
