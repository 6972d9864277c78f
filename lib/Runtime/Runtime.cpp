//===- Runtime.cpp - The C API over the archive reader --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A thin layer: argument checking, status codes and the thread-local error
// message. All format knowledge lives in lib/Archive (.vmpk) and lib/Formats
// (.irpa), and all element knowledge in lib/Pack.
//
//===----------------------------------------------------------------------===//

#include "vmpack/vmpack.h"

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Formats/IrpaReader.h"
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

static_assert(VMPACK_ENCODING_PACKED == int(Encoding::Packed) &&
                  VMPACK_ENCODING_WORD == int(Encoding::Word) &&
                  VMPACK_ENCODING_BYTE == int(Encoding::Byte),
              "vmpack_encoding_t follows vmpack::Encoding");

/// The outcome of one segment's CRC check, computed once.
struct SegmentCheck {
  std::once_flag once;
  Status result = Status::ok();
};

/// Exactly one of `reader` (.vmpk) and `irpa` is set.
struct vmpack_module {
  std::unique_ptr<LoadedFile> file; // null when opened from memory
  std::unique_ptr<ArchiveReader> reader;
  std::unique_ptr<IrpaReader> irpa;
  std::vector<std::string> elementTypeNames;
  /// Per constant of a .vmpk: vmpack_segment_verify and lazy verification.
  std::unique_ptr<SegmentCheck[]> checks;
  bool lazy = false;
};

