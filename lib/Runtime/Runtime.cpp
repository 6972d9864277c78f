//===- Runtime.cpp - The C API over the archive reader --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A thin layer: argument checking, status codes and the thread-local error
// message. All format knowledge lives in lib/Archive (.vmpk) and lib/Formats
// (.irpa, and safetensors and GGUF through ForeignFormats.h), and all
// element knowledge in lib/Pack.
//
//===----------------------------------------------------------------------===//

#include "vmpack/vmpack.h"

#include "ForeignFormats.h"
#include "SegmentRecord.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/IrpaReader.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlDecode.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unordered_map>
#include <vector>

using namespace vmpack;
using namespace vmpack::archive;
using vmpack::formats::FileFormat;
using vmpack::formats::IrpaEntry;
using vmpack::formats::IrpaEntryKind;
using vmpack::formats::IrpaReader;
using vmpack::formats::SetPosition;
using vmpack::runtime::ForeignContainer;
using vmpack::runtime::ForeignFile;
using vmpack::runtime::MetadataEntry;

// vmpack.h repeats the C++ enums in C; the values are the ones module
// indexes store (docs/format.md), and Runtime.cpp passes them by value.
#define VMPACK_SAME_VALUE(C, CXX)                                              \
  static_assert(int(C) == int(CXX), #C " follows " #CXX)
VMPACK_SAME_VALUE(VMPACK_ENCODING_PACKED, Encoding::Packed);
VMPACK_SAME_VALUE(VMPACK_ENCODING_WORD, Encoding::Word);
VMPACK_SAME_VALUE(VMPACK_ENCODING_BYTE, Encoding::Byte);
VMPACK_SAME_VALUE(VMPACK_SCALAR_SIGNLESS_INT, ScalarKind::SignlessInt);
VMPACK_SAME_VALUE(VMPACK_SCALAR_SIGNED_INT, ScalarKind::SignedInt);
VMPACK_SAME_VALUE(VMPACK_SCALAR_UNSIGNED_INT, ScalarKind::UnsignedInt);
VMPACK_SAME_VALUE(VMPACK_SCALAR_INDEX, ScalarKind::Index);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F4E2M1FN, ScalarKind::F4E2M1FN);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F6E2M3FN, ScalarKind::F6E2M3FN);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F6E3M2FN, ScalarKind::F6E3M2FN);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E5M2, ScalarKind::F8E5M2);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E4M3, ScalarKind::F8E4M3);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E4M3FN, ScalarKind::F8E4M3FN);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E5M2FNUZ, ScalarKind::F8E5M2FNUZ);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E4M3FNUZ, ScalarKind::F8E4M3FNUZ);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E4M3B11FNUZ, ScalarKind::F8E4M3B11FNUZ);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E3M4, ScalarKind::F8E3M4);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F8E8M0FNU, ScalarKind::F8E8M0FNU);
VMPACK_SAME_VALUE(VMPACK_SCALAR_BF16, ScalarKind::BF16);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F16, ScalarKind::F16);
VMPACK_SAME_VALUE(VMPACK_SCALAR_TF32, ScalarKind::TF32);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F32, ScalarKind::F32);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F64, ScalarKind::F64);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F80, ScalarKind::F80);
VMPACK_SAME_VALUE(VMPACK_SCALAR_F128, ScalarKind::F128);
VMPACK_SAME_VALUE(VMPACK_SOURCE_DENSE, SourceKind::Dense);
VMPACK_SAME_VALUE(VMPACK_SOURCE_DENSE_RESOURCE, SourceKind::DenseResource);
VMPACK_SAME_VALUE(VMPACK_SOURCE_PACKED_RESOURCE, SourceKind::PackedResource);
#undef VMPACK_SAME_VALUE

