//===- SaveFile.h - vmpack.save_file in the Python extension ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Registers `_vmpack.save_file`: numpy arrays written by
// tools::writeTensorFile, the writer vmpack-convert uses.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PYTHON_SAVEFILE_H
#define VMPACK_PYTHON_SAVEFILE_H

#include <pybind11/pybind11.h>

namespace vmpack::python {

void registerSaveFile(pybind11::module_ &m);

} // namespace vmpack::python

#endif // VMPACK_PYTHON_SAVEFILE_H
