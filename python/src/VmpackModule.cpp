//===- VmpackModule.cpp - The _vmpack Python extension --------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A thin binding of the C runtime (include/vmpack/vmpack.h) for the pure
// Python layer in python/vmpack/__init__.py: opening a module, its segment
// records, zero-copy numpy views of stored bytes, unpacking into a caller's
// numpy array, verification, and one exception class per vmpack_status_t.
//
// Lifetime: an open module is a shared handle. Module.close() drops the
// Python object's reference; every numpy view holds another one (as its
// base object), so the mapping is unmapped when the module is closed and
// the last view is gone, whichever comes last. Calls that release the GIL
// hold their own reference for the duration, so closing from another
// thread cannot pull the mapping away under them.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"
#include "Convert.h"
#include "Planar.h"
#include "SaveFile.h"

#include "vmpack/vmpack.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// Outputs at least this large are unpacked without the GIL.
constexpr size_t kReleaseGilBytes = 1 << 16;

//===----------------------------------------------------------------------===//
// Exceptions
//===----------------------------------------------------------------------===//

/// The Python class of each error status, and the built-in exception it
/// also derives from so that generic handlers catch it.
struct StatusClass {
  vmpack_status_t status;
  const char *name;
  PyObject *builtin;
};

constexpr size_t kNumStatuses = VMPACK_ERROR_INTERNAL + 1;
PyObject *statusClasses[kNumStatuses];
PyObject *errorClass;

void createExceptionClasses(py::module_ &m) {
  errorClass = PyErr_NewExceptionWithDoc(
      "vmpack.Error",
      "Base class of every vmpack error. `status` is the C API's "
      "vmpack_status_t value, `status_name` its name.",
      PyExc_Exception, nullptr);
  py::setattr(errorClass, "status", py::none());
  py::setattr(errorClass, "status_name", py::none());
  m.add_object("Error", py::handle(errorClass));
  const StatusClass table[] = {
      {VMPACK_ERROR_INVALID_ARGUMENT, "InvalidArgumentError", PyExc_ValueError},
      {VMPACK_ERROR_IO, "IOError", PyExc_OSError},
      {VMPACK_ERROR_FORMAT, "FormatError", PyExc_ValueError},
      {VMPACK_ERROR_CHECKSUM, "ChecksumError", PyExc_ValueError},
      {VMPACK_ERROR_NOT_FOUND, "NotFoundError", PyExc_KeyError},
      {VMPACK_ERROR_OUT_OF_RANGE, "OutOfRangeError", PyExc_IndexError},
      {VMPACK_ERROR_UNSUPPORTED, "UnsupportedError", PyExc_TypeError},
      {VMPACK_ERROR_BUFFER_TOO_SMALL, "BufferTooSmallError", PyExc_ValueError},
      {VMPACK_ERROR_OUT_OF_MEMORY, "OutOfMemoryError", PyExc_MemoryError},
      {VMPACK_ERROR_INTERNAL, "InternalError", PyExc_RuntimeError},
  };
  static_assert(std::size(table) == kNumStatuses - 1,
                "one exception class per vmpack_status_t error");
  py::dict classes;
  for (const StatusClass &entry : table) {
    std::string qualified = std::string("vmpack.") + entry.name;
    PyObject *bases = PyTuple_Pack(2, errorClass, entry.builtin);
    std::string doc =
        std::string("Raised for ") + vmpack_status_name(entry.status) + ".";
    PyObject *cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc.c_str(),
                                              bases, nullptr);
    Py_DECREF(bases);
    if (!cls)
      throw py::error_already_set();
    py::setattr(cls, "status", py::int_(int(entry.status)));
    py::setattr(cls, "status_name", py::str(vmpack_status_name(entry.status)));
    statusClasses[entry.status] = cls;
    m.add_object(entry.name, py::handle(cls));
    classes[py::int_(int(entry.status))] = py::handle(cls);
  }
  m.attr("STATUS_CLASSES") = classes;
}

