//===- DequantSplit.h - ggml Q4_0, Q4_1, Q8_0 as integers and scales -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Decodes the three simplest ggml block formats into plain tensors that
// MLIR compilers can use, exactly as ggml's reference dequantization
// (ggml-org/ggml src/ggml-quants.c, dequantize_row_q4_0 / _q4_1 / _q8_0)
// defines their values: for element e of block b,
//
//   Q4_0: value = q * d,      q = i4 in [-8, 7]   (stored nibble - 8)
//   Q4_1: value = q * d + m,  q = ui4 in [0, 15]  (stored nibble)
//   Q8_0: value = q * d,      q = i8              (stored byte)
//
// with d (and m) the block's f16 scale (and minimum). Element e < 16 of a
// 32-element Q4 block is the low nibble of byte e, element e >= 16 the high
// nibble of byte e - 16. A tensor NAME of shape [..., K] becomes
//   NAME.q  (i4 / ui4 / i8, shape [..., K], the packed layout)
//   NAME.d  (f16, shape [..., K / 32])
//   NAME.m  (f16, shape [..., K / 32]; Q4_1 only)
// Their bytes are computed on demand (TensorSource::produce); nothing is
// decoded ahead of writing.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_DEQUANTSPLIT_H
#define VMPACK_FORMATS_DEQUANTSPLIT_H

#include "vmpack/Formats/Tensor.h"

#include <vector>

namespace vmpack::formats {

/// Q4_0 (2), Q4_1 (3) and Q8_0 (8).
bool canDequantSplit(uint32_t ggmlType);

/// The tensors that replace `blocks` (a tensor of one of those types whose
/// bytes are at blocks.data). They refer to blocks.data, which must outlive
/// them.
std::vector<TensorSource> dequantSplit(const TensorSource &blocks);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_DEQUANTSPLIT_H
