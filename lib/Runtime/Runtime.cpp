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

#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::archive;
using vmpack::formats::IrpaEntry;
using vmpack::formats::IrpaEntryKind;
using vmpack::formats::IrpaReader;
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

/// Exactly one of `reader` (.vmpk), `irpa` and `foreign` (safetensors,
/// GGUF) is set.
struct vmpack_module {
  std::unique_ptr<LoadedFile> file; // null when opened from memory
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

/// `hint`: the format a file's name says, used when its first bytes are
/// not recognised, so that a damaged .safetensors gets safetensors' error.
vmpack_status_t finishOpen(std::unique_ptr<LoadedFile> file,
                           const uint8_t *data, size_t size,
                           const std::string &where, vmpack_module_t **out,
                           std::optional<ForeignContainer> hint = {}) {
  std::optional<ForeignContainer> foreign =
      vmpack::runtime::sniffForeign(data, size);
  static const uint8_t kZipLocalHeader[4] = {'P', 'K', 3, 4};
  if (!foreign && hint && !vmpack::formats::irpa::hasMagic(data, size) &&
      !(size >= 4 && std::memcmp(data, kZipLocalHeader, 4) == 0))
    foreign = hint;
  if (foreign && !vmpack::formats::irpa::hasMagic(data, size))
    return openForeign(*foreign, std::move(file), data, size, where, out);
  if (vmpack::formats::irpa::hasMagic(data, size)) {
    StatusOr<std::unique_ptr<IrpaReader>> irpa = IrpaReader::open(data, size);
    if (!irpa)
      return fail(irpa.status(), where);
    auto module = std::make_unique<vmpack_module>();
    module->file = std::move(file);
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
    return fail(VMPACK_ERROR_UNSUPPORTED,
                where + "shard " + std::to_string((*shard)->number) + " of " +
                    std::to_string((*shard)->count) +
                    " of a sharded module; the runtime opens whole modules "
                    "only: join the set with vmpack-convert FIRST-SHARD -o "
                    "OUT.vmpk");
  auto module = std::make_unique<vmpack_module>();
  module->file = std::move(file);
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
  if (m.foreign)
    return m.foreign->numTensors();
  return m.irpa ? m.irpa->numEntries() : m.reader->numConstants();
}

const std::vector<MetadataEntry> &metadataOf(const vmpack_module_t &m) {
  static const std::vector<MetadataEntry> none;
  if (m.foreign)
    return m.foreign->metadata();
  return m.reader ? m.vmpkMetadata : none;
}

vmpack_status_t badIndex(const vmpack_module_t &m, size_t index) {
  return fail(VMPACK_ERROR_OUT_OF_RANGE,
              "segment index " + std::to_string(index) + " >= count " +
                  std::to_string(segmentCount(m)));
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
        StatusOr<std::unique_ptr<LoadedFile>> file =
            LoadedFile::open(path, load);
        if (!file)
          return fail(file.status());
        const uint8_t *data = (*file)->data();
        size_t size = (*file)->size();
        vmpack_module_t *module = nullptr;
        std::string where = std::string(path) + ": ";
        if (vmpack_status_t st =
                finishOpen(std::move(*file), data, size, where, &module,
                           vmpack::runtime::foreignFromPath(path));
            st != VMPACK_OK)
          return st;
        std::unique_ptr<vmpack_module_t> owner(module);
        if (verifyMode == VMPACK_VERIFY_FULL) {
          if (vmpack_status_t st = vmpack_module_verify(module, o.threads);
              st != VMPACK_OK)
            return fail(st, where + lastError);
        } else if (verifyMode == VMPACK_VERIFY_LAZY && module->reader) {
          // (An .irpa file has no checksums to check lazily.)
          module->lazy = true;
          size_t program = module->reader->numConstants();
          Status st = Status::ok();
          if (module->file->hasRangeCrcs()) {
            ArchiveReader::RangeCrc crcOf = rangeCrcOf(*module->file);
            st = module->reader->verifyEntry(program, &crcOf);
          } else {
            st = module->reader->verifyEntry(program);
          }
          if (!st)
            return fail(st, where);
        }
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
    return finishOpen(nullptr, static_cast<const uint8_t *>(data), size, "",
                      out_module);
  });
}

void vmpack_module_close(vmpack_module_t *module) { delete module; }

vmpack_status_t vmpack_module_verify(const vmpack_module_t *module,
                                     unsigned threads) {
  return guarded("vmpack_module_verify", [&]() -> vmpack_status_t {
    if (!module)
      return invalid("vmpack_module_verify", "null module");
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
  if (module && module->foreign)
    return module->foreign->container() == ForeignContainer::Gguf
               ? VMPACK_CONTAINER_GGUF
               : VMPACK_CONTAINER_SAFETENSORS;
  return module && module->irpa ? VMPACK_CONTAINER_IRPA : VMPACK_CONTAINER_VMPK;
}

const char *vmpack_module_name(const vmpack_module_t *module) {
  return module && module->reader ? module->reader->moduleName().c_str() : "";
}

const char *vmpack_module_producer(const vmpack_module_t *module) {
  return module && module->reader ? module->reader->producer().c_str() : "";
}

uint32_t vmpack_module_format_version(const vmpack_module_t *module) {
  if (!module)
    return 0;
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
    std::optional<size_t> found = module->foreign ? module->foreign->find(key)
                                  : module->irpa
                                      ? module->irpa->findEntry(key)
                                      : module->reader->findConstant(key);
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
