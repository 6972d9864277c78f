//===- ModelBuilder.cpp - A llama2-shaped MLIR module ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "ModelBuilder.h"
#include "WeightStream.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Dialect/VMPack/VMPackOps.h"
#include "vmpack/Transforms/PackElements.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/ErrorHandling.h"

#include <chrono>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace mlir;
using namespace vmpack::gen;

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Packed blobs declare the alignment the packing pass gives its own
/// (PackElements.h explains why it is no larger), so that a generated model
/// is exactly what the pass makes of the dense one.
constexpr size_t kBlobAlignment = mlir::vmpack_compiler::kPackedBlobAlignment;

/// The value of a tensor's global in dense form. The storage buffer is
/// produced in MLIR's raw layout and handed over whole: no per-element
/// Attribute or APInt is ever made.
DenseElementsAttr makeDenseValue(const TensorSpec &spec, RankedTensorType type,
                                 const WeightStream &stream,
                                 std::vector<char> &scratch,
                                 BuildTimings &timings) {
  auto start = Clock::now();
  uint64_t n = spec.numElements();
  if (spec.kind == TensorKind::Int4Weight) {
    scratch.resize(n);
    stream.fillInt4Storage(reinterpret_cast<uint8_t *>(scratch.data()), n);
  } else {
    scratch.resize(2 * n);
    // f16 storage is little-endian; vmpack-gen, like MLIR's bytecode, only
    // targets little-endian hosts.
    stream.fillF16(reinterpret_cast<uint16_t *>(scratch.data()), n);
  }
  timings.generateSeconds += secondsSince(start);

  start = Clock::now();
  bool isSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, scratch, isSplat))
    llvm::report_fatal_error("vmpack-gen: raw buffer does not match " +
                             llvm::Twine(spec.name));
  auto attr = DenseElementsAttr::getFromRawBuffer(type, scratch);
  timings.attributeSeconds += secondsSince(start);
  return attr;
}

/// Allocates a writable blob of `size` bytes. First-touch page faults, not
/// the arithmetic, dominate filling a fresh 100 MB buffer (measured: 0.3 s
/// with 4 KiB pages, 0.03 s with transparent huge pages), so large blobs
/// are 2 MiB-aligned in memory (more than the declared alignment) and
/// advised to use huge pages where Linux allows it.
AsmResourceBlob allocateBlob(size_t size) {
  constexpr size_t kHugePage = size_t(2) << 20;
  size_t align = size >= kHugePage ? kHugePage : kBlobAlignment;
  size_t allocated = (size + align - 1) / align * align;
  void *data = std::aligned_alloc(align, allocated ? allocated : align);
  if (!data)
    llvm::report_fatal_error("vmpack-gen: out of memory");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage)
    (void)madvise(data, allocated, MADV_HUGEPAGE);
#endif
  return AsmResourceBlob(
      llvm::ArrayRef<char>(static_cast<char *>(data), size), kBlobAlignment,
      [](void *data, size_t, size_t) { std::free(data); },
      /*dataIsMutable=*/true);
}

/// The value of an int4 global in packed form: the blob is written in place
/// in its final, aligned allocation and owned by MLIR's resource manager
/// from then on.
DenseResourceElementsAttr makePackedValue(const TensorSpec &spec,
                                          RankedTensorType storageType,
                                          const WeightStream &stream,
                                          BuildTimings &timings) {
  auto start = Clock::now();
  uint64_t n = spec.numElements();
  AsmResourceBlob blob = allocateBlob(storageType.getNumElements());
  stream.fillInt4Packed(
      reinterpret_cast<uint8_t *>(blob.getMutableData().data()), n);
  timings.generateSeconds += secondsSince(start);
  return DenseResourceElementsAttr::get(storageType, spec.name,
                                        std::move(blob));
}

