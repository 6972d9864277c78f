//===- Dequantize.cpp - Quantized weights to floats at memory speed -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The public entry points of Dequantize.h: the ggml types with kernels
// (the others through decodeGgmlBlocks), the choice of the level's table,
// ranges that start or end inside a block, and the split of large ranges
// over threads.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Quant/Dequantize.h"

#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/Parallel.h"

#include "DequantizeKernels.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

using namespace vmpack;
using namespace vmpack::quant;
using namespace vmpack::quant::detail;

#ifndef VMPACK_DISPATCH_MAX
#error "the build defines VMPACK_DISPATCH_MAX"
#endif

namespace {

/// The ggml types with kernels and their table rows. The kernels spell out
/// the block layouts (ggml/src/ggml-common.h); GgmlTypes.h has the sizes.
struct KernelTypeInfo {
  uint32_t ggmlType;
  KernelType kernel;
};
constexpr KernelTypeInfo kKernelTypes[] = {
    {kGgmlQ4_0, kQ4_0}, {kGgmlQ4_1, kQ4_1},   {kGgmlQ5_0, kQ5_0},
    {kGgmlQ5_1, kQ5_1}, {kGgmlQ8_0, kQ8_0},   {kGgmlQ4_K, kQ4_K},
    {kGgmlQ6_K, kQ6_K}, {kGgmlMXFP4, kMXFP4},
};

const KernelTypeInfo *kernelType(uint32_t ggmlType) {
  for (const KernelTypeInfo &info : kKernelTypes)
    if (info.ggmlType == ggmlType)
      return &info;
  return nullptr;
}

/// A type's block decoder on one thread: the level's kernel, or the
/// reference decoder followed by rounding.
struct BlockDecoder {
  uint32_t ggmlType;
  BlockKernel kernel; // null: decodeGgmlBlocks
  FloatType to;
  uint32_t blockSize, blockBytes;

  void operator()(const uint8_t *blocks, uint64_t n, uint8_t *out) const {
    if (kernel) {
      kernel(blocks, n, out);
      return;
    }
    if (to == FloatType::F32) {
      [[maybe_unused]] Status s =
          decodeGgmlBlocks(ggmlType, blocks, n, reinterpret_cast<float *>(out));
      assert(s.isOk() && "a type canDequantizeGgml takes");
      return;
    }
    // Through a buffer of about 16 KiB of floats.
    uint64_t step = std::max<uint64_t>(1, 4096 / blockSize);
    std::vector<float> buffer(step * blockSize);
    for (uint64_t b = 0; b < n; b += step) {
      uint64_t k = std::min(step, n - b);
      [[maybe_unused]] Status s =
          decodeGgmlBlocks(ggmlType, blocks + b * blockBytes, k, buffer.data());
      assert(s.isOk());
      uint8_t *o = out + b * blockSize * 2;
      for (uint64_t i = 0; i < k * blockSize; ++i) {
        uint16_t h = to == FloatType::F16 ? floatToHalf(buffer[i])
                                          : floatToBFloat16(buffer[i]);
        std::memcpy(o + 2 * i, &h, 2);
      }
    }
  }
};

BlockDecoder blockDecoder(const DequantizeLevel &table, uint32_t ggmlType,
                          FloatType to) {
  const KernelTypeInfo *info = kernelType(ggmlType);
  return {ggmlType, info ? table.ggml[info->kernel][unsigned(to)] : nullptr, to,
          ggmlBlockElements(ggmlType), ggmlBlockBytes(ggmlType)};
}

const DequantizeLevel &activeTable() {
  static const DequantizeLevel &table = dequantizeLevel(activeDispatchLevel());
  return table;
}

/// Elements per piece below which a range is not split over threads: the
/// ONNX and Hugging Face sources' minimum. A writer asks for a chunk of
/// kProduceChunkBytes (256 KiB: 2^16 f32 or 2^17 f16 elements) at a
/// time, so a minimum above 2^16 would keep every chunk on one thread
/// whatever --threads says.
constexpr uint64_t kMinPerThread = uint64_t(1) << 14;

/// The minimum when the caller leaves the count to vmpack (threads 0, the
/// C API's and Python's default): starting a thread costs more than
/// decoding 2^17 elements in cache (docs/dequantize.md), so only ranges of
/// 2^20 elements (2-4 MiB out) or more per thread are split.
constexpr uint64_t kMinPerAutoThread = uint64_t(1) << 20;

uint64_t minPerThread(unsigned threads) {
  return threads == 0 ? kMinPerAutoThread : kMinPerThread;
}

void ggmlRangeOnThread(const BlockDecoder &decode, const uint8_t *tensor,
                       uint64_t first, uint64_t end, uint8_t *out) {
  unsigned bytes = floatTypeBytes(decode.to);
  uint64_t bs = decode.blockSize;
  // A block that the range enters or leaves part-way: decoded whole into
  // a buffer, then the part inside the range copied.
  auto partial = [&](uint64_t from, uint64_t to) {
    std::vector<uint8_t> block(bs * bytes);
    uint64_t b = from / bs;
    decode(tensor + b * decode.blockBytes, 1, block.data());
    std::memcpy(out, block.data() + (from - b * bs) * bytes,
                (to - from) * bytes);
    out += (to - from) * bytes;
  };
  uint64_t e = first;
  if (e % bs && e < end) {
    uint64_t stop = std::min(end, (e / bs + 1) * bs);
    partial(e, stop);
    e = stop;
  }
  uint64_t whole = (end - e) / bs;
  if (whole) {
    decode(tensor + e / bs * decode.blockBytes, whole, out);
    out += whole * bs * bytes;
    e += whole * bs;
  }
  if (e < end)
    partial(e, end);
}

void planarRangeOnThread(const DequantizeLevel &table, const PlanarView &view,
                         uint64_t first, uint64_t end, FloatType to,
                         uint8_t *out) {
  unsigned c = view.codeBits == 4 ? 0 : 1, s = view.signedCodes ? 1 : 0,
           m = view.minimums ? 1 : 0, t = unsigned(to);
  PlanarKernel fast = table.planar[c][s][m][t];
  PlanarKernel scalar = kPortableDequantize.planar[c][s][m][t];
  unsigned bytes = floatTypeBytes(to);
  if (view.groupSize % 32) {
    scalar(view, first, end - first, out);
    return;
  }
  uint64_t head = std::min(end, (first + 31) / 32 * 32);
  uint64_t tail = std::max(head, end / 32 * 32);
  if (head > first)
    scalar(view, first, head - first, out);
  if (tail > head)
    fast(view, head, tail - head, out + (head - first) * bytes);
  if (end > tail)
    scalar(view, tail, end - tail, out + (tail - first) * bytes);
}

} // namespace

