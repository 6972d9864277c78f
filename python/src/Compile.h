//===- Compile.h - vmpack.compile in the Python extension -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Registers `_vmpack.compile` (the compiler of lib/Target) when the
// extension is built with MLIR, and `_vmpack.HAS_COMPILER`.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PYTHON_COMPILE_H
#define VMPACK_PYTHON_COMPILE_H

#include <pybind11/pybind11.h>

namespace vmpack::python {

#ifdef VMPACK_PYTHON_HAS_COMPILER
void registerCompile(pybind11::module_ &m);
#else
inline void registerCompile(pybind11::module_ &m) {
  m.attr("HAS_COMPILER") = false;
}
#endif

} // namespace vmpack::python

#endif // VMPACK_PYTHON_COMPILE_H