/// Raises the class of `status` with the C API's message for the last
/// failed call on this thread.
[[noreturn]] void raiseStatus(vmpack_status_t status) {
  PyObject *cls = size_t(status) < kNumStatuses && statusClasses[status]
                      ? statusClasses[status]
                      : errorClass;
  const char *message = vmpack_last_error();
  std::string text = message && *message ? message : vmpack_status_name(status);
  // KeyError's str() quotes its argument; the message is clearer as is, so
  // set it as the single argument in every case. Messages may quote bytes
  // of a damaged file that are not UTF-8: escape those.
  PyObject *message_object = PyUnicode_DecodeUTF8(
      text.data(), py::ssize_t(text.size()), "backslashreplace");
  if (!message_object)
    throw py::error_already_set();
  PyErr_SetObject(cls, message_object);
  Py_DECREF(message_object);
  throw py::error_already_set();
}

void check(vmpack_status_t status) {
  if (status != VMPACK_OK)
    raiseStatus(status);
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// One open module. `owned` holds the bytes of a module opened from a
/// Python bytes-like object (copied once, to get the alignment the C API
/// needs and a lifetime Python cannot cut short). `buffer` is the caller's
/// buffer a file was read into: holding the buffer export keeps the object
/// alive and (for a bytearray) unresizable while the module uses it.
/// Destroyed with the GIL held (every owner is a Python object or a
/// function that holds the GIL when it returns).
struct Handle {
  vmpack_module_t *module = nullptr;
  void *owned = nullptr;
  std::unique_ptr<py::buffer_info> buffer;
  /// Opened with VMPACK_VERIFY_LAZY: views check the segment's CRC first.
  bool lazy = false;
  ~Handle() {
    vmpack_module_close(module);
    std::free(owned);
  }
};
using HandlePtr = std::shared_ptr<Handle>;

/// A read-only uint8 array over [data, data + length) whose base object
/// keeps `handle` (and so the mapping) alive.
py::array byteView(const HandlePtr &handle, const void *data, uint64_t length) {
  py::array view;
  if (length == 0 || !data) {
    view = py::array_t<uint8_t>(py::ssize_t(0));
  } else {
    auto *keep = new HandlePtr(handle);
    py::capsule base(keep, [](void *p) { delete static_cast<HandlePtr *>(p); });
    view = py::array(py::dtype::of<uint8_t>(),
                     std::vector<py::ssize_t>{py::ssize_t(length)},
                     std::vector<py::ssize_t>{1}, data, base);
  }
  py::detail::array_proxy(view.ptr())->flags &=
      ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return view;
}

class Module {
public:
  /// vmpack_module_open_file_with_options; `buffer` is None or a writable
  /// C-contiguous buffer the file is read into.
  static Module openFile(const std::string &path, int loadMode, int verify,
                         unsigned threads, const py::object &buffer) {
    auto handle = std::make_shared<Handle>();
    vmpack_open_options_t options;
    vmpack_open_options_init(&options);
    options.load_mode = vmpack_load_mode_t(loadMode);
    options.verify = vmpack_verify_mode_t(verify);
    options.threads = threads;
    if (!buffer.is_none()) {
      py::buffer b = py::reinterpret_borrow<py::buffer>(buffer);
      handle->buffer = std::make_unique<py::buffer_info>(b.request(true));
      if (!PyBuffer_IsContiguous(handle->buffer->view(), 'C')) {
        PyErr_SetString(statusClasses[VMPACK_ERROR_INVALID_ARGUMENT],
                        "vmpack.open: the buffer must be C-contiguous");
        throw py::error_already_set();
      }
      options.buffer = handle->buffer->ptr;
      options.buffer_size =
          size_t(handle->buffer->size) * size_t(handle->buffer->itemsize);
    }
    vmpack_status_t status;
    {
      py::gil_scoped_release release;
      status = vmpack_module_open_file_with_options(path.c_str(), &options,
                                                    &handle->module);
    }
    check(status);
    handle->lazy = verify == VMPACK_VERIFY_LAZY;
    return Module(std::move(handle));
  }

  static Module openMemory(const py::buffer &data) {
    py::buffer_info buffer = data.request();
    if (!PyBuffer_IsContiguous(buffer.view(), 'C')) {
      PyErr_SetString(statusClasses[VMPACK_ERROR_INVALID_ARGUMENT],
                      "vmpack.load: the buffer must be contiguous");
      throw py::error_already_set();
    }
    size_t size = size_t(buffer.size) * size_t(buffer.itemsize);
    auto handle = std::make_shared<Handle>();
    // 64 covers the 16 bytes the C API needs and every cache line.
    size_t rounded = (size + 63) / 64 * 64;
    handle->owned = std::aligned_alloc(64, rounded ? rounded : 64);
    if (!handle->owned)
      throw std::bad_alloc();
    vmpack_status_t status;
    {
      py::gil_scoped_release release;
      if (size)
        std::memcpy(handle->owned, buffer.ptr, size);
      status = vmpack_module_open_memory(handle->owned, size, &handle->module);
    }
    check(status);
    return Module(std::move(handle));
  }

  void close() { handle.reset(); }
  bool closed() const { return !handle; }

  std::string name() const { return vmpack_module_name(get()); }
  std::string producer() const { return vmpack_module_producer(get()); }
  uint32_t formatVersion() const { return vmpack_module_format_version(get()); }
  size_t count() const { return vmpack_module_segment_count(get()); }
  int container() const { return int(vmpack_module_container(get())); }
  int loadMode() const { return int(vmpack_module_load_mode(get())); }

  /// [(key, value, value_type)], keys and values as bytes (they may hold
  /// any byte), in the C API's order.
  py::list metadata() const {
    const vmpack_module_t *m = get();
    py::list out;
    for (size_t i = 0; i < vmpack_module_metadata_count(m); ++i) {
      vmpack_metadata_entry_t e;
      check(vmpack_module_metadata_entry(m, i, &e));
      out.append(py::make_tuple(py::bytes(e.key, e.key_length),
                                py::bytes(e.value, e.value_length),
                                py::str(e.value_type)));
    }
    return out;
  }

  /// (type, type_id, logical shape) of a foreign segment, else None.
  py::object foreign(size_t index) const {
    vmpack_foreign_info_t f;
    check(vmpack_segment_foreign_info(get(), index, &f));
    if (!*f.type)
      return py::none();
    py::tuple shape(f.rank);
    for (size_t k = 0; k < f.rank; ++k)
      shape[k] = py::int_(f.shape[k]);
    return py::make_tuple(py::str(f.type), f.type_id, shape);
  }

  /// vmpack_segment_quant_info as a dict, or None when not quantized.
  py::object quantInfo(size_t index) const {
    vmpack_quant_info_t q;
    check(vmpack_segment_quant_info(get(), index, &q));
    if (!*q.scheme)
      return py::none();
    py::tuple shape(q.rank);
    for (size_t k = 0; k < q.rank; ++k)
      shape[k] = py::int_(q.shape[k]);
    py::dict d;
    d["scheme"] = py::str(q.scheme);
    d["ggml_type"] = q.ggml_type;
    d["block_size"] = q.block_size;
    d["block_bytes"] = q.block_bytes;
    d["shape"] = shape;
    d["element_count"] = q.element_count;
    d["block_count"] = q.block_count;
    d["has_fast_kernel"] = bool(q.has_fast_kernel);
    return d;
  }

  /// Dequantizes elements [first, first + count) into `out`, a writable
  /// C-contiguous array; the C API checks its size.
  void dequantize(size_t index, uint64_t first, uint64_t count, int type,
                  py::array &out, unsigned threads) const {
    if (!(out.flags() & py::array::c_style) || !out.writeable()) {
      PyErr_SetString(statusClasses[VMPACK_ERROR_INVALID_ARGUMENT],
                      "dequantize: the destination must be a writable "
                      "C-contiguous array");
      throw py::error_already_set();
    }
    HandlePtr keep = handle;
    const vmpack_module_t *m = get();
    void *dst = out.mutable_data();
    size_t size = size_t(out.nbytes());
    vmpack_status_t status;
    {
      py::gil_scoped_release release;
      status = vmpack_segment_dequantize(m, index, first, count,
                                         vmpack_float_type_t(type), dst, size,
                                         threads);
    }
    check(status);
  }

  void verifySegment(size_t index) const {
    check(vmpack_segment_verify(get(), index));
  }

  py::dict info(size_t index) const {
    vmpack_segment_info_t i;
    check(vmpack_module_segment_info(get(), index, &i));
    py::dict d;
    d["index"] = index;
    d["name"] = py::bytes(i.name, i.name_length);
    d["mlir_type"] = py::str(i.mlir_type);
    d["element_type"] = py::str(i.element_type);
    d["scalar_kind"] = int(i.scalar_kind);
    d["scalar_bits"] = i.scalar_bits;
    d["is_complex"] = bool(i.is_complex);
    py::tuple shape(i.rank);
    for (size_t k = 0; k < i.rank; ++k)
      shape[k] = py::int_(i.shape[k]);
    d["shape"] = shape;
    d["element_count"] = i.element_count;
    d["encoding"] = int(i.encoding);
    d["offset"] = i.offset;
    d["length"] = i.length;
    d["alignment"] = i.alignment;
    d["checksum"] = i.checksum;
    d["source_kind"] = int(i.source_kind);
    d["source_key"] = py::str(i.source_key);
    d["source_alignment"] = i.source_alignment;
    d["is_alias"] = bool(i.is_alias);
    d["alias_of"] = i.is_alias ? py::object(py::int_(i.alias_of)) : py::none();
    d["kind"] = int(i.kind);
    d["splat_pattern"] =
        i.splat_pattern ? py::object(py::bytes(
                              reinterpret_cast<const char *>(i.splat_pattern),
                              i.splat_pattern_length))
                        : py::none();
    d["metadata"] =
        i.metadata ? py::object(py::bytes(static_cast<const char *>(i.metadata),
                                          size_t(i.metadata_length)))
                   : py::none();
    return d;
  }

  size_t find(const py::bytes &name) const {
    std::string_view text = name;
    size_t index;
    check(vmpack_module_find_segment(get(), text.data(), text.size(), &index));
    return index;
  }

  /// The stored bytes of segment `index`, without copying. A splat (.irpa)
  /// stores no bytes: its pattern is repeated into a new array.
  py::array view(size_t index) const {
    vmpack_segment_info_t i;
    check(vmpack_module_segment_info(get(), index, &i));
    // Lazy verification: bytes handed out are checked first, as unpacking
    // checks them (vmpack.h, VMPACK_VERIFY_LAZY).
    if (handle->lazy)
      check(vmpack_segment_verify(get(), index));
    if (i.kind == VMPACK_SEGMENT_UNTYPED_SPLAT) {
      if (!i.splat_pattern_length || i.length % i.splat_pattern_length) {
        PyErr_SetString(statusClasses[VMPACK_ERROR_FORMAT],
                        "splat length is not a multiple of its pattern");
        throw py::error_already_set();
      }
      if (i.length > uint64_t(PY_SSIZE_T_MAX)) {
        PyErr_SetString(statusClasses[VMPACK_ERROR_OUT_OF_MEMORY],
                        "splat too large to expand in memory");
        throw py::error_already_set();
      }
      py::array_t<uint8_t> out(py::ssize_t(i.length));
      uint8_t *dst = out.mutable_data();
      for (uint64_t k = 0; k < i.length; k += i.splat_pattern_length)
        std::memcpy(dst + k, i.splat_pattern, i.splat_pattern_length);
      py::detail::array_proxy(out.ptr())->flags &=
          ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
      return std::move(out);
    }
    return byteView(handle, i.data, i.length);
  }

  py::array program() const {
    const void *data;
    uint64_t length;
    check(vmpack_module_program(get(), &data, &length));
    return byteView(handle, data, length);
  }

  /// Unpacks elements [first, first + count) into `out`, a C-contiguous
  /// writable array; the C API checks that it is large enough.
  void unpack(size_t index, uint64_t first, uint64_t count, int dtype,
              py::array &out) const {
    if (!(out.flags() & py::array::c_style) || !out.writeable()) {
      PyErr_SetString(statusClasses[VMPACK_ERROR_INVALID_ARGUMENT],
                      "unpack: the destination must be a writable "
                      "C-contiguous array");
      throw py::error_already_set();
    }
    HandlePtr keep = handle;
    const vmpack_module_t *m = get();
    void *dst = out.mutable_data();
    size_t size = size_t(out.nbytes());
    vmpack_status_t status;
    if (size >= kReleaseGilBytes) {
      py::gil_scoped_release release;
      status = vmpack_segment_unpack(m, index, first, count,
                                     vmpack_dtype_t(dtype), dst, size);
    } else {
      status = vmpack_segment_unpack(m, index, first, count,
                                     vmpack_dtype_t(dtype), dst, size);
    }
    check(status);
  }

  void verify(unsigned threads) const {
    HandlePtr keep = handle;
    const vmpack_module_t *m = get();
    vmpack_status_t status;
    {
      py::gil_scoped_release release;
      status = vmpack_module_verify(m, threads);
    }
    check(status);
  }

  /// How many owners the handle has: this module plus live views (for the
  /// lifetime tests).
  long handleUseCount() const { return handle ? long(handle.use_count()) : 0; }

private:
  explicit Module(HandlePtr handle) : handle(std::move(handle)) {}

  const vmpack_module_t *get() const {
    if (!handle)
      throw py::value_error("the vmpack module is closed");
    return handle->module;
  }

  HandlePtr handle;
};

} // namespace

