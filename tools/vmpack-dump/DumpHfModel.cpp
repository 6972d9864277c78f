//===- DumpHfModel.cpp - vmpack-dump on Hugging Face model dirs -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A model directory is opened by the formats layer's reader of quantized
// checkpoints (openHfQuantModel), which checks every quantized linear's
// tensors; the listing shows each as the one weight it stands for.
//
//===----------------------------------------------------------------------===//

#include "DumpHfModel.h"

#include "DumpOutput.h"

#include "vmpack/Formats/HfQuant.h"

#include <cinttypes>
#include <cstdio>

using namespace vmpack;
using namespace vmpack::dump;
using namespace vmpack::formats;

int vmpack::dump::dumpHfModel(const DumpOptions &options) {
  if (options.action != Action::Table)
    return error(options.modulePath +
                 ": a model directory is listed only; --json, --verify, "
                 "--extract and --mlir take its .safetensors files");
  StatusOr<std::unique_ptr<HfQuantModel>> opened =
      openHfQuantModel(options.modulePath);
  if (!opened)
    return error(opened.status().message());
  const HfQuantModel &m = **opened;
  for (const std::string &w : m.warnings)
    std::fprintf(stderr, "vmpack-dump: warning: %s\n", w.c_str());
  std::printf("%s: Hugging Face %s checkpoint ('%s'), %zu quantized "
              "weights, %zu other tensors, in %zu file(s)\n",
              options.modulePath.c_str(), hfQuantMethodName(m.config.method),
              m.config.where.c_str(), m.linears.size(), m.others.size(),
              m.files.size());
  for (const HfQuantModel::Entry &e : m.order) {
    if (e.linear >= 0) {
      const HfQuantLinear &l = m.linears[size_t(e.linear)];
      uint64_t bytes = 0;
      for (const TensorSource &t : hfLinearStored(l))
        bytes += t.info.length;
      std::printf("  %-48s [%" PRId64 ", %" PRId64 "]  %s  %" PRIu64 " bytes\n",
                  quoteName(l.weight.name).c_str(), l.out, l.in,
                  describeHfLinear(l).c_str(), bytes);
      continue;
    }
    const TensorInfo &t = m.others[e.other].info;
    std::printf("  %-48s %s  %" PRIu64 " bytes\n", quoteName(t.name).c_str(),
                t.isOpaque() ? "ggml blocks"
                             : tensorTypeString(t.elementType, t.shape).c_str(),
                t.length);
  }
  return 0;
}
