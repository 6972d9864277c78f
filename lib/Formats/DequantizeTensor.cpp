//===- DequantizeTensor.cpp - ggml block tensors as float tensors ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Formats/DequantizeTensor.h"

#include "vmpack/Formats/TypeTable.h"

#include <algorithm>
#include <cassert>
#include <cstring>

using namespace vmpack;
using namespace vmpack::formats;
using quant::FloatType;

bool vmpack::formats::canDequantizeTensor(const TensorInfo &info) {
  return info.isOpaque() && quant::hasGgmlDequantizeKernel(*info.ggmlBlockType);
}

StatusOr<TensorSource>
vmpack::formats::dequantizeTensor(const TensorSource &blocks, FloatType to,
                                  unsigned threads) {
  const TensorInfo &in = blocks.info;
  assert(in.isOpaque());
  uint32_t type = *in.ggmlBlockType;
  const GgmlTypeTraits *traits = ggmlTypeTraits(type);
  std::string typeName = traits ? traits->name : std::to_string(type);
  if (!quant::canDequantizeGgml(type))
    return Status::unsupported("tensor " + quoteName(in.name) + " is ggml " +
                               typeName +
                               ", which vmpack cannot decode to floats");
  uint64_t blockSize = traits->blockSize, blockBytes = traits->typeSize;
  std::optional<uint64_t> n = numElements(in.shape);
  if (!n || in.shape.empty() || in.shape.back() % int64_t(blockSize) != 0 ||
      in.length != *n / blockSize * blockBytes)
    return Status::formatError(
        "tensor " + quoteName(in.name) + ": ggml " + typeName + " of shape " +
        tensorTypeString(*parseElementType("f32"), in.shape) +
        " is not a whole number of " + std::to_string(blockSize) +
        "-element blocks in its " + std::to_string(in.length) + " bytes");

  const char *floatName = to == FloatType::F32   ? "f32"
                          : to == FloatType::F16 ? "f16"
                                                 : "bf16";
  TensorSource out;
  out.info.name = in.name;
  out.info.elementType = *parseElementType(floatName);
  out.info.shape = in.shape;
  out.info.encoding = Encoding::Byte;
  unsigned bytes = quant::floatTypeBytes(to);
  out.info.length = *n * bytes;
  const uint8_t *src = blocks.data;
  out.produce = [src, type, to, bytes, threads](uint64_t first, uint64_t count,
                                                uint8_t *dst) {
    // Writers ask for whole elements (kProduceChunkBytes); a partial element
    // at either end goes through a one-element buffer.
    uint64_t e = first / bytes, end = (first + count + bytes - 1) / bytes;
    uint64_t lead = first - e * bytes;
    if (lead == 0 && (first + count) % bytes == 0) {
      quant::dequantizeGgmlRange(type, src, e, end - e, to, dst, threads);
      return;
    }
    uint8_t one[4];
    for (uint64_t k = e; k < end; ++k) {
      quant::dequantizeGgmlRange(type, src, k, 1, to, one, 1);
      uint64_t from = k * bytes, to_ = from + bytes;
      uint64_t a = std::max(from, first), b = std::min(to_, first + count);
      std::memcpy(dst + (a - first), one + (a - from), b - a);
    }
  };
  return out;
}

std::optional<FloatType> vmpack::formats::floatTypeOf(const ElementType &type) {
  if (type.isComplex)
    return std::nullopt;
  switch (type.scalar.kind) {
  case ScalarKind::F32:
    return FloatType::F32;
  case ScalarKind::F16:
    return FloatType::F16;
  case ScalarKind::BF16:
    return FloatType::BF16;
  default:
    return std::nullopt;
  }
}
