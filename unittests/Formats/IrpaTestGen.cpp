//===- IrpaTestGen.cpp - Writes parameter archives for the lit suite ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-irpa-testgen OUT [--threads N] [--chunk BYTES]
//                     [--sample | --small |
//                      (--data KEY=LENGTH[:SEED] | --splat KEY=LENGTH=HEX)...]
//
// A test-only tool (not installed, not in tools/). Byte j of a data entry
// is (SEED + 7 j) mod 256; SEED defaults to the entry's position. HEX is
// the splat pattern, 1 to 16 bytes, first byte first.
//
//===----------------------------------------------------------------------===//

#include "IrpaSample.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace vmpack::formats;
using namespace vmpack::formats::testing;

namespace {

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "error: %s\nusage: vmpack-irpa-testgen OUT [--threads N] "
               "[--chunk BYTES] [--sample | --small | (--data "
               "KEY=LENGTH[:SEED] | --splat KEY=LENGTH=HEX)...]\n",
               why.c_str());
  std::exit(2);
}

uint64_t number(const std::string &text) {
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end)
    usage("not a number: '" + text + "'");
  return v;
}

} // namespace

int main(int argc, char **argv) {
  std::string out;
  unsigned threads = 1;
  size_t chunk = 4096;
  std::vector<SampleParam> params;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--threads") {
      threads = unsigned(number(next()));
    } else if (arg == "--chunk") {
      chunk = size_t(number(next()));
    } else if (arg == "--sample") {
      params = sampleParams();
    } else if (arg == "--small") {
      params = smallParams();
    } else if (arg == "--data" || arg == "--splat") {
      std::string spec = next();
      size_t eq = spec.rfind('=');
      if (eq == std::string::npos)
        usage("bad " + arg + " '" + spec + "'");
      SampleParam p;
      if (arg == "--data") {
        p.desc.key = spec.substr(0, eq);
        std::string rest = spec.substr(eq + 1);
        size_t colon = rest.find(':');
        p.desc.length = number(rest.substr(0, colon));
        p.seed = colon == std::string::npos
                     ? uint32_t(params.size())
                     : uint32_t(number(rest.substr(colon + 1)));
      } else {
        std::string hex = spec.substr(eq + 1);
        std::string head = spec.substr(0, eq);
        size_t eq2 = head.rfind('=');
        if (eq2 == std::string::npos || hex.size() % 2 || hex.empty() ||
            hex.size() > 32)
          usage("bad --splat '" + spec + "'");
        p.desc.key = head.substr(0, eq2);
        p.desc.length = number(head.substr(eq2 + 1));
        p.desc.isSplat = true;
        for (size_t k = 0; k < hex.size(); k += 2)
          p.desc.pattern[k / 2] =
              uint8_t(std::strtoul(hex.substr(k, 2).c_str(), nullptr, 16));
        p.desc.patternLength = uint8_t(hex.size() / 2);
      }
      params.push_back(std::move(p));
    } else if (out.empty() && !arg.empty() && arg[0] != '-') {
      out = arg;
    } else {
      usage("unexpected argument '" + arg + "'");
    }
  }
  if (out.empty() || threads == 0 || chunk == 0)
    usage("no output, or zero threads or chunk size");
  Status st = writeSampleIrpa(out, params, threads, chunk);
  if (!st) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
