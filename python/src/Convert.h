//===- Convert.h - vmpack.convert in the Python extension -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Registers `_vmpack.convert`: tools::convertFiles, as vmpack-convert runs
// it.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PYTHON_CONVERT_H
#define VMPACK_PYTHON_CONVERT_H

#include <pybind11/pybind11.h>

namespace vmpack::python {

void registerConvert(pybind11::module_ &m);

} // namespace vmpack::python

#endif // VMPACK_PYTHON_CONVERT_H
