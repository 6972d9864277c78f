//===- Race.cpp - A data race that ThreadSanitizer must report ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// scripts/check-tsan.sh builds and runs this with the options it runs the
// tests with, and requires a report: so a clean run of the tests means
// that TSan was on and would have spoken.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <thread>

namespace {
int counter = 0;
} // namespace

int main() {
  std::thread a([] { ++counter; });
  std::thread b([] { ++counter; });
  a.join();
  b.join();
  std::printf("%d\n", counter);
  return 0;
}
