//===- Planar.h - the planar form in the Python extension -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Registers `_vmpack.PLANAR_TYPES`, `_vmpack.ggml_type` and
// `_vmpack.ggml_to_planar`: quant::ggmlPlanarParts and quant::ggmlToPlanar
// for vmpack.PlanarWeight and Segment.planar (docs/python.md).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_PYTHON_PLANAR_H
#define VMPACK_PYTHON_PLANAR_H

#include <pybind11/pybind11.h>

namespace vmpack::python {

void registerPlanar(pybind11::module_ &m);

} // namespace vmpack::python

#endif // VMPACK_PYTHON_PLANAR_H
