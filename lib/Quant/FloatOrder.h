//===- FloatOrder.h - A float addition whose NaN is ggml's (internal) -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// When both operands of an x86 addition are NaN, the result is the first
// operand's (made quiet). ggml computes `x * d + m` with the product
// first, and GCC keeps that order; LLVM treats fadd as commutative, so
// clang may swap the operands and keep the minimum's NaN instead. These
// additions pin the order so that every compiler gives ggml's bits. Only
// the NaN-and-NaN case can differ: every other sum is the same either way.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_QUANT_FLOATORDER_H
#define VMPACK_LIB_QUANT_FLOATORDER_H

namespace vmpack::quant::detail {

/// a + b, with a's NaN when both are NaN.
inline float addInOrder(float a, float b) {
#if defined(__clang__) && defined(__x86_64__)
  __asm__("addss %1, %0" : "+x"(a) : "x"(b));
  return a;
#else
  return a + b;
#endif
}

} // namespace vmpack::quant::detail

#endif // VMPACK_LIB_QUANT_FLOATORDER_H
