//===- GgmlTables.h - Code books and grids of ggml's block types ----*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The values the i-quant and FP4 block formats index (ggml-org/ggml
// src/ggml-common.h). lib/Quant/GgmlTables.cpp is generated from ggml's own
// dequantizers by scripts/gen-ggml-tables.py; a test checks every entry.
// A grid row packs a group's elements little-endian, one byte each: byte j
// is element j (unsigned magnitudes for IQ2/IQ3; int8 -1, 0, 1 for IQ1).
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_GGMLTABLES_H
#define VMPACK_QUANT_GGMLTABLES_H

#include <cstdint>

namespace vmpack::quant {

extern const uint64_t kIq2xxsGrid[256];
extern const uint64_t kIq2xsGrid[512];
extern const uint64_t kIq2sGrid[1024];
extern const uint32_t kIq3xxsGrid[256];
extern const uint32_t kIq3sGrid[512];
extern const uint64_t kIq1sGrid[2048];
/// IQ4_NL and IQ4_XS: the value of each 4-bit code.
extern const int8_t kIq4nlValues[16];
/// MXFP4 and NVFP4: twice the E2M1 value of each 4-bit code.
extern const int8_t kFp4Values[16];

} // namespace vmpack::quant

#endif // VMPACK_QUANT_GGMLTABLES_H