/// The value of an int4 global in streamed form: a blob of MLIR's storage
/// layout whose bytes are generated when the bytecode writer writes them.
/// MLIR gets it unmanaged: the StreamedBlobs own the reservation.
DenseResourceElementsAttr makeStreamedValue(const TensorSpec &spec,
                                            RankedTensorType type,
                                            const WeightStream &stream,
                                            StreamedBlobs &streamed) {
  static_assert(StreamedBlobs::kChunkBytes % 16 == 0,
                "chunks start on a word of the weight stream");
  llvm::ArrayRef<char> range =
      streamed.add(spec.numElements(),
                   [stream](uint64_t offset, uint8_t *out, uint64_t size) {
                     // One byte per element: offsets are element indices, and a
                     // chunk boundary is a multiple of 16.
                     stream.fillInt4Storage(out, offset, size);
                   });
  return DenseResourceElementsAttr::get(
      type, spec.name,
      UnmanagedAsmResourceBlob::allocateWithAlign(range, kBlobAlignment));
}

} // namespace

namespace vmpack::gen {
OwningOpRef<ModuleOp> buildLlamaModule(MLIRContext &context,
                                       const LlamaConfig &config, uint64_t seed,
                                       WeightForm form, BuildTimings &timings,
                                       StreamedBlobs *streamed) {
  Location loc = UnknownLoc::get(&context);
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  Type i4 = builder.getIntegerType(4);
  auto i8 = builder.getIntegerType(8);
  Type f16 = builder.getF16Type();
  auto privateVisibility = builder.getStringAttr("private");

  struct Global {
    StringAttr name;
    RankedTensorType storageType; ///< what the global holds
    RankedTensorType logicalType; ///< what @forward returns
  };
  std::vector<Global> globals;
  std::vector<char> scratch;
  llvm::StringMap<Attribute> values;

  std::vector<TensorSpec> tensors = llamaTensors(config);
  for (auto [index, spec] : llvm::enumerate(tensors)) {
    WeightStream stream(seed, index);
    bool isWeight = spec.kind == TensorKind::Int4Weight;
    auto logicalType = RankedTensorType::get(spec.shape, isWeight ? i4 : f16);
    RankedTensorType storageType = logicalType;
    Attribute value;
    if (!spec.tiedTo.empty()) {
      // Tied weights: the very same attribute (and so the same blob).
      value = values.lookup(spec.tiedTo);
      storageType = cast<RankedTensorType>(cast<TypedAttr>(value).getType());
    } else if (isWeight && form == WeightForm::Packed) {
      int64_t bytes = static_cast<int64_t>((spec.numElements() + 1) / 2);
      storageType = RankedTensorType::get({bytes}, i8);
      value = makePackedValue(spec, storageType, stream, timings);
    } else if (isWeight && form == WeightForm::StreamedResource) {
      value = makeStreamedValue(spec, logicalType, stream, *streamed);
    } else {
      value = makeDenseValue(spec, logicalType, stream, scratch, timings);
    }
    values[spec.name] = value;
    auto global = ml_program::GlobalOp::create(
        builder, loc, builder.getStringAttr(spec.name),
        TypeAttr::get(storageType), /*is_mutable=*/nullptr, value,
        privateVisibility);
    if (storageType != logicalType)
      global->setAttr(
          mlir::vmpack_compiler::VMPackDialect::getLogicalTypeAttrName(),
          TypeAttr::get(logicalType));
    globals.push_back(
        Global{global.getSymNameAttr(), storageType, logicalType});
  }

  SmallVector<Type> resultTypes;
  for (const Global &g : globals)
    resultTypes.push_back(g.logicalType);
  auto forward = func::FuncOp::create(builder, loc, "forward",
                                      builder.getFunctionType({}, resultTypes));
  builder.setInsertionPointToEnd(forward.addEntryBlock());
  SmallVector<Value> results;
  for (const Global &g : globals) {
    Value loaded = ml_program::GlobalLoadConstOp::create(
        builder, loc, g.storageType, FlatSymbolRefAttr::get(g.name));
    if (g.storageType != g.logicalType)
      loaded = mlir::vmpack_compiler::BitcastOp::create(builder, loc,
                                                        g.logicalType, loaded);
    results.push_back(loaded);
  }
  func::ReturnOp::create(builder, loc, results);
  return module;
}
} // namespace vmpack::gen
