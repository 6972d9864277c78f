//===- Parallel.h - Element ranges split over threads -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one way the Quant layer and the dequantizing sources of the Formats
// layer (ggml blocks, ONNX MatMulNBits and DequantizeLinear weights, Hugging
// Face checkpoints' linears) split a range of elements over threads: into
// contiguous pieces, the first on the calling thread, each writing its own
// part of the output, so the bytes are the same for any number of threads.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_PARALLEL_H
#define VMPACK_QUANT_PARALLEL_H

#include <cstdint>
#include <functional>

namespace vmpack::quant {

/// The pieces a range of `count` elements is split into for `threads`
/// (0: as many as the machine has), each of at least `minPerPiece`
/// elements: from 1 to max(1, threads).
unsigned piecesFor(unsigned threads, uint64_t count, uint64_t minPerPiece);

/// Runs work(begin, end) over [first, first + count) in `pieces` contiguous
/// pieces whose inner bounds are multiples of `unit` (some may be empty),
/// the first on the calling thread, the others on threads started for
/// them and joined before it returns.
void splitRange(unsigned pieces, uint64_t first, uint64_t count, uint64_t unit,
                const std::function<void(uint64_t, uint64_t)> &work);

/// The threads splitRange has started since the program began (tests see
/// with it that a thread count reaches the code that decodes).
uint64_t splitRangeThreadsStarted();

} // namespace vmpack::quant

#endif // VMPACK_QUANT_PARALLEL_H