namespace {

thread_local std::string lastError;

vmpack_status_t fail(vmpack_status_t status, std::string message) {
  lastError = std::move(message);
  return status;
}

vmpack_status_t invalid(const char *function, const char *what) {
  return fail(VMPACK_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": " + what);
}

vmpack_status_t finishOpen(std::unique_ptr<LoadedFile> file,
                           const uint8_t *data, size_t size,
                           const std::string &where, vmpack_module_t **out) {
  if (vmpack::formats::irpa::hasMagic(data, size)) {
    StatusOr<std::unique_ptr<IrpaReader>> irpa = IrpaReader::open(data, size);
    if (!irpa)
      return fail(VMPACK_ERROR_FORMAT, where + irpa.status().message());
    auto module = std::make_unique<vmpack_module>();
    module->file = std::move(file);
    module->irpa = std::move(*irpa);
    *out = module.release();
    return VMPACK_OK;
  }
  StatusOr<std::unique_ptr<ArchiveReader>> reader =
      ArchiveReader::open(data, size);
  if (!reader)
    return fail(VMPACK_ERROR_FORMAT, where + reader.status().message());
  auto module = std::make_unique<vmpack_module>();
  module->file = std::move(file);
  module->reader = std::move(*reader);
  for (size_t i = 0; i < module->reader->numConstants(); ++i)
    module->elementTypeNames.push_back(
        toString(module->reader->constant(i).elementType));
  module->checks.reset(new SegmentCheck[module->reader->numConstants()]);
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
Encoding effectiveEncoding(const SegmentInfo &s) {
  uint32_t w = s.elementType.scalarBits();
  if (s.encoding == Encoding::Word && (w == 2 || w == 4))
    return Encoding::Packed;
  return s.encoding;
}

size_t segmentCount(const vmpack_module_t &m) {
  return m.irpa ? m.irpa->numEntries() : m.reader->numConstants();
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
  static const char *kFunction = "vmpack_module_open_file_with_options";
  if (!path || !out_module)
    return invalid(kFunction, "null argument");
  *out_module = nullptr;
  vmpack_open_options_t defaults;
  vmpack_open_options_init(&defaults);
  const vmpack_open_options_t &o = options ? *options : defaults;
  if (o.struct_size != sizeof(vmpack_open_options_t))
    return invalid(kFunction, "options.struct_size is not "
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
      verifyMode != VMPACK_VERIFY_FULL && verifyMode != VMPACK_VERIFY_LAZY)
    return invalid(kFunction, "unknown verify mode");
  if (o.buffer) {
    if (load.mode != LoadMode::Read)
      return invalid(kFunction, "a buffer needs load_mode VMPACK_LOAD_READ");
    if (reinterpret_cast<uintptr_t>(o.buffer) % kIndexAlignment != 0)
      return invalid(kFunction, "the buffer must be 16-byte aligned");
  }
  try {
    if (load.mode == LoadMode::Auto) {
      StatusOr<LoadMode> fromEnvironment = loadModeFromEnvironment();
      if (!fromEnvironment)
        return fail(VMPACK_ERROR_INVALID_ARGUMENT,
                    fromEnvironment.status().message());
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
    StatusOr<std::unique_ptr<LoadedFile>> file = LoadedFile::open(path, load);
    if (!file)
      return fail(VMPACK_ERROR_IO, file.status().message());
    const uint8_t *data = (*file)->data();
    size_t size = (*file)->size();
    vmpack_module_t *module = nullptr;
    std::string where = std::string(path) + ": ";
    if (vmpack_status_t st =
            finishOpen(std::move(*file), data, size, where, &module);
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
        return fail(VMPACK_ERROR_CHECKSUM, where + st.message());
    }
    *out_module = owner.release();
    return VMPACK_OK;
  } catch (const std::bad_alloc &) {
    return fail(VMPACK_ERROR_OUT_OF_MEMORY, "out of memory opening a module");
  } catch (const std::exception &e) {
    // std::thread creation can fail with std::system_error.
    return fail(VMPACK_ERROR_INTERNAL,
                std::string(kFunction) + ": " + e.what());
  }
}

vmpack_status_t vmpack_module_open_file(const char *path,
                                        vmpack_module_t **out_module) {
  if (!path || !out_module)
    return invalid("vmpack_module_open_file", "null argument");
  return vmpack_module_open_file_with_options(path, nullptr, out_module);
}

vmpack_load_mode_t vmpack_module_load_mode(const vmpack_module_t *module) {
  if (module && module->file && module->file->mode() == LoadMode::Mmap)
    return VMPACK_LOAD_MMAP;
  return VMPACK_LOAD_READ;
}

vmpack_status_t vmpack_segment_verify(const vmpack_module_t *module,
                                      size_t index) {
  if (!module)
    return invalid("vmpack_segment_verify", "null module");
  if (index >= segmentCount(*module))
    return badIndex(*module, index);
  if (module->irpa)
    return VMPACK_OK; // an .irpa file has no checksums
  try {
    const Status &st = checkConstant(*module, index);
    if (!st)
      return fail(VMPACK_ERROR_CHECKSUM, st.message());
    return VMPACK_OK;
  } catch (const std::exception &e) {
    return fail(VMPACK_ERROR_INTERNAL,
                std::string("vmpack_segment_verify: ") + e.what());
  }
}

vmpack_status_t vmpack_module_open_memory(const void *data, size_t size,
                                          vmpack_module_t **out_module) {
  if (!data || !out_module)
    return invalid("vmpack_module_open_memory", "null argument");
  *out_module = nullptr;
  try {
    return finishOpen(nullptr, static_cast<const uint8_t *>(data), size, "",
                      out_module);
  } catch (const std::bad_alloc &) {
    return fail(VMPACK_ERROR_OUT_OF_MEMORY, "out of memory opening a module");
  }
}

void vmpack_module_close(vmpack_module_t *module) { delete module; }

vmpack_status_t vmpack_module_verify(const vmpack_module_t *module,
                                     unsigned threads) {
  if (!module)
    return invalid("vmpack_module_verify", "null module");
  if (module->irpa) {
    Status st = module->irpa->verifyLayout();
    if (!st)
      return fail(VMPACK_ERROR_FORMAT, st.message());
    return VMPACK_OK;
  }
  try {
    Status st = verifyAll(*module, threads);
    if (!st)
      return fail(VMPACK_ERROR_CHECKSUM, st.message());
    return VMPACK_OK;
  } catch (const std::exception &e) {
    // std::thread creation can fail with std::system_error.
    return fail(VMPACK_ERROR_INTERNAL,
                std::string("vmpack_module_verify: ") + e.what());
  }
}

vmpack_container_t vmpack_module_container(const vmpack_module_t *module) {
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
  return module->irpa ? module->irpa->versionMajor()
                      : module->reader->formatVersion();
}

vmpack_status_t vmpack_module_program(const vmpack_module_t *module,
                                      const void **out_data,
                                      uint64_t *out_length) {
  if (!module || !out_data || !out_length)
    return invalid("vmpack_module_program", "null argument");
  if (module->irpa)
    return fail(VMPACK_ERROR_UNSUPPORTED,
                "vmpack_module_program: an IREE parameter archive has no "
                "program");
  *out_data = module->reader->programData();
  *out_length = module->reader->program().length;
  return VMPACK_OK;
}

size_t vmpack_module_segment_count(const vmpack_module_t *module) {
  return module ? segmentCount(*module) : 0;
}

vmpack_status_t vmpack_module_segment_info(const vmpack_module_t *module,
                                           size_t index,
                                           vmpack_segment_info_t *out_info) {
  if (!module || !out_info)
    return invalid("vmpack_module_segment_info", "null argument");
  if (index >= segmentCount(*module))
    return badIndex(*module, index);
  if (module->irpa) {
    irpaSegmentInfo(*module->irpa, index, *out_info);
    return VMPACK_OK;
  }
  const SegmentInfo &s = module->reader->constant(index);
  vmpack_segment_info_t &i = *out_info;
  i.name = s.name.c_str();
  i.name_length = s.name.size();
  i.mlir_type = s.mlirType.c_str();
  i.element_type = module->elementTypeNames[index].c_str();
  i.scalar_kind = vmpack_scalar_kind_t(s.elementType.scalar.kind);
  i.scalar_bits = s.elementType.scalar.width;
  i.is_complex = s.elementType.isComplex ? 1 : 0;
  i.rank = s.shape.size();
  i.shape = s.shape.data();
  i.element_count = s.numElements;
  i.encoding = vmpack_encoding_t(s.encoding);
  i.data = module->reader->constantData(index);
  i.offset = s.offset;
  i.length = s.length;
  i.alignment = s.alignment;
  i.checksum = s.checksum;
  i.source_kind = vmpack_source_kind_t(s.sourceKind);
  i.source_key = s.sourceKey.c_str();
  i.source_alignment = s.sourceAlignment;
  i.is_alias = s.isAlias ? 1 : 0;
  i.alias_of = s.aliasOf;
  i.kind = VMPACK_SEGMENT_TYPED;
  i.splat_pattern = nullptr;
  i.splat_pattern_length = 0;
  i.metadata = nullptr;
  i.metadata_length = 0;
  return VMPACK_OK;
}

vmpack_status_t vmpack_module_find_segment(const vmpack_module_t *module,
                                           const char *name, size_t name_length,
                                           size_t *out_index) {
  if (!module || (!name && name_length) || !out_index)
    return invalid("vmpack_module_find_segment", "null argument");
  std::string_view key(name ? name : "", name_length);
  std::optional<size_t> found = module->irpa
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
}

vmpack_status_t vmpack_segment_unpack(const vmpack_module_t *module,
                                      size_t index, uint64_t first,
                                      uint64_t count, vmpack_dtype_t dtype,
                                      void *dst, size_t dst_size) {
  if (!module || (!dst && count))
    return invalid("vmpack_segment_unpack", "null argument");
  if (index >= segmentCount(*module))
    return badIndex(*module, index);
  if (module->irpa)
    return fail(VMPACK_ERROR_UNSUPPORTED,
                "segment '" + printableName(module->irpa->entry(index).key) +
                    "': an IREE parameter archive stores no element type, so "
                    "its entries cannot be unpacked (read their bytes)");
  const SegmentInfo &s = module->reader->constant(index);
  uint64_t end;
  if (__builtin_add_overflow(first, count, &end) || end > s.numElements)
    return fail(VMPACK_ERROR_OUT_OF_RANGE,
                "segment '" + printableName(s.name) + "': elements [" +
                    std::to_string(first) + ", +" + std::to_string(count) +
                    ") exceed its " + std::to_string(s.numElements));
  unsigned dstBytes;
  switch (dtype) {
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
  uint64_t perElement = s.elementType.scalarsPerElement();
  uint64_t scalarFirst = first * perElement, scalarCount = count * perElement;
  if (scalarCount > SIZE_MAX / dstBytes || scalarCount * dstBytes > dst_size)
    return fail(VMPACK_ERROR_BUFFER_TOO_SMALL,
                "segment '" + printableName(s.name) +
                    "': " + std::to_string(scalarCount) + " values need " +
                    std::to_string(scalarCount * dstBytes) +
                    " bytes, the destination has " + std::to_string(dst_size));
  if (count == 0)
    return VMPACK_OK;
  if (module->lazy)
    if (vmpack_status_t st = vmpack_segment_verify(module, index);
        st != VMPACK_OK)
      return st;
  const ScalarType &scalar = s.elementType.scalar;
  const uint8_t *src = module->reader->constantData(index);
  Encoding encoding = effectiveEncoding(s);
  if (dtype == VMPACK_DTYPE_FLOAT32) {
    if (!scalar.isFloat() || !floatFormat(scalar.kind))
      return fail(VMPACK_ERROR_UNSUPPORTED,
                  "segment '" + printableName(s.name) +
                      "': " + toString(s.elementType) +
                      " does not decode to float32 (only float types of at "
                      "most 32 bits do)");
    unpackToFloat32(encoding, scalar.kind, src, scalarFirst, scalarCount,
                    static_cast<float *>(dst));
    return VMPACK_OK;
  }
  if (!scalar.isInteger() || scalar.width > 8 * dstBytes)
    return fail(VMPACK_ERROR_UNSUPPORTED, "segment '" + printableName(s.name) +
                                              "': " + toString(s.elementType) +
                                              " does not fit int" +
                                              std::to_string(8 * dstBytes));
  unpackToInt(encoding, scalar.width, scalar.isSignExtended(), src, scalarFirst,
              scalarCount, dst, dstBytes);
  return VMPACK_OK;
}

} // extern "C"
