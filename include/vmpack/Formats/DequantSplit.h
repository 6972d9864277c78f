//===- DequantSplit.h - ggml blocks as integers and scales ----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// --dequant-split: a ggml block tensor NAME of shape [..., K] becomes the
// plain tensors of its planar form (docs/quant.md section 4): NAME.q (the
// codes, shape [..., K], the packed layout), NAME.d (the scales) and, where
// the type has them, NAME.m (minimums) and the K-quants' NAME.sd and
// NAME.sm (sub-block scales and minimums). For the three simplest types,
// whose values ggml's reference dequantization (ggml-org/ggml
// src/ggml-quants.c) defines as
//
//   Q4_0: value = q * d,      q = i4 in [-8, 7]   (stored nibble - 8)
//   Q4_1: value = q * d + m,  q = ui4 in [0, 15]  (stored nibble)
//   Q8_0: value = q * d,      q = i8              (stored byte)
//
// NAME.d and NAME.m are f16, shape [..., K / 32]. Q4_0's and Q8_0's codes
// keep the signless spelling i4 and i8 this split has always written (the
// same bits as the planar form's si4 and si8; --quant=planar writes si4
// and si8). Their bytes are computed on demand (TensorSource::produce);
// nothing is decoded ahead of writing.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_DEQUANTSPLIT_H
#define VMPACK_FORMATS_DEQUANTSPLIT_H

#include "vmpack/Formats/Tensor.h"

#include <vector>

namespace vmpack::formats {

/// Every type with a planar form (quant::hasGgmlPlanarForm).
bool canDequantSplit(uint32_t ggmlType);

/// The tensors that replace `blocks` (a tensor of one of those types,
/// checked with formats::checkGgmlBlockTensor). They read blocks' bytes,
/// which must outlive them.
std::vector<TensorSource> dequantSplit(const TensorSource &blocks);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_DEQUANTSPLIT_H