// vmpack_status_t and archive::StatusCode have the same values, so a code
// maps to the C API by value (toCStatus), in this one place.
#define VMPACK_SAME_STATUS(C, CXX)                                             \
  static_assert(int(C) == int(StatusCode::CXX), #C " follows "                 \
                                                   "StatusCode::" #CXX)
VMPACK_SAME_STATUS(VMPACK_OK, Ok);
VMPACK_SAME_STATUS(VMPACK_ERROR_INVALID_ARGUMENT, InvalidArgument);
VMPACK_SAME_STATUS(VMPACK_ERROR_IO, Io);
VMPACK_SAME_STATUS(VMPACK_ERROR_FORMAT, Format);
VMPACK_SAME_STATUS(VMPACK_ERROR_CHECKSUM, Checksum);
VMPACK_SAME_STATUS(VMPACK_ERROR_NOT_FOUND, NotFound);
VMPACK_SAME_STATUS(VMPACK_ERROR_OUT_OF_RANGE, OutOfRange);
VMPACK_SAME_STATUS(VMPACK_ERROR_UNSUPPORTED, Unsupported);
VMPACK_SAME_STATUS(VMPACK_ERROR_BUFFER_TOO_SMALL, BufferTooSmall);
VMPACK_SAME_STATUS(VMPACK_ERROR_OUT_OF_MEMORY, OutOfMemory);
VMPACK_SAME_STATUS(VMPACK_ERROR_INTERNAL, Internal);
#undef VMPACK_SAME_STATUS

/// The outcome of one segment's CRC check, computed once.
struct SegmentCheck {
  std::once_flag once;
  Status result = Status::ok();
};

/// One file: exactly one of `reader` (.vmpk), `irpa` and `foreign`
/// (safetensors, GGUF) is set. A sharded set opened as one module
/// (docs/format.md section 9, docs/interop.md "Sharding"): `parts` holds
/// one such module per file, in shard order, and only the set's own fields
/// below it are used.
struct vmpack_module {
  std::unique_ptr<LoadedFile> file; // null when opened from memory
  std::string path;                 // "" when opened from memory
  std::unique_ptr<ArchiveReader> reader;
  std::unique_ptr<IrpaReader> irpa;
  std::unique_ptr<ForeignFile> foreign;
  std::vector<std::string> elementTypeNames;
  /// .vmpk: the module's metadata, and each constant's foreign type name
  /// ("" for most).
  std::vector<MetadataEntry> vmpkMetadata;
  std::vector<std::string> vmpkForeignTypes;
  /// Per constant of a .vmpk: vmpack_segment_verify and lazy verification.
  std::unique_ptr<SegmentCheck[]> checks;
  bool lazy = false;

  /// A set: its files, the index of each one's first segment in the set,
  /// the metadata of the whole (without the set's bookkeeping keys), and
  /// every segment by name.
  std::vector<std::unique_ptr<vmpack_module>> parts;
  std::vector<size_t> partStart;
  std::vector<MetadataEntry> setMetadata;
  std::unordered_map<std::string_view, size_t> setByName;
};

namespace {

thread_local std::string lastError;

/// Records `message` for vmpack_last_error.
vmpack_status_t fail(vmpack_status_t status, std::string message) noexcept {
  lastError.swap(message);
  return status;
}
/// The same for a fixed message; never throws: when even the message cannot
/// be allocated, the error stays empty.
vmpack_status_t failWith(vmpack_status_t status, const char *message) noexcept {
  try {
    lastError = message;
  } catch (...) {
    lastError.clear();
  }
  return status;
}

vmpack_status_t toCStatus(StatusCode code) {
  return vmpack_status_t(int(code));
}

/// A failed Status as the C API reports it, its message after `context`.
vmpack_status_t fail(const Status &st, const std::string &context = "") {
  return fail(toCStatus(st.code()), context + st.message());
}

/// Runs an entry point's body so that no exception crosses the C API: an
/// allocation failure becomes VMPACK_ERROR_OUT_OF_MEMORY, anything else
/// (std::thread creation can throw std::system_error) VMPACK_ERROR_INTERNAL.
template <typename Body>
vmpack_status_t guarded(const char *function, Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return failWith(VMPACK_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    try {
      return fail(VMPACK_ERROR_INTERNAL,
                  std::string(function) + ": " + e.what());
    } catch (...) {
      return failWith(VMPACK_ERROR_INTERNAL, "internal error");
    }
  } catch (...) {
    return failWith(VMPACK_ERROR_INTERNAL, "internal error");
  }
}

vmpack_status_t invalid(const char *function, const char *what) {
  return fail(VMPACK_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": " + what);
}

/// A .vmpk's metadata and foreign segments, for the C API. A foreign
/// segment's ggml type and shape must give exactly its length (as the
/// formats layer requires when it reads the module).
vmpack_status_t describeVmpk(vmpack_module &m, const std::string &where) {
  for (const auto &[key, value] : m.reader->metadata())
    m.vmpkMetadata.push_back({key, value, "string"});
  size_t n = m.reader->numConstants();
  m.vmpkForeignTypes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const SegmentInfo &s = m.reader->constant(i);
    if (s.foreignKind == kForeignNone)
      continue;
    StatusOr<uint64_t> bytes =
        vmpack::formats::ggmlTensorBytes(s.foreignType, s.foreignShape);
    std::optional<std::string> name =
        vmpack::runtime::ggmlForeignTypeName(s.foreignType);
    if (s.foreignKind != kForeignGgml || !bytes || !name || *bytes != s.length)
      return fail(VMPACK_ERROR_FORMAT,
                  where + "segment '" + printableName(s.name) +
                      "': ggml type " + std::to_string(s.foreignType) +
                      (bytes
                           ? " of that shape needs " + std::to_string(*bytes) +
                                 " bytes, not " + std::to_string(s.length)
                           : ": " + bytes.status().message()));
    m.vmpkForeignTypes[i] = std::move(*name);
  }
  return VMPACK_OK;
}

/// Opens a safetensors or GGUF file.
vmpack_status_t openForeign(ForeignContainer container,
                            std::unique_ptr<LoadedFile> file,
                            const uint8_t *data, size_t size,
                            const std::string &where, vmpack_module_t **out) {
  StatusOr<std::unique_ptr<ForeignFile>> foreign =
      ForeignFile::open(container, data, size);
  if (!foreign)
    return fail(foreign.status(), where);
  auto module = std::make_unique<vmpack_module>();
  module->file = std::move(file);
  module->foreign = std::move(*foreign);
  *out = module.release();
  return VMPACK_OK;
}

/// How a file is opened, which decides what happens when it says it is one
/// file of a sharded set.
enum class OpenRole {
  /// vmpack_module_open_memory: a file of a set is refused.
  Memory,
  /// By path: a set's first file opens the set (finishOpen sets
  /// `*opensSet` and leaves `*out` null); any other file is refused.
  Path,
  /// One file of a set the caller is opening.
  SetFile,
};

/// Refuses file `position` of a set of `kind` ("a .vmpk set", ...), saying
/// how to open the set.
vmpack_status_t refuseSetFile(const std::string &where, const char *kind,
                              SetPosition position, OpenRole role,
                              std::optional<std::string> first) {
  std::string message =
      where + "file " +
      (position.number ? std::to_string(position.number) : std::string("?")) +
      " of " + std::to_string(position.count) + " of " + kind +
      ", not a whole module; ";
  if (role == OpenRole::Memory)
    message += "a set is opened from the path of its first file (NAME" +
               vmpack::formats::shardFileName("", 1, position.count, "") +
               "), with vmpack_module_open_file, which opens every file of it "
               "as one module";
  else
    message += "open the set by its first file" +
               (first ? " ('" + *first + "')" : std::string()) +
               ", which opens every file of it as one module";
  return fail(VMPACK_ERROR_UNSUPPORTED, message);
}

/// `hint`: the format a file's name says, used when its first bytes are
/// not recognised, so that a damaged .safetensors gets safetensors' error.
/// `path` is "" from memory.
vmpack_status_t finishOpen(std::unique_ptr<LoadedFile> file,
                           const uint8_t *data, size_t size,
                           const std::string &path, const std::string &where,
                           vmpack_module_t **out, OpenRole role,
                           std::optional<FileFormat> *opensSet = nullptr,
                           std::optional<ForeignContainer> hint = {}) {
  std::optional<ForeignContainer> foreign =
      vmpack::runtime::sniffForeign(data, size);
  static const uint8_t kZipLocalHeader[4] = {'P', 'K', 3, 4};
  if (!foreign && hint && !vmpack::formats::irpa::hasMagic(data, size) &&
      !(size >= 4 && std::memcmp(data, kZipLocalHeader, 4) == 0))
    foreign = hint;
  auto wholeSet = [&](SetPosition position, FileFormat format, const char *kind,
                      const char *ext) -> std::optional<vmpack_status_t> {
    if (role == OpenRole::SetFile)
      return std::nullopt;
    if (role == OpenRole::Path && position.number > 1)
      return refuseSetFile(where, kind, position, role,
                           vmpack::formats::firstShardPath(path, ext));
    if (role == OpenRole::Memory)
      return refuseSetFile(where, kind, position, role, std::nullopt);
    // The first file (or one whose number is unreadable: opening the set
    // says what is wrong with it).
    *opensSet = format;
    return VMPACK_OK;
  };
  if (foreign && !vmpack::formats::irpa::hasMagic(data, size)) {
    StatusOr<std::unique_ptr<ForeignFile>> parsed =
        ForeignFile::open(*foreign, data, size);
    if (!parsed)
      return fail(parsed.status(), where);
    if (const std::optional<SetPosition> &split = (*parsed)->splitPosition())
      if (std::optional<vmpack_status_t> st =
              wholeSet(*split, FileFormat::Gguf,
                       "a GGUF split set (split.no, split.count)", ".gguf"))
        return *st;
    auto module = std::make_unique<vmpack_module>();
    module->file = std::move(file);
    module->path = path;
    module->foreign = std::move(*parsed);
    *out = module.release();
    return VMPACK_OK;
  }
  if (vmpack::formats::irpa::hasMagic(data, size)) {
    StatusOr<std::unique_ptr<IrpaReader>> irpa = IrpaReader::open(data, size);
    if (!irpa)
      return fail(irpa.status(), where);
    auto module = std::make_unique<vmpack_module>();
    module->file = std::move(file);
    module->path = path;
    module->irpa = std::move(*irpa);
    *out = module.release();
    return VMPACK_OK;
  }
  StatusOr<std::unique_ptr<ArchiveReader>> reader =
      ArchiveReader::open(data, size);
  if (!reader)
    return fail(reader.status(), where);
  // One shard of a set (docs/format.md, section 9) is never taken for the
  // whole module: its other segments would be missing.
  StatusOr<std::optional<vmpack::formats::VmpkShardKeys>> shard =
      vmpack::formats::readVmpkShardKeys((*reader)->metadata());
  if (!shard)
    return fail(shard.status(), where);
  if (*shard && (*shard)->count > 1)
    if (std::optional<vmpack_status_t> st =
            wholeSet(SetPosition{(*shard)->number, (*shard)->count},
                     FileFormat::Vmpk, "a .vmpk set (vmpack.shard.*)", ".vmpk"))
      return *st;
  auto module = std::make_unique<vmpack_module>();
  module->file = std::move(file);
  module->path = path;
  module->reader = std::move(*reader);
  for (size_t i = 0; i < module->reader->numConstants(); ++i)
    module->elementTypeNames.push_back(
        toString(module->reader->constant(i).elementType));
  module->checks.reset(new SegmentCheck[module->reader->numConstants()]);
  if (vmpack_status_t st = describeVmpk(*module, where); st != VMPACK_OK)
    return st;
  *out = module.release();
  return VMPACK_OK;
}

/// The CRC of the file's bytes [offset, offset + length), from the CRCs
/// computed while reading it: only for modules loaded by reading.
ArchiveReader::RangeCrc rangeCrcOf(const LoadedFile &file) {
  return [&file](uint64_t offset, uint64_t length) {
    return file.rangeCrc(offset, length);
  };
}

Status verifyAll(const vmpack_module_t &module, unsigned threads) {
  if (module.file && module.file->hasRangeCrcs())
    return module.reader->verifyContents(rangeCrcOf(*module.file));
  return module.reader->verifyContents(threads);
}

/// The CRC check of one constant, run once per module.
const Status &checkConstant(const vmpack_module_t &module, size_t index) {
  SegmentCheck &check = module.checks[index];
  std::call_once(check.once, [&] {
    if (module.file && module.file->hasRangeCrcs()) {
      ArchiveReader::RangeCrc crcOf = rangeCrcOf(*module.file);
      check.result = module.reader->verifyEntry(index, &crcOf);
    } else {
      check.result = module.reader->verifyEntry(index);
    }
  });
  return check.result;
}

/// `word` and `packed` coincide when whole elements tile a byte (W = 2, 4):
/// use the form the fast kernels know best.
Encoding effectiveEncoding(const ElementType &type, Encoding encoding) {
  uint32_t w = type.scalarBits();
  if (encoding == Encoding::Word && (w == 2 || w == 4))
    return Encoding::Packed;
  return encoding;
}

size_t segmentCount(const vmpack_module_t &m) {
  if (!m.parts.empty())
    return m.partStart.back() + segmentCount(*m.parts.back());
  if (m.foreign)
    return m.foreign->numTensors();
  return m.irpa ? m.irpa->numEntries() : m.reader->numConstants();
}

const std::vector<MetadataEntry> &metadataOf(const vmpack_module_t &m) {
  static const std::vector<MetadataEntry> none;
  if (!m.parts.empty())
    return m.setMetadata;
  if (m.foreign)
    return m.foreign->metadata();
  return m.reader ? m.vmpkMetadata : none;
}

vmpack_status_t badIndex(const vmpack_module_t &m, size_t index) {
  return fail(VMPACK_ERROR_OUT_OF_RANGE,
              "segment index " + std::to_string(index) + " >= count " +
                  std::to_string(segmentCount(m)));
}

/// The file of `m` holding segment `index` (a valid index of `m`), which
/// becomes the segment's index in that file; `m` itself unless a set.
const vmpack_module_t &fileOf(const vmpack_module_t &m, size_t &index,
                              size_t *fileIndex = nullptr) {
  if (m.parts.empty()) {
    if (fileIndex)
      *fileIndex = 0;
    return m;
  }
  size_t p =
      size_t(std::upper_bound(m.partStart.begin(), m.partStart.end(), index) -
             m.partStart.begin()) -
      1;
  index -= m.partStart[p];
  if (fileIndex)
    *fileIndex = p;
  return *m.parts[p];
}

/// The first file of `m`: what describes a set as a whole (container,
/// name, producer, format version, program).
const vmpack_module_t &headOf(const vmpack_module_t &m) {
  return m.parts.empty() ? m : *m.parts.front();
}

/// The checks of `verifyMode` (vmpack_verify_mode_t) when opening one
/// file: all CRCs, or the program's for lazy verification.
vmpack_status_t verifyOnOpen(vmpack_module_t &module, int verifyMode,
                             unsigned threads, const std::string &where) {
  if (verifyMode == VMPACK_VERIFY_FULL) {
    if (vmpack_status_t st = vmpack_module_verify(&module, threads);
        st != VMPACK_OK)
      return fail(st, where + lastError);
  } else if (verifyMode == VMPACK_VERIFY_LAZY && module.reader) {
    // (.irpa, safetensors and GGUF files have no checksums to check
    // lazily.)
    module.lazy = true;
    size_t program = module.reader->numConstants();
    Status st = Status::ok();
    if (module.file->hasRangeCrcs()) {
      ArchiveReader::RangeCrc crcOf = rangeCrcOf(*module.file);
      st = module.reader->verifyEntry(program, &crcOf);
    } else {
      st = module.reader->verifyEntry(program);
    }
    if (!st)
      return fail(st, where);
  }
  return VMPACK_OK;
}

/// Opens the set whose first file (or safetensors index) is `path` as one
/// module. The formats layer finds the files and checks that they agree
/// (openWeightSet: count, numbering, segment counts, names unique, errors
/// naming the file); each file is then loaded as `load` says, parsed and
/// verified as a file opened alone, and the files are checked again
/// against what was found (a file replaced in between, the module names).
vmpack_status_t openSet(const std::string &path, FileFormat format,
                        const LoadOptions &load, int verifyMode,
                        unsigned threads, vmpack_module_t **out) {
  std::vector<std::string> paths;
  std::vector<size_t> counts;
  {
    StatusOr<std::vector<std::unique_ptr<vmpack::formats::WeightFile>>> set =
        vmpack::formats::openWeightSet(path, format);
    if (!set)
      return fail(set.status());
    for (const auto &f : *set) {
      paths.push_back(f->path);
      counts.push_back(f->tensors.size());
    }
  }
  if (load.buffer && paths.size() > 1)
    return fail(VMPACK_ERROR_INVALID_ARGUMENT,
                path + ": the first of a set of " +
                    std::to_string(paths.size()) +
                    " files; a caller's buffer holds one file: open the set "
                    "without options.buffer");
  auto set = std::make_unique<vmpack_module>();
  set->path = path;
  for (size_t k = 0; k < paths.size(); ++k) {
    const std::string &file = paths[k];
    std::string where = file + ": ";
    StatusOr<std::unique_ptr<LoadedFile>> loaded = LoadedFile::open(file, load);
    if (!loaded)
      return fail(loaded.status());
    const uint8_t *data = (*loaded)->data();
    size_t size = (*loaded)->size();
    vmpack_module_t *part = nullptr;
    if (vmpack_status_t st = finishOpen(
            std::move(*loaded), data, size, file, where, &part,
            OpenRole::SetFile, nullptr, vmpack::runtime::foreignFromPath(file));
        st != VMPACK_OK)
      return st;
    std::unique_ptr<vmpack_module> owned(part);
    size_t stored = part->reader    ? part->reader->allSegments().size()
                    : part->foreign ? part->foreign->numTensors()
                                    : 0;
    if (part->irpa || stored != counts[k])
      return fail(VMPACK_ERROR_FORMAT,
                  where + "holds " + std::to_string(stored) +
                      " tensors, not the " + std::to_string(counts[k]) +
                      " seen when the set was checked: was it replaced?");
    const vmpack_module &head = set->parts.empty() ? *part : *set->parts[0];
    if (part->reader && part->reader->moduleName() != head.reader->moduleName())
      return fail(VMPACK_ERROR_FORMAT,
                  where + "module '" +
                      printableName(part->reader->moduleName()) + "', but '" +
                      paths[0] + "' is module '" +
                      printableName(head.reader->moduleName()) +
                      "': the files are not one set");
    if (vmpack_status_t st = verifyOnOpen(*part, verifyMode, threads, where);
        st != VMPACK_OK)
      return st;
    set->partStart.push_back(set->parts.empty() ? 0 : segmentCount(*set));
    set->parts.push_back(std::move(owned));
    // Metadata: every key once, in file order, without the bookkeeping.
    for (const MetadataEntry &e : metadataOf(*part)) {
      if (vmpack::formats::isSetKey(e.key))
        continue;
      auto same =
          std::find_if(set->setMetadata.begin(), set->setMetadata.end(),
                       [&](const MetadataEntry &m) { return m.key == e.key; });
      if (same == set->setMetadata.end()) {
        set->setMetadata.push_back(e);
      } else if (same->value != e.value || same->type != e.type) {
        return fail(VMPACK_ERROR_FORMAT,
                    where + "metadata key '" + printableName(e.key) +
                        "' differs from an earlier file's value: the "
                        "files are not one set");
      }
    }
  }
  // Names: unique across the set (the aliases of a .vmpk file included).
  for (size_t k = 0; k < set->parts.size(); ++k) {
    const vmpack_module &part = *set->parts[k];
    for (size_t i = 0, n = segmentCount(part); i < n; ++i) {
      vmpack_segment_info_t info;
      if (vmpack_status_t st = vmpack_module_segment_info(&part, i, &info);
          st != VMPACK_OK)
        return st;
      std::string_view name(info.name, info.name_length);
      auto [it, added] = set->setByName.emplace(name, set->partStart[k] + i);
      if (!added) {
        size_t other = 0;
        size_t local = it->second;
        fileOf(*set, local, &other);
        return fail(VMPACK_ERROR_FORMAT, paths[k] + ": segment '" +
                                             printableName(name) +
                                             "' is also in '" + paths[other] +
                                             "': the files are not one set");
      }
    }
  }
  *out = set.release();
  return VMPACK_OK;
}

void irpaSegmentInfo(const IrpaReader &irpa, size_t index,
                     vmpack_segment_info_t &i) {
  const IrpaEntry &e = irpa.entry(index);
  bool splat = e.kind == IrpaEntryKind::Splat;
  i = vmpack_segment_info_t();
  i.name = e.key.c_str();
  i.name_length = e.key.size();
  i.mlir_type = "";
  i.element_type = "";
  i.scalar_kind = vmpack_scalar_kind_t(0);
  i.encoding = VMPACK_ENCODING_NONE;
  i.data = irpa.entryData(index);
  i.offset = e.offset;
  i.length = e.length;
  // The reader caps minimum alignments at 2^30.
  i.alignment = uint32_t(e.minimumAlignment);
  i.source_kind = VMPACK_SOURCE_DENSE;
  i.source_key = "";
  i.kind = splat ? VMPACK_SEGMENT_UNTYPED_SPLAT : VMPACK_SEGMENT_UNTYPED_DATA;
  i.splat_pattern = irpa.splatPattern(index);
  i.splat_pattern_length = splat ? e.patternLength : 0;
  i.metadata = e.metadata.empty() ? nullptr : e.metadata.data();
  i.metadata_length = e.metadata.size();
}

} // namespace

