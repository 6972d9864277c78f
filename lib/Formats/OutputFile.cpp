//===- OutputFile.cpp - Writing a file in place, then renaming it ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Formats/OutputFile.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Pack/Convert.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::formats;

using archive::detail::errnoText;

StatusOr<std::unique_ptr<OutputFile>>
OutputFile::create(const std::string &path, uint64_t size, OutputGroup *group) {
  if (path.empty())
    return Status::invalidArgument("empty output path");
  std::unique_ptr<OutputFile> out(new OutputFile());
  out->destination = path;
  out->fileSize = size;
  out->group = group;
  if (Status st =
          archive::detail::createTempFileBeside(path, out->fd, out->temp);
      !st)
    return st;
  if (Status st = archive::detail::reserveFileSpace(out->fd, size, path); !st)
    return st;
  return out;
}

OutputFile::~OutputFile() {
  if (fd >= 0)
    ::close(fd);
  if (!committed && !temp.empty())
    ::unlink(temp.c_str());
}

Status OutputFile::write(uint64_t offset, const void *data, uint64_t size) {
  if (offset > fileSize || size > fileSize - offset)
    return Status::internalError(
        "internal error: write of " + std::to_string(size) +
        " bytes at offset " + std::to_string(offset) + " outside the planned " +
        std::to_string(fileSize) + "-byte file '" + destination + "'");
  const auto *p = static_cast<const char *>(data);
  while (size > 0) {
    size_t step = size_t(std::min<uint64_t>(size, uint64_t(1) << 30));
    ssize_t n = ::pwrite(fd, p, step, off_t(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Status::ioError("cannot write '" + destination + "' at offset " +
                             std::to_string(offset) + ": " +
                             (n < 0 ? errnoText(errno) : "no progress"));
    p += n;
    size -= uint64_t(n);
    offset += uint64_t(n);
  }
  return Status::ok();
}

Status OutputFile::copy(uint64_t offset, int srcFd, uint64_t srcOffset,
                        const uint8_t *srcData, uint64_t size) {
  if (offset > fileSize || size > fileSize - offset)
    return write(offset, srcData, size); // reports the bad range
  uint64_t done = 0;
  if (srcFd >= 0) {
    while (done < size) {
      loff_t in = loff_t(srcOffset + done), out = loff_t(offset + done);
      size_t step = size_t(std::min<uint64_t>(size - done, uint64_t(1) << 30));
      ssize_t n = ::copy_file_range(srcFd, &in, fd, &out, step, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break; // EXDEV, EINVAL, ENOSYS, ...: finish through memory.
      done += uint64_t(n);
      kernelCopied += uint64_t(n);
    }
  }
  return write(offset + done, srcData + done, size - done);
}

Status vmpack::formats::forEachTensorChunk(const TensorSource &source,
                                           Encoding encoding,
                                           const ChunkSink &sink,
                                           uint64_t alignFrom) {
  const TensorInfo &info = source.info;
  constexpr uint64_t kChunk = uint64_t(4) << 20;
  // One chunk buffer per thread, kept from tensor to tensor: a fresh buffer
  // for each tensor costs a page fault and a cleared page per 4 KiB. A
  // nested call (a produce that writes through forEachTensorChunk itself)
  // takes a buffer of its own.
  thread_local std::vector<uint8_t> kept;
  thread_local bool keptInUse = false;
  std::vector<uint8_t> own;
  const bool nested = keptInUse;
  std::vector<uint8_t> &buffer = nested ? own : kept;
  keptInUse = true;
  struct Release {
    bool nested;
    ~Release() {
      if (!nested)
        keptInUse = false;
    }
  } release{nested};
  if (source.produce && (info.isOpaque() || info.encoding == encoding)) {
    // The first chunk runs to the next multiple of kProduceChunkBytes in the
    // file, so the later ones start aligned.
    uint64_t first = kProduceChunkBytes - alignFrom % kProduceChunkBytes;
    for (uint64_t at = 0, step = first; at < info.length;
         at += step, step = kProduceChunkBytes) {
      uint64_t n = std::min(step, info.length - at);
      buffer.assign(size_t(n), 0);
      source.produce(at, n, buffer.data());
      if (Status s = sink(at, buffer.data(), n); !s)
        return s;
    }
    return Status::ok();
  }
  if (info.isOpaque() || info.encoding == encoding) {
    for (uint64_t at = 0; at < info.length; at += kChunk)
      if (Status s =
              sink(at, source.data + at, std::min(kChunk, info.length - at));
          !s)
        return s;
    return Status::ok();
  }
  std::optional<uint64_t> n = numElements(info.shape);
  std::optional<uint64_t> outSize =
      storedSize(info.elementType, info.shape, encoding);
  if (!n || !outSize ||
      !isEncodable(info.encoding, info.elementType.scalarBits()))
    return Status::unsupported("tensor '" + info.name + "': cannot store " +
                               tensorTypeString(info.elementType, info.shape) +
                               " in the " + encodingName(encoding) +
                               " encoding");
  uint32_t w = info.elementType.scalarBits();
  uint64_t scalars = *n * info.elementType.scalarsPerElement();
  // Chunks of about 4 MiB of output, cut at element granules so that each
  // converts independently (Encoding.h).
  uint64_t granule = elementGranule(w);
  uint64_t perChunk = std::max<uint64_t>(
      granule,
      ((uint64_t(32) << 20) / std::max<uint32_t>(w, 1)) / granule * granule);
  // A computed tensor in another encoding: each chunk is computed in its
  // own encoding first, then converted.
  std::vector<uint8_t> produced;
  for (uint64_t first = 0; first < scalars; first += perChunk) {
    uint64_t count = std::min(perChunk, scalars - first);
    uint64_t bytes = *encodedSize(encoding, w, count);
    buffer.assign(size_t(bytes), 0);
    const uint8_t *in;
    if (source.produce) {
      produced.assign(size_t(*encodedSize(info.encoding, w, count)), 0);
      source.produce(granuleByteOffset(info.encoding, w, first),
                     produced.size(), produced.data());
      in = produced.data();
    } else {
      in = source.data + granuleByteOffset(info.encoding, w, first);
    }
    vmpack::convert(info.encoding, encoding, w, in, buffer.data(), count);
    if (Status s =
            sink(granuleByteOffset(encoding, w, first), buffer.data(), bytes);
        !s)
      return s;
  }
  return Status::ok();
}

Status OutputFile::writeTensor(uint64_t offset, const TensorSource &source,
                               Encoding encoding) {
  const TensorInfo &info = source.info;
  if (!source.produce && (info.isOpaque() || info.encoding == encoding))
    return copy(offset, source.fd, source.fileOffset, source.data, info.length);
  return forEachTensorChunk(
      source, encoding,
      [&](uint64_t at, const uint8_t *data, uint64_t n) {
        return write(offset + at, data, n);
      },
      offset);
}

Status OutputFile::commit() {
  if (group) {
    if (::close(fd) != 0) {
      fd = -1;
      return Status::ioError("cannot close '" + destination +
                             "': " + errnoText(errno));
    }
    fd = -1;
    group->pending.emplace_back(temp, destination);
    committed = true; // the group owns the temporary file now
    return Status::ok();
  }
  if (Status s = archive::detail::renameIntoPlace(temp, destination); !s)
    return Status::ioError("cannot put the finished file in place of '" +
                           destination + "': " + s.message());
  committed = true;
  return Status::ok();
}

OutputGroup::~OutputGroup() {
  if (!done)
    for (const auto &[temp, destination] : pending)
      ::unlink(temp.c_str());
}

Status OutputGroup::commitAll() {
  // Where each member goes (written through symlinks), checked before the
  // first rename so that no input is replaced or removed.
  std::vector<std::string> targets;
  for (const auto &[temp, destination] : pending) {
    StatusOr<std::string> target =
        archive::detail::resolveOutputPath(destination);
    Status ok =
        target ? archive::detail::checkNotAnInput(*target) : target.status();
    if (!ok)
      return ok; // the destructor removes the temporary files
    targets.push_back(*target);
  }
  for (const std::string &stale : staleFiles)
    if (Status s = archive::detail::checkNotAnInput(stale, "file to remove");
        !s)
      return s;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (::rename(pending[i].first.c_str(), targets[i].c_str()) == 0)
      continue;
    int err = errno;
    // All or nothing: take back the files already in place, drop the rest.
    for (size_t k = 0; k < i; ++k)
      ::unlink(targets[k].c_str());
    for (size_t k = i; k < pending.size(); ++k)
      ::unlink(pending[k].first.c_str());
    done = true;
    return Status::ioError("cannot rename the finished file to '" + targets[i] +
                           "': " + errnoText(err) + "; none of the " +
                           std::to_string(pending.size()) +
                           " files of the set was written");
  }
  done = true;
  // The files of an older set that the new one does not have.
  for (const std::string &stale : staleFiles)
    if (::unlink(stale.c_str()) != 0 && errno != ENOENT)
      return Status::ioError("the new set is in place, but '" + stale +
                             "' of the older set it replaces could not be "
                             "removed: " +
                             errnoText(errno));
  return Status::ok();
}

std::vector<std::string> OutputGroup::destinations() const {
  std::vector<std::string> out;
  for (const auto &p : pending)
    out.push_back(p.second);
  return out;
}
