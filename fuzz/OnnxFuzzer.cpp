//===- OnnxFuzzer.cpp - Fuzz target: ONNX models --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any byte string goes to parseOnnx. What it accepts must name every tensor
// once, give each a fixed-width ONNX type within the rank limit, and place
// raw_data inside the buffer with exactly the bytes its type and shape need
// (typed fields decoded to that many bytes); external data is described,
// never read.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "vmpack/Formats/Onnx.h"
#include "vmpack/Formats/TypeTable.h"

#include <cstdlib>
#include <set>

using vmpack::fuzz::check;
using namespace vmpack::formats;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  OnnxLimits limits;
  limits.maxTensors = 4096;
  StatusOr<OnnxModel> model = parseOnnx(data, size, limits);
  if (!model) {
    check(!model.status().message().empty());
    return 0;
  }
  std::set<std::string> names;
  for (const OnnxTensor &t : model->tensors) {
    check(names.insert(t.info.name).second);
    check(t.info.shape.size() <= limits.maxRank);
    check(fromOnnxType(t.dataType).has_value());
    check(toOnnxType(t.info.elementType) == t.dataType);
    std::optional<uint64_t> bytes =
        storedSize(t.info.elementType, t.info.shape, t.info.encoding);
    check(bytes && *bytes == t.info.length);
    switch (t.storage) {
    case OnnxStorage::Raw:
      check(t.info.offset <= size && t.info.length <= size - t.info.offset);
      break;
    case OnnxStorage::Typed:
      check(t.decoded.size() == t.info.length);
      break;
    case OnnxStorage::External:
      check(!t.location.empty());
      break;
    }
    check(t.protoOffset <= size && t.protoLength <= size - t.protoOffset);
  }
  return 0;
}