extern "C" {

const char *vmpack_status_name(vmpack_status_t status) {
  switch (status) {
  case VMPACK_OK:
    return "VMPACK_OK";
  case VMPACK_ERROR_INVALID_ARGUMENT:
    return "VMPACK_ERROR_INVALID_ARGUMENT";
  case VMPACK_ERROR_IO:
    return "VMPACK_ERROR_IO";
  case VMPACK_ERROR_FORMAT:
    return "VMPACK_ERROR_FORMAT";
  case VMPACK_ERROR_CHECKSUM:
    return "VMPACK_ERROR_CHECKSUM";
  case VMPACK_ERROR_NOT_FOUND:
    return "VMPACK_ERROR_NOT_FOUND";
  case VMPACK_ERROR_OUT_OF_RANGE:
    return "VMPACK_ERROR_OUT_OF_RANGE";
  case VMPACK_ERROR_UNSUPPORTED:
    return "VMPACK_ERROR_UNSUPPORTED";
  case VMPACK_ERROR_BUFFER_TOO_SMALL:
    return "VMPACK_ERROR_BUFFER_TOO_SMALL";
  case VMPACK_ERROR_OUT_OF_MEMORY:
    return "VMPACK_ERROR_OUT_OF_MEMORY";
  case VMPACK_ERROR_INTERNAL:
    return "VMPACK_ERROR_INTERNAL";
  }
  return "VMPACK_ERROR_UNKNOWN";
}

const char *vmpack_last_error(void) { return lastError.c_str(); }

void vmpack_open_options_init(vmpack_open_options_t *options) {
  if (!options)
    return;
  *options = vmpack_open_options_t();
  options->struct_size = sizeof(vmpack_open_options_t);
  options->load_mode = VMPACK_LOAD_AUTO;
  options->verify = VMPACK_VERIFY_STRUCTURE;
  options->threads = 0;
  options->buffer = nullptr;
  options->buffer_size = 0;
}

vmpack_status_t
vmpack_module_open_file_with_options(const char *path,
                                     const vmpack_open_options_t *options,
                                     vmpack_module_t **out_module) {
  return guarded(
      "vmpack_module_open_file_with_options", [&]() -> vmpack_status_t {
        static const char *kFunction = "vmpack_module_open_file_with_options";
        if (!path || !out_module)
          return invalid(kFunction, "null argument");
        *out_module = nullptr;
        vmpack_open_options_t defaults;
        vmpack_open_options_init(&defaults);
        const vmpack_open_options_t &o = options ? *options : defaults;
        if (o.struct_size != sizeof(vmpack_open_options_t))
          return invalid(kFunction,
                         "options.struct_size is not "
                         "sizeof(vmpack_open_options_t): initialize the "
                         "options with vmpack_open_options_init");
        // A C caller can store any int in an enum field; read them as ints.
        static_assert(sizeof(vmpack_load_mode_t) == sizeof(int) &&
                          sizeof(vmpack_verify_mode_t) == sizeof(int),
                      "C enums are ints");
        int loadMode, verifyMode;
        std::memcpy(&loadMode, &o.load_mode, sizeof(int));
        std::memcpy(&verifyMode, &o.verify, sizeof(int));
        LoadOptions load;
        load.threads = o.threads;
        switch (loadMode) {
        case VMPACK_LOAD_AUTO:
          load.mode = LoadMode::Auto;
          break;
        case VMPACK_LOAD_MMAP:
          load.mode = LoadMode::Mmap;
          break;
        case VMPACK_LOAD_READ:
          load.mode = LoadMode::Read;
          break;
        default:
          return invalid(kFunction, "unknown load mode");
        }
        if (verifyMode != VMPACK_VERIFY_STRUCTURE &&
            verifyMode != VMPACK_VERIFY_FULL &&
            verifyMode != VMPACK_VERIFY_LAZY)
          return invalid(kFunction, "unknown verify mode");
        if (o.buffer) {
          if (load.mode != LoadMode::Read)
            return invalid(kFunction,
                           "a buffer needs load_mode VMPACK_LOAD_READ");
          if (reinterpret_cast<uintptr_t>(o.buffer) % kIndexAlignment != 0)
            return invalid(kFunction, "the buffer must be 16-byte aligned");
        }
        if (load.mode == LoadMode::Auto) {
          StatusOr<LoadMode> fromEnvironment = loadModeFromEnvironment();
          if (!fromEnvironment)
            return fail(fromEnvironment.status());
          load.mode = *fromEnvironment;
        }
        if (o.buffer) {
          struct stat st;
          if (::stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
              uint64_t(st.st_size) > o.buffer_size)
            return fail(VMPACK_ERROR_BUFFER_TOO_SMALL,
                        std::string(path) + ": " + std::to_string(st.st_size) +
                            " bytes do not fit the buffer's " +
                            std::to_string(o.buffer_size));
          load.buffer = o.buffer;
          load.bufferSize = o.buffer_size;
        }
        std::string name(path);
        std::string where = name + ": ";
        // A safetensors set is known by its names: the index, or numbered
        // shards of more than one file.
        std::optional<vmpack::formats::ShardName> shard =
            vmpack::formats::parseShardName(name, ".safetensors");
        std::string_view index = vmpack::formats::kSafetensorsIndexSuffix;
        bool isIndex =
            name.size() > index.size() &&
            name.compare(name.size() - index.size(), index.size(), index) == 0;
        if (!isIndex && shard && shard->count > 1 && shard->number > 1)
          return refuseSetFile(
              where, "a safetensors set (numbered shards)",
              SetPosition{shard->number, shard->count}, OpenRole::Path,
              vmpack::formats::firstShardPath(name, ".safetensors"));
        if (isIndex || (shard && shard->count > 1))
          return openSet(name, FileFormat::Safetensors, load, verifyMode,
                         o.threads, out_module);
        StatusOr<std::unique_ptr<LoadedFile>> file =
            LoadedFile::open(path, load);
        if (!file)
          return fail(file.status());
        const uint8_t *data = (*file)->data();
        size_t size = (*file)->size();
        vmpack_module_t *module = nullptr;
        std::optional<FileFormat> opensSet;
        if (vmpack_status_t st =
                finishOpen(std::move(*file), data, size, name, where, &module,
                           OpenRole::Path, &opensSet,
                           vmpack::runtime::foreignFromPath(path));
            st != VMPACK_OK)
          return st;
        if (opensSet)
          return openSet(name, *opensSet, load, verifyMode, o.threads,
                         out_module);
        std::unique_ptr<vmpack_module_t> owner(module);
        if (vmpack_status_t st =
                verifyOnOpen(*module, verifyMode, o.threads, where);
            st != VMPACK_OK)
          return st;
        *out_module = owner.release();
        return VMPACK_OK;
      });
}

vmpack_status_t vmpack_module_open_file(const char *path,
                                        vmpack_module_t **out_module) {
  return guarded("vmpack_module_open_file", [&]() -> vmpack_status_t {
    if (!path || !out_module)
      return invalid("vmpack_module_open_file", "null argument");
    return vmpack_module_open_file_with_options(path, nullptr, out_module);
  });
}

vmpack_load_mode_t vmpack_module_load_mode(const vmpack_module_t *module) {
  if (module)
    module = &headOf(*module);
  if (module && module->file && module->file->mode() == LoadMode::Mmap)
    return VMPACK_LOAD_MMAP;
  return VMPACK_LOAD_READ;
}

vmpack_status_t vmpack_segment_verify(const vmpack_module_t *module,
                                      size_t index) {
  return guarded("vmpack_segment_verify", [&]() -> vmpack_status_t {
    if (!module)
      return invalid("vmpack_segment_verify", "null module");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    module = &fileOf(*module, index);
    if (!module->reader)
      return VMPACK_OK; // .irpa, safetensors and GGUF have no checksums
    const Status &st = checkConstant(*module, index);
    if (!st)
      return fail(st);
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_module_open_memory(const void *data, size_t size,
                                          vmpack_module_t **out_module) {
  return guarded("vmpack_module_open_memory", [&]() -> vmpack_status_t {
    if (!data || !out_module)
      return invalid("vmpack_module_open_memory", "null argument");
    *out_module = nullptr;
    return finishOpen(nullptr, static_cast<const uint8_t *>(data), size, "", "",
                      out_module, OpenRole::Memory);
  });
}

void vmpack_module_close(vmpack_module_t *module) { delete module; }

vmpack_status_t vmpack_module_verify(const vmpack_module_t *module,
                                     unsigned threads) {
  return guarded("vmpack_module_verify", [&]() -> vmpack_status_t {
    if (!module)
      return invalid("vmpack_module_verify", "null module");
    for (const auto &part : module->parts)
      if (vmpack_status_t st = vmpack_module_verify(part.get(), threads);
          st != VMPACK_OK)
        return fail(st, part->path + ": " + lastError);
    if (!module->parts.empty())
      return VMPACK_OK;
    if (module->irpa) {
      Status st = module->irpa->verifyLayout();
      if (!st)
        return fail(st);
      return VMPACK_OK;
    }
    // safetensors and GGUF: no checksums, and opening checked the layout.
    if (module->foreign)
      return VMPACK_OK;
    Status st = verifyAll(*module, threads);
    if (!st)
      return fail(st);
    return VMPACK_OK;
  });
}

vmpack_container_t vmpack_module_container(const vmpack_module_t *module) {
  if (module)
    module = &headOf(*module);
  if (module && module->foreign)
    return module->foreign->container() == ForeignContainer::Gguf
               ? VMPACK_CONTAINER_GGUF
               : VMPACK_CONTAINER_SAFETENSORS;
  return module && module->irpa ? VMPACK_CONTAINER_IRPA : VMPACK_CONTAINER_VMPK;
}

const char *vmpack_module_name(const vmpack_module_t *module) {
  if (module)
    module = &headOf(*module);
  return module && module->reader ? module->reader->moduleName().c_str() : "";
}

const char *vmpack_module_producer(const vmpack_module_t *module) {
  if (module)
    module = &headOf(*module);
  return module && module->reader ? module->reader->producer().c_str() : "";
}

uint32_t vmpack_module_format_version(const vmpack_module_t *module) {
  if (!module)
    return 0;
  module = &headOf(*module);
  if (module->foreign)
    return module->foreign->version();
  return module->irpa ? module->irpa->versionMajor()
                      : module->reader->formatVersion();
}

vmpack_status_t vmpack_module_program(const vmpack_module_t *module,
                                      const void **out_data,
                                      uint64_t *out_length) {
  return guarded("vmpack_module_program", [&]() -> vmpack_status_t {
    if (!module || !out_data || !out_length)
      return invalid("vmpack_module_program", "null argument");
    module = &headOf(*module);
    if (!module->reader)
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  std::string("vmpack_module_program: ") +
                      (module->irpa ? "an IREE parameter archive"
                       : module->foreign->container() == ForeignContainer::Gguf
                           ? "a GGUF file"
                           : "a safetensors file") +
                      " has no program");
    *out_data = module->reader->programData();
    *out_length = module->reader->program().length;
    return VMPACK_OK;
  });
}

size_t vmpack_module_segment_count(const vmpack_module_t *module) {
  return module ? segmentCount(*module) : 0;
}

vmpack_status_t vmpack_module_segment_info(const vmpack_module_t *module,
                                           size_t index,
                                           vmpack_segment_info_t *out_info) {
  return guarded("vmpack_module_segment_info", [&]() -> vmpack_status_t {
    if (!module || !out_info)
      return invalid("vmpack_module_segment_info", "null argument");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    if (!module->parts.empty()) {
      size_t local = index;
      const vmpack_module_t &file = fileOf(*module, local);
      if (vmpack_status_t st =
              vmpack_module_segment_info(&file, local, out_info);
          st != VMPACK_OK)
        return st;
      if (out_info->is_alias)
        out_info->alias_of += index - local; // the file's first segment
      return VMPACK_OK;
    }
    if (module->irpa) {
      irpaSegmentInfo(*module->irpa, index, *out_info);
      return VMPACK_OK;
    }
    if (module->foreign) {
      vmpack::runtime::fillSegmentInfo(*module->foreign, index, *out_info);
      return VMPACK_OK;
    }
    const SegmentInfo &s = module->reader->constant(index);
    vmpack_segment_info_t &i = *out_info;
    vmpack::runtime::fillTypedSegment(
        i, s.name, s.mlirType, module->elementTypeNames[index], s.elementType,
        s.shape, s.numElements, s.encoding, module->reader->constantData(index),
        s.offset, s.length, s.alignment);
    i.checksum = s.checksum;
    i.source_kind = vmpack_source_kind_t(s.sourceKind);
    i.source_key = s.sourceKey.c_str();
    i.source_alignment = s.sourceAlignment;
    i.is_alias = s.isAlias ? 1 : 0;
    i.alias_of = s.aliasOf;
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_module_find_segment(const vmpack_module_t *module,
                                           const char *name, size_t name_length,
                                           size_t *out_index) {
  return guarded("vmpack_module_find_segment", [&]() -> vmpack_status_t {
    if (!module || (!name && name_length) || !out_index)
      return invalid("vmpack_module_find_segment", "null argument");
    std::string_view key(name ? name : "", name_length);
    std::optional<size_t> found;
    if (!module->parts.empty()) {
      auto it = module->setByName.find(key);
      if (it != module->setByName.end())
        found = it->second;
    } else {
      found = module->foreign ? module->foreign->find(key)
              : module->irpa  ? module->irpa->findEntry(key)
                              : module->reader->findConstant(key);
    }
    if (!found)
      return fail(
          VMPACK_ERROR_NOT_FOUND,
          "no segment named '" +
              printableName(std::string_view(name ? name : "", name_length)) +
              "'");
    *out_index = *found;
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_segment_unpack(const vmpack_module_t *module,
                                      size_t index, uint64_t first,
                                      uint64_t count, vmpack_dtype_t dtype,
                                      void *dst, size_t dst_size) {
  // A C caller can pass any int as the enum; read it as one.
  int dtypeValue;
  std::memcpy(&dtypeValue, &dtype, sizeof(int));
  return guarded("vmpack_segment_unpack", [&]() -> vmpack_status_t {
    if (!module || (!dst && count))
      return invalid("vmpack_segment_unpack", "null argument");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    module = &fileOf(*module, index);
    if (module->irpa)
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(module->irpa->entry(index).key) +
                      "': an IREE parameter archive stores no element type, so "
                      "its entries cannot be unpacked (read their bytes)");
    // What unpacking needs, from the .vmpk index or the foreign file.
    std::string_view name;
    ElementType type;
    uint64_t numElements;
    Encoding storedEncoding;
    const uint8_t *data;
    if (module->foreign) {
      const ForeignFile &f = *module->foreign;
      const vmpack::formats::TensorInfo &t = f.tensor(index);
      name = t.name;
      type = t.elementType;
      numElements = f.numElements(index);
      storedEncoding = t.encoding;
      data = f.tensorData(index);
    } else {
      const SegmentInfo &s = module->reader->constant(index);
      name = s.name;
      type = s.elementType;
      numElements = s.numElements;
      storedEncoding = s.encoding;
      data = module->reader->constantData(index);
    }
    uint64_t end;
    if (__builtin_add_overflow(first, count, &end) || end > numElements)
      return fail(VMPACK_ERROR_OUT_OF_RANGE,
                  "segment '" + printableName(name) + "': elements [" +
                      std::to_string(first) + ", +" + std::to_string(count) +
                      ") exceed its " + std::to_string(numElements));
    unsigned dstBytes;
    switch (dtypeValue) {
    case VMPACK_DTYPE_INT8:
      dstBytes = 1;
      break;
    case VMPACK_DTYPE_INT16:
      dstBytes = 2;
      break;
    case VMPACK_DTYPE_INT32:
    case VMPACK_DTYPE_FLOAT32:
      dstBytes = 4;
      break;
    default:
      return invalid("vmpack_segment_unpack", "unknown dtype");
    }
    uint64_t perElement = type.scalarsPerElement();
    uint64_t scalarFirst = first * perElement, scalarCount = count * perElement;
    if (scalarCount > SIZE_MAX / dstBytes || scalarCount * dstBytes > dst_size)
      return fail(VMPACK_ERROR_BUFFER_TOO_SMALL,
                  "segment '" + printableName(name) +
                      "': " + std::to_string(scalarCount) + " values need " +
                      std::to_string(scalarCount * dstBytes) +
                      " bytes, the destination has " +
                      std::to_string(dst_size));
    if (count == 0)
      return VMPACK_OK;
    if (module->lazy)
      if (vmpack_status_t st = vmpack_segment_verify(module, index);
          st != VMPACK_OK)
        return st;
    const ScalarType &scalar = type.scalar;
    const uint8_t *src = data;
    Encoding encoding = effectiveEncoding(type, storedEncoding);
    if (dtypeValue == VMPACK_DTYPE_FLOAT32) {
      if (!scalar.isFloat() || !floatFormat(scalar.kind))
        return fail(VMPACK_ERROR_UNSUPPORTED,
                    "segment '" + printableName(name) + "': " + toString(type) +
                        " does not decode to float32 (only float types of at "
                        "most 32 bits do)");
      unpackToFloat32(encoding, scalar.kind, src, scalarFirst, scalarCount,
                      static_cast<float *>(dst));
      return VMPACK_OK;
    }
    if (!scalar.isInteger() || scalar.width > 8 * dstBytes)
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(name) + "': " + toString(type) +
                      " does not fit int" + std::to_string(8 * dstBytes));
    unpackToInt(encoding, scalar.width, scalar.isSignExtended(), src,
                scalarFirst, scalarCount, dst, dstBytes);
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_segment_foreign_info(const vmpack_module_t *module,
                                            size_t index,
                                            vmpack_foreign_info_t *out_info) {
  return guarded("vmpack_segment_foreign_info", [&]() -> vmpack_status_t {
    if (!module || !out_info)
      return invalid("vmpack_segment_foreign_info", "null argument");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    module = &fileOf(*module, index);
    vmpack_foreign_info_t &i = *out_info;
    i = vmpack_foreign_info_t();
    i.type = "";
    const std::string *name = nullptr;
    const std::vector<int64_t> *shape = nullptr;
    uint32_t typeId = 0;
    if (module->foreign) {
      const ForeignFile &f = *module->foreign;
      name = &f.foreignType(index);
      shape = &f.foreignShape(index);
      typeId = f.tensor(index).ggmlBlockType.value_or(0);
    } else if (module->reader) {
      const SegmentInfo &s = module->reader->constant(index);
      name = &module->vmpkForeignTypes[index];
      shape = &s.foreignShape;
      typeId = s.foreignType;
    }
    if (name && !name->empty()) {
      i.type = name->c_str();
      i.type_id = typeId;
      i.rank = shape->size();
      i.shape = shape->data();
    }
    return VMPACK_OK;
  });
}

size_t vmpack_module_metadata_count(const vmpack_module_t *module) {
  return module ? metadataOf(*module).size() : 0;
}

vmpack_status_t
vmpack_module_metadata_entry(const vmpack_module_t *module, size_t index,
                             vmpack_metadata_entry_t *out_entry) {
  return guarded("vmpack_module_metadata_entry", [&]() -> vmpack_status_t {
    if (!module || !out_entry)
      return invalid("vmpack_module_metadata_entry", "null argument");
    const std::vector<MetadataEntry> &all = metadataOf(*module);
    if (index >= all.size())
      return fail(VMPACK_ERROR_OUT_OF_RANGE,
                  "metadata index " + std::to_string(index) + " >= count " +
                      std::to_string(all.size()));
    const MetadataEntry &e = all[index];
    out_entry->key = e.key.c_str();
    out_entry->key_length = e.key.size();
    out_entry->value = e.value.c_str();
    out_entry->value_length = e.value.size();
    out_entry->value_type = e.type.c_str();
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_module_find_metadata(const vmpack_module_t *module,
                                            const char *key, size_t key_length,
                                            size_t *out_index) {
  return guarded("vmpack_module_find_metadata", [&]() -> vmpack_status_t {
    if (!module || (!key && key_length) || !out_index)
      return invalid("vmpack_module_find_metadata", "null argument");
    std::string_view wanted(key ? key : "", key_length);
    const std::vector<MetadataEntry> &all = metadataOf(*module);
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].key == wanted) {
        *out_index = i;
        return VMPACK_OK;
      }
    }
    return fail(VMPACK_ERROR_NOT_FOUND,
                "no metadata key '" + printableName(wanted) + "'");
  });
}

} // extern "C"

extern "C" {

size_t vmpack_module_file_count(const vmpack_module_t *module) {
  if (!module)
    return 0;
  return module->parts.empty() ? 1 : module->parts.size();
}

const char *vmpack_module_file_path(const vmpack_module_t *module,
                                    size_t file) {
  if (!module)
    return "";
  if (module->parts.empty())
    return file == 0 ? module->path.c_str() : "";
  return file < module->parts.size() ? module->parts[file]->path.c_str() : "";
}

vmpack_status_t vmpack_segment_file(const vmpack_module_t *module, size_t index,
                                    size_t *out_file) {
  return guarded("vmpack_segment_file", [&]() -> vmpack_status_t {
    if (!module || !out_file)
      return invalid("vmpack_segment_file", "null argument");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    fileOf(*module, index, out_file);
    return VMPACK_OK;
  });
}

} // extern "C"

namespace {

/// A quantized segment of one file (after fileOf): its name, ggml type,
/// foreign type name, logical shape and stored bytes; ggmlType 0 when the
/// segment is not quantized.
struct QuantSegment {
  std::string_view name;
  uint32_t ggmlType = 0;
  const std::string *typeName = nullptr;
  const std::vector<int64_t> *shape = nullptr;
  const uint8_t *data = nullptr;
  uint64_t length = 0;
};

static_assert(int(VMPACK_FLOAT_F32) == int(vmpack::quant::FloatType::F32) &&
                  int(VMPACK_FLOAT_F16) == int(vmpack::quant::FloatType::F16) &&
                  int(VMPACK_FLOAT_BF16) == int(vmpack::quant::FloatType::BF16),
              "vmpack_float_type_t numbers quant::FloatType");

QuantSegment quantSegment(const vmpack_module_t &m, size_t index) {
  QuantSegment q;
  if (m.foreign) {
    const ForeignFile &f = *m.foreign;
    const vmpack::formats::TensorInfo &t = f.tensor(index);
    q.name = t.name;
    if (t.ggmlBlockType && vmpack::quant::isGgmlBlockType(*t.ggmlBlockType)) {
      q.ggmlType = *t.ggmlBlockType;
      q.typeName = &f.foreignType(index);
      q.shape = &f.foreignShape(index);
      q.data = f.tensorData(index);
      q.length = t.length;
    }
  } else if (m.reader) {
    const SegmentInfo &s = m.reader->constant(index);
    q.name = s.name;
    if (!m.vmpkForeignTypes[index].empty() &&
        vmpack::quant::isGgmlBlockType(s.foreignType)) {
      q.ggmlType = s.foreignType;
      q.typeName = &m.vmpkForeignTypes[index];
      q.shape = &s.foreignShape;
      q.data = m.reader->constantData(index);
      q.length = s.length;
    }
  }
  return q;
}

/// Elements of q's logical shape, when its bytes are whole blocks of it.
std::optional<uint64_t> quantElements(const QuantSegment &q) {
  std::optional<uint64_t> n = vmpack::formats::numElements(*q.shape);
  uint64_t bs = vmpack::quant::ggmlBlockElements(q.ggmlType),
           bb = vmpack::quant::ggmlBlockBytes(q.ggmlType);
  if (!n || bs == 0 || *n % bs != 0 || q.length / bb < *n / bs)
    return std::nullopt;
  return n;
}

} // namespace

vmpack_status_t vmpack_segment_quant_info(const vmpack_module_t *module,
                                          size_t index,
                                          vmpack_quant_info_t *out_info) {
  return guarded("vmpack_segment_quant_info", [&]() -> vmpack_status_t {
    if (!module || !out_info)
      return invalid("vmpack_segment_quant_info", "null argument");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    module = &fileOf(*module, index);
    vmpack_quant_info_t &i = *out_info;
    i = vmpack_quant_info_t();
    i.scheme = "";
    if (module->irpa)
      return VMPACK_OK;
    QuantSegment q = quantSegment(*module, index);
    if (!q.ggmlType)
      return VMPACK_OK;
    std::optional<uint64_t> n = quantElements(q);
    if (!n)
      return fail(VMPACK_ERROR_FORMAT,
                  "segment '" + printableName(q.name) + "': its " +
                      std::to_string(q.length) + " bytes are not whole " +
                      *q.typeName + " blocks of its logical shape");
    i.scheme = q.typeName->c_str();
    i.ggml_type = q.ggmlType;
    i.block_size = vmpack::quant::ggmlBlockElements(q.ggmlType);
    i.block_bytes = vmpack::quant::ggmlBlockBytes(q.ggmlType);
    i.rank = q.shape->size();
    i.shape = q.shape->data();
    i.element_count = *n;
    i.block_count = *n / i.block_size;
    i.has_fast_kernel =
        vmpack::quant::hasGgmlDequantizeKernel(q.ggmlType) ? 1 : 0;
    return VMPACK_OK;
  });
}

vmpack_status_t vmpack_segment_dequantize(const vmpack_module_t *module,
                                          size_t index, uint64_t first,
                                          uint64_t count,
                                          vmpack_float_type_t type, void *dst,
                                          size_t dst_size, unsigned threads) {
  int typeValue;
  std::memcpy(&typeValue, &type, sizeof(int));
  return guarded("vmpack_segment_dequantize", [&]() -> vmpack_status_t {
    if (!module || (!dst && count))
      return invalid("vmpack_segment_dequantize", "null argument");
    if (typeValue < VMPACK_FLOAT_F32 || typeValue > VMPACK_FLOAT_BF16)
      return invalid("vmpack_segment_dequantize", "unknown float type");
    if (index >= segmentCount(*module))
      return badIndex(*module, index);
    module = &fileOf(*module, index);
    if (module->irpa)
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(module->irpa->entry(index).key) +
                      "': an IREE parameter archive entry has no type, so it "
                      "is not a quantized weight");
    QuantSegment q = quantSegment(*module, index);
    if (!q.ggmlType)
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(q.name) +
                      "' is not quantized (use vmpack_segment_unpack)");
    std::optional<uint64_t> n = quantElements(q);
    if (!n)
      return fail(VMPACK_ERROR_FORMAT,
                  "segment '" + printableName(q.name) + "': its " +
                      std::to_string(q.length) + " bytes are not whole " +
                      *q.typeName + " blocks of its logical shape");
    if (!vmpack::quant::canDequantizeGgml(q.ggmlType))
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(q.name) + "': " + *q.typeName +
                      " has no decoder");
    uint64_t end;
    if (__builtin_add_overflow(first, count, &end) || end > *n)
      return fail(VMPACK_ERROR_OUT_OF_RANGE,
                  "segment '" + printableName(q.name) + "': elements [" +
                      std::to_string(first) + ", +" + std::to_string(count) +
                      ") exceed its " + std::to_string(*n));
    auto to = vmpack::quant::FloatType(typeValue);
    unsigned bytes = vmpack::quant::floatTypeBytes(to);
    if (count > SIZE_MAX / bytes || count * bytes > dst_size)
      return fail(
          VMPACK_ERROR_BUFFER_TOO_SMALL,
          "segment '" + printableName(q.name) + "': " + std::to_string(count) +
              " values need " + std::to_string(count * bytes) +
              " bytes, the destination has " + std::to_string(dst_size));
    if (count == 0)
      return VMPACK_OK;
    if (module->lazy)
      if (vmpack_status_t st = vmpack_segment_verify(module, index);
          st != VMPACK_OK)
        return st;
    vmpack::quant::dequantizeGgmlRange(q.ggmlType, q.data, first, count, to,
                                       dst, threads);
    return VMPACK_OK;
  });
}
