//===- RaiseStatus.h - vmpack statuses as Python exceptions ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one conversion of an archive::Status into the Python exception class
// the module registers for its code (STATUS_CLASSES, VmpackModule.cpp),
// shared by the bindings of vmpack.convert and vmpack.save_file.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PYTHON_RAISESTATUS_H
#define VMPACK_PYTHON_RAISESTATUS_H

#include "vmpack/Archive/Status.h"

#include <pybind11/pybind11.h>

namespace vmpack::python {

/// Raises the Python class of `status` (STATUS_CLASSES) with its message,
/// decoded as UTF-8 with backslash escapes for bytes that are not.
[[noreturn]] inline void raiseStatus(const pybind11::module_ &m,
                                     const archive::Status &status) {
  namespace py = pybind11;
  py::dict classes = m.attr("STATUS_CLASSES");
  py::int_ code(int(status.code()));
  py::object cls = classes.contains(code) ? py::object(classes[code])
                                          : py::object(m.attr("Error"));
  const std::string &text = status.message();
  PyObject *message = PyUnicode_DecodeUTF8(
      text.data(), py::ssize_t(text.size()), "backslashreplace");
  if (!message)
    throw py::error_already_set();
  PyErr_SetObject(cls.ptr(), message);
  Py_DECREF(message);
  throw py::error_already_set();
}

} // namespace vmpack::python

#endif // VMPACK_PYTHON_RAISESTATUS_H
