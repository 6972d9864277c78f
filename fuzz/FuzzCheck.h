//===- FuzzCheck.h - What every fuzz target asserts with --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A fuzz target states what must hold of any input with check(). A failed
// check aborts, which libFuzzer reports as a crash and saves the input; the
// replay driver (ReplayMain.cpp) fails the same way. Reads of the bytes a
// reader accepted are stored to `sink`, so the compiler keeps them and
// AddressSanitizer sees every one.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FUZZ_FUZZCHECK_H
#define VMPACK_FUZZ_FUZZCHECK_H

#include <cstdint>
#include <cstdlib>

namespace vmpack::fuzz {

inline void check(bool condition) {
  if (!condition)
    std::abort();
}

inline volatile uint8_t sink;

} // namespace vmpack::fuzz

#endif // VMPACK_FUZZ_FUZZCHECK_H