const DequantizeLevel &
vmpack::quant::detail::dequantizeLevel(DispatchLevel level) {
  switch (level) {
#if VMPACK_DISPATCH_MAX >= 1
  case DispatchLevel::SSE2:
    return kSSE2Dequantize;
#endif
#if VMPACK_DISPATCH_MAX >= 2
  case DispatchLevel::SSE41:
    return kSSE41Dequantize;
#endif
#if VMPACK_DISPATCH_MAX >= 3
  case DispatchLevel::AVX2:
    return kAVX2Dequantize;
#endif
#if VMPACK_DISPATCH_MAX >= 4
  case DispatchLevel::AVX512:
    return kAVX512Dequantize;
#endif
  default:
    return kPortableDequantize;
  }
}

unsigned vmpack::quant::floatTypeBytes(FloatType type) {
  return type == FloatType::F32 ? 4 : 2;
}

const char *vmpack::quant::floatTypeName(FloatType type) {
  switch (type) {
  case FloatType::F32:
    return "f32";
  case FloatType::F16:
    return "f16";
  case FloatType::BF16:
    return "bf16";
  }
  return "?";
}

std::optional<FloatType> vmpack::quant::parseFloatType(std::string_view name) {
  if (name == "f32" || name == "float32")
    return FloatType::F32;
  if (name == "f16" || name == "float16")
    return FloatType::F16;
  if (name == "bf16" || name == "bfloat16")
    return FloatType::BF16;
  return std::nullopt;
}

bool vmpack::quant::hasGgmlDequantizeKernel(uint32_t ggmlType) {
  return kernelType(ggmlType) != nullptr;
}

bool vmpack::quant::canDequantizeGgml(uint32_t ggmlType) {
  return isGgmlBlockType(ggmlType) && canDecodeGgml(ggmlType);
}

void vmpack::quant::dequantizeGgmlBlocks(uint32_t ggmlType,
                                         const uint8_t *blocks,
                                         uint64_t blockCount, FloatType to,
                                         void *out) {
  const KernelTypeInfo *info = kernelType(ggmlType);
  assert(info && "a ggml type with a kernel");
  activeTable().ggml[info->kernel][unsigned(to)](blocks, blockCount, out);
}

void vmpack::quant::dequantizeGgmlBlocksAt(DispatchLevel level,
                                           uint32_t ggmlType,
                                           const uint8_t *blocks,
                                           uint64_t blockCount, FloatType to,
                                           void *out) {
  const KernelTypeInfo *info = kernelType(ggmlType);
  assert(info && isDispatchLevelSupported(level));
  dequantizeLevel(level).ggml[info->kernel][unsigned(to)](blocks, blockCount,
                                                          out);
}

void vmpack::quant::dequantizeGgmlRange(uint32_t ggmlType,
                                        const uint8_t *tensor, uint64_t first,
                                        uint64_t count, FloatType to, void *out,
                                        unsigned threads) {
  assert(canDequantizeGgml(ggmlType));
  BlockDecoder decode = blockDecoder(activeTable(), ggmlType, to);
  unsigned bytes = floatTypeBytes(to);
  splitRange(piecesFor(threads, count, minPerThread(threads)), first, count,
             decode.blockSize, [&](uint64_t begin, uint64_t end) {
               ggmlRangeOnThread(decode, tensor, begin, end,
                                 static_cast<uint8_t *>(out) +
                                     (begin - first) * bytes);
             });
}

bool vmpack::quant::hasPlanarDequantizeKernel(const PlanarView &view) {
  return (view.codeBits == 4 || view.codeBits == 8) && view.groupSize > 0 &&
         view.codes && view.scales;
}

void vmpack::quant::dequantizePlanarRange(const PlanarView &view,
                                          uint64_t first, uint64_t count,
                                          FloatType to, void *out,
                                          unsigned threads) {
  assert(hasPlanarDequantizeKernel(view));
  const DequantizeLevel &table = activeTable();
  unsigned bytes = floatTypeBytes(to);
  splitRange(piecesFor(threads, count, minPerThread(threads)), first, count, 32,
             [&](uint64_t begin, uint64_t end) {
               planarRangeOnThread(table, view, begin, end, to,
                                   static_cast<uint8_t *>(out) +
                                       (begin - first) * bytes);
             });
}

void vmpack::quant::dequantizePlanarRangeAt(DispatchLevel level,
                                            const PlanarView &view,
                                            uint64_t first, uint64_t count,
                                            FloatType to, void *out) {
  assert(hasPlanarDequantizeKernel(view) && isDispatchLevelSupported(level));
  planarRangeOnThread(dequantizeLevel(level), view, first, first + count, to,
                      static_cast<uint8_t *>(out));
}
