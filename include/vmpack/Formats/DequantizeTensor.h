//===- DequantizeTensor.h - ggml blocks as float tensors --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The --dequantize conversion: a tensor of ggml blocks becomes a tensor of
// f32, f16 or bf16 of the same name and logical shape, whose bytes are
// computed on demand (TensorSource::produce) by the Quant layer's kernels,
// chunk by chunk. Nothing is decoded ahead of writing.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_DEQUANTIZETENSOR_H
#define VMPACK_FORMATS_DEQUANTIZETENSOR_H

#include "vmpack/Formats/Tensor.h"
#include "vmpack/Quant/Dequantize.h"

namespace vmpack::formats {

/// Whether `info` is a ggml block tensor that dequantizeTensor decodes.
bool canDequantizeTensor(const TensorInfo &info);

/// The float tensor that replaces `blocks` (a ggml block tensor whose bytes
/// are at blocks.data, which must outlive the result). Fails, naming the
/// tensor, for a type without a decoder, or a byte length or shape that is
/// not a whole number of blocks.
///
/// `threads` decode each chunk a writer asks for (0: all). One is the
/// default: a writer's chunk (kProduceChunkBytes) decodes on one core
/// several times faster than it is written, and threads started per chunk
/// wait to be scheduled on a busy machine (800 MB of f16 from Q4_0 at load
/// 30 on 2 cores, in chunks of 4 MiB: 3.7 s of wall time for 0.5 s of CPU
/// with a thread per core and chunk; 0.9 to 1.7 s on one).
StatusOr<TensorSource> dequantizeTensor(const TensorSource &blocks,
                                        quant::FloatType to,
                                        unsigned threads = 1);

/// f32, f16 or bf16, by the element type; nullopt for any other (complex
/// types included).
std::optional<quant::FloatType> floatTypeOf(const ElementType &type);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_DEQUANTIZETENSOR_H
