//===- HfRepack.h - GPTQ and AWQ words, repacked -------------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Kernels that move the packed codes of GPTQ and AWQ checkpoints
// (docs/quant.md section 8) without unpacking them one by one:
//
//  - gptqToGgmlRows: output rows of a symmetric GPTQ 4-bit or 8-bit weight
//    (qweight [in * bits / 32, out] int32, scales [groups, out] f16, no
//    act-order, group a multiple of 32) as Q4_0 or Q8_0 blocks. A code q
//    with zero point 2^(bits-1) has the value (q - 2^(bits-1)) * s, which is
//    what ggml decodes from the stored nibble q (Q4_0) or the byte q - 128
//    (Q8_0) with d = s: the blocks hold the same bits, nibbles re-ordered.
//    The transposition is cache-blocked: 16 columns of qweight (one cache
//    line of each word row) at a time.
//  - awqToGptqWords / gptqToAwqWords: AWQ GEMM's [K, N / 8] words (codes of
//    8 consecutive columns in the order 0, 2, 4, 6, 1, 3, 5, 7) and GPTQ's
//    [K / 8, N] words (8 consecutive rows, least significant first) of the
//    same 4-bit matrix [K, N], one from the other: an 8 x 8 nibble
//    transposition per word block.
//  - awqToGptqZeroWords / gptqToAwqZeroWords: a row of zero-point words,
//    both packed along N: the nibble order alone changes.
//
// All of them are exact bit moves; the callers check the conditions. The
// word kernels have AVX2 forms (8 columns of words per step) and, for AWQ
// <-> GPTQ, AVX-512 forms (16 columns), chosen by the Pack layer's
// dispatch level (vmpack/Pack/Dispatch.h); the ...At forms take the level,
// for tests and benchmarks.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_QUANT_HFREPACK_H
#define VMPACK_QUANT_HFREPACK_H

#include "vmpack/Pack/Dispatch.h"

#include <cstdint>

namespace vmpack::quant {

/// Rows [first, first + count) of the [out, in] weight as ggml Q4_0
/// (bits 4) or Q8_0 (bits 8) blocks: in / 32 blocks per row, row-major, into
/// `blocks`. in % 32 == 0, groupSize % 32 == 0, in % groupSize == 0.
void gptqToGgmlRows(unsigned bits, const uint8_t *qweight,
                    const uint8_t *scales, uint64_t in, uint64_t out,
                    uint64_t groupSize, uint64_t first, uint64_t count,
                    uint8_t *blocks);

/// GPTQ word rows [firstWord, firstWord + words) (rows 8w..8w+7 of K) of a
/// [K, N] 4-bit matrix from its AWQ words, and the reverse for AWQ rows
/// [firstRow, firstRow + rows) (a multiple of 8 each). N % 8 == 0.
void awqToGptqWords(const uint8_t *awq, uint64_t n, uint64_t firstWord,
                    uint64_t words, uint8_t *gptq);
void gptqToAwqWords(const uint8_t *gptq, uint64_t n, uint64_t firstRow,
                    uint64_t rows, uint8_t *awq);

/// The kernels above with those of `level`, which must be supported
/// (isDispatchLevelSupported).
void gptqToGgmlRowsAt(DispatchLevel level, unsigned bits,
                      const uint8_t *qweight, const uint8_t *scales,
                      uint64_t in, uint64_t out, uint64_t groupSize,
                      uint64_t first, uint64_t count, uint8_t *blocks);
void awqToGptqWordsAt(DispatchLevel level, const uint8_t *awq, uint64_t n,
                      uint64_t firstWord, uint64_t words, uint8_t *gptq);
void gptqToAwqWordsAt(DispatchLevel level, const uint8_t *gptq, uint64_t n,
                      uint64_t firstRow, uint64_t rows, uint8_t *awq);

/// `count` words of zero points: AWQ's order to GPTQ's and back, adding
/// `delta` (-1: to GPTQ v1; +1: from it; 0) to every nibble. Returns false,
/// leaving `out` partly written, when a nibble plus delta leaves 0..15.
bool awqToGptqZeroWords(const uint8_t *awq, uint64_t count, int delta,
                        uint8_t *gptq);
bool gptqToAwqZeroWords(const uint8_t *gptq, uint64_t count, int delta,
                        uint8_t *awq);

} // namespace vmpack::quant

#endif // VMPACK_QUANT_HFREPACK_H