PYBIND11_MODULE(_vmpack, m) {
  m.doc() = "The C runtime of vmpack (include/vmpack/vmpack.h) for the "
            "vmpack package; use `import vmpack`, not this module.";
  createExceptionClasses(m);

  // The C API's enums, by their C names, so Python never repeats a value.
  py::dict scalarKinds;
#define VMPACK_KIND(name) scalarKinds[#name] = int(VMPACK_SCALAR_##name)
  VMPACK_KIND(SIGNLESS_INT);
  VMPACK_KIND(SIGNED_INT);
  VMPACK_KIND(UNSIGNED_INT);
  VMPACK_KIND(INDEX);
  VMPACK_KIND(F4E2M1FN);
  VMPACK_KIND(F6E2M3FN);
  VMPACK_KIND(F6E3M2FN);
  VMPACK_KIND(F8E5M2);
  VMPACK_KIND(F8E4M3);
  VMPACK_KIND(F8E4M3FN);
  VMPACK_KIND(F8E5M2FNUZ);
  VMPACK_KIND(F8E4M3FNUZ);
  VMPACK_KIND(F8E4M3B11FNUZ);
  VMPACK_KIND(F8E3M4);
  VMPACK_KIND(F8E8M0FNU);
  VMPACK_KIND(BF16);
  VMPACK_KIND(F16);
  VMPACK_KIND(TF32);
  VMPACK_KIND(F32);
  VMPACK_KIND(F64);
  VMPACK_KIND(F80);
  VMPACK_KIND(F128);
#undef VMPACK_KIND
  m.attr("SCALAR_KINDS") = scalarKinds;
  py::dict encodings;
  encodings[py::int_(int(VMPACK_ENCODING_PACKED))] = "packed";
  encodings[py::int_(int(VMPACK_ENCODING_WORD))] = "word";
  encodings[py::int_(int(VMPACK_ENCODING_BYTE))] = "byte";
  encodings[py::int_(int(VMPACK_ENCODING_NONE))] = "none";
  m.attr("ENCODINGS") = encodings;
  py::dict sourceKinds;
  sourceKinds[py::int_(int(VMPACK_SOURCE_DENSE))] = "dense";
  sourceKinds[py::int_(int(VMPACK_SOURCE_DENSE_RESOURCE))] = "dense_resource";
  sourceKinds[py::int_(int(VMPACK_SOURCE_PACKED_RESOURCE))] = "packed_resource";
  m.attr("SOURCE_KINDS") = sourceKinds;
  py::dict segmentKinds;
  segmentKinds[py::int_(int(VMPACK_SEGMENT_TYPED))] = "typed";
  segmentKinds[py::int_(int(VMPACK_SEGMENT_UNTYPED_DATA))] = "untyped";
  segmentKinds[py::int_(int(VMPACK_SEGMENT_UNTYPED_SPLAT))] = "splat";
  m.attr("SEGMENT_KINDS") = segmentKinds;
  py::dict containers;
  containers[py::int_(int(VMPACK_CONTAINER_VMPK))] = "vmpk";
  containers[py::int_(int(VMPACK_CONTAINER_IRPA))] = "irpa";
  containers[py::int_(int(VMPACK_CONTAINER_SAFETENSORS))] = "safetensors";
  containers[py::int_(int(VMPACK_CONTAINER_GGUF))] = "gguf";
  m.attr("CONTAINERS") = containers;
  py::dict loadModes;
  loadModes["auto"] = int(VMPACK_LOAD_AUTO);
  loadModes["mmap"] = int(VMPACK_LOAD_MMAP);
  loadModes["read"] = int(VMPACK_LOAD_READ);
  m.attr("LOAD_MODES") = loadModes;
  py::dict verifyModes;
  verifyModes["structure"] = int(VMPACK_VERIFY_STRUCTURE);
  verifyModes["full"] = int(VMPACK_VERIFY_FULL);
  verifyModes["lazy"] = int(VMPACK_VERIFY_LAZY);
  m.attr("VERIFY_MODES") = verifyModes;
  py::dict dtypes;
  dtypes["int8"] = int(VMPACK_DTYPE_INT8);
  dtypes["int16"] = int(VMPACK_DTYPE_INT16);
  dtypes["int32"] = int(VMPACK_DTYPE_INT32);
  dtypes["float32"] = int(VMPACK_DTYPE_FLOAT32);
  m.attr("DTYPES") = dtypes;
  py::dict floatTypes;
  floatTypes["float32"] = int(VMPACK_FLOAT_F32);
  floatTypes["float16"] = int(VMPACK_FLOAT_F16);
  floatTypes["bfloat16"] = int(VMPACK_FLOAT_BF16);
  m.attr("FLOAT_TYPES") = floatTypes;
  m.attr("RELEASE_GIL_BYTES") = kReleaseGilBytes;
  // The project's version (CMake's project(VERSION), one definition).
  m.attr("VERSION") = VMPACK_VERSION;
  m.def("status_name", [](int status) {
    return std::string(vmpack_status_name(vmpack_status_t(status)));
  });

  py::class_<Module>(m, "Module")
      .def_static("open_file", &Module::openFile, py::arg("path"),
                  py::arg("load_mode") = int(VMPACK_LOAD_AUTO),
                  py::arg("verify") = int(VMPACK_VERIFY_STRUCTURE),
                  py::arg("threads") = 0u, py::arg("buffer") = py::none())
      .def_static("open_memory", &Module::openMemory, py::arg("data"))
      .def("close", &Module::close)
      .def_property_readonly("closed", &Module::closed)
      .def_property_readonly("name", &Module::name)
      .def_property_readonly("producer", &Module::producer)
      .def_property_readonly("format_version", &Module::formatVersion)
      .def("count", &Module::count)
      .def("container", &Module::container)
      .def("load_mode", &Module::loadMode)
      .def("metadata", &Module::metadata)
      .def("foreign", &Module::foreign, py::arg("index"))
      .def("verify_segment", &Module::verifySegment, py::arg("index"))
      .def("quant_info", &Module::quantInfo, py::arg("index"))
      .def("dequantize", &Module::dequantize, py::arg("index"),
           py::arg("first"), py::arg("count"), py::arg("type"), py::arg("out"),
           py::arg("threads") = 0u)
      .def("info", &Module::info, py::arg("index"))
      .def("find", &Module::find, py::arg("name"))
      .def("view", &Module::view, py::arg("index"))
      .def("program", &Module::program)
      .def("unpack", &Module::unpack, py::arg("index"), py::arg("first"),
           py::arg("count"), py::arg("dtype"), py::arg("out"))
      .def("verify", &Module::verify, py::arg("threads") = 0)
      .def("_handle_use_count", &Module::handleUseCount);

  vmpack::python::registerCompile(m);
  vmpack::python::registerConvert(m);
  vmpack::python::registerSaveFile(m);
  vmpack::python::registerPlanar(m);
}
