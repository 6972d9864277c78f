//===- ModuleSerializer.cpp - MLIR module to module archive ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Phases: collect the constants (no copies: pointers into attributes, blobs
// or the mapped input), check every one against the requested encoding,
// replace them in the program by segment references and serialize the
// program, then fill the segments in parallel, granule-aligned chunks
// straight from the source bytes into the archive writer. Every diagnostic
// is emitted before the output file is created.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/ModuleSerializer.h"

#include "ChunkEncoder.h"

#include "vmpack/Archive/ArchiveWriter.h"
#include "vmpack/Dialect/VMPack/VMPackAttrs.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Target/ConstantCollector.h"
#include "vmpack/Target/Progress.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;
namespace archive = vmpack::archive;

// ConstantOrigin and the archive's SourceKind convert into each other.
static_assert(uint8_t(ConstantOrigin::Dense) ==
                  uint8_t(archive::SourceKind::Dense) &&
              uint8_t(ConstantOrigin::DenseResource) ==
                  uint8_t(archive::SourceKind::DenseResource) &&
              uint8_t(ConstantOrigin::PackedResource) ==
                  uint8_t(archive::SourceKind::PackedResource));

static constexpr StringLiteral kReferencePrefix = "vmpack.segment.";

std::string
mlir::vmpack_compiler::getSegmentReferenceKey(StringRef segmentName) {
  return (kReferencePrefix + segmentName).str();
}

StringRef mlir::vmpack_compiler::getReferencedSegment(StringRef resourceKey) {
  if (!resourceKey.starts_with(kReferencePrefix))
    return {};
  return resourceKey.drop_front(kReferencePrefix.size());
}

namespace {

/// One segment to write: its constant, the writer's id and stored size.
struct SegmentPlan {
  const ConstantInfo *constant;
  uint32_t id;
  uint64_t storedSize;
  Encoding encoding;
};

/// A granule-aligned range of one segment's scalars.
struct Chunk {
  uint32_t plan;
  uint64_t firstScalar;
  uint64_t numScalars;
};

/// Output bytes per chunk: large enough for long sequential writes, small
/// enough that a chunk's scratch stays in the last-level cache.
constexpr uint64_t kChunkBytes = 4 << 20;

std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The encoding of each constant: its op's `vmpack.encoding` attribute
/// (#vmpack.encoding<...>) when it has one, else `defaultEncoding`.
std::vector<Encoding> chooseEncodings(ArrayRef<ConstantInfo> constants,
                                      Encoding defaultEncoding) {
  std::vector<Encoding> encodings;
  encodings.reserve(constants.size());
  for (const ConstantInfo &c : constants) {
    auto attr =
        c.op->getAttrOfType<EncodingAttr>(VMPackDialect::getEncodingAttrName());
    encodings.push_back(attr ? Encoding(int(attr.getValue()))
                             : defaultEncoding);
  }
  return encodings;
}

LogicalResult checkEncodable(ArrayRef<ConstantInfo> constants,
                             ArrayRef<Encoding> encodings) {
  bool ok = true;
  for (auto [c, encoding] : llvm::zip_equal(constants, encodings)) {
    uint32_t bitWidth = c.elementType.scalarBits();
    if (!vmpack::isEncodable(encoding, bitWidth)) {
      bool fromAttr = c.op->hasAttr(VMPackDialect::getEncodingAttrName());
      c.op->emitError() << "element type " << c.logicalType.getElementType()
                        << " cannot be stored in the '"
                        << vmpack::encodingName(encoding)
                        << "' encoding (defined for widths up to 64 bits and "
                           "multiples of 8); "
                        << (fromAttr ? "set 'vmpack.encoding' to "
                                       "#vmpack.encoding<packed> or <byte>"
                                     : "use --encoding=packed or "
                                       "--encoding=byte");
      ok = false;
    } else if (!vmpack::encodedSize(encoding, bitWidth, c.numScalars)) {
      c.op->emitError() << "constant of type " << c.logicalType
                        << " is too large to store";
      ok = false;
    }
  }
  return success(ok);
}

/// Points every constant at its segment: a dense_resource with no data whose
/// key names the segment. The attribute storage of the old values stays
/// alive in the context, so the collected byte ranges remain valid.
LogicalResult replaceWithReferences(ArrayRef<ConstantInfo> constants) {
  for (const ConstantInfo &c : constants) {
    MLIRContext *context = c.op->getContext();
    auto &manager = DenseResourceElementsHandle::getManagerInterface(context);
    std::string key = getSegmentReferenceKey(c.segmentName);
    DenseResourceElementsHandle handle = manager.insert(key);
    if (handle.getKey() != key)
      return c.op->emitError()
             << "resource key '" << key
             << "' is already used by the input; rename that resource";
    setSiteValue(c.op, c.site,
                 DenseResourceElementsAttr::get(c.valueType, handle));
  }
  return success();
}

/// Writes one chunk. `scratch` and `expanded` are the calling thread's
/// reusable buffers.
archive::Status writeChunk(archive::ArchiveWriter &writer,
                           const SegmentPlan &plan, const Chunk &chunk,
                           ScratchBuffer &scratch, ScratchBuffer &expanded) {
  const ConstantInfo &c = *plan.constant;
  Encoding encoding = plan.encoding;
  uint64_t offset = vmpack::granuleByteOffset(
      encoding, c.elementType.scalarBits(), chunk.firstScalar);
  for (EncodedPiece piece : encodeChunk(c, encoding, chunk.firstScalar,
                                        chunk.numScalars, scratch, expanded)) {
    if (archive::Status status =
            writer.writeSegmentData(plan.id, offset, piece.data, piece.size);
        !status)
      return status;
    offset += piece.size;
  }
  return archive::Status::ok();
}

/// What the index says of a constant, segment or alias.
archive::ConstantDesc describe(const ConstantInfo &c) {
  archive::ConstantDesc desc;
  desc.name = c.segmentName;
  desc.mlirType = typeToString(c.logicalType);
  desc.elementType = c.elementType;
  desc.shape.assign(c.logicalType.getShape().begin(),
                    c.logicalType.getShape().end());
  desc.sourceKind = archive::SourceKind(c.origin);
  desc.sourceKey = c.resourceKey;
  desc.sourceAlignment = c.resourceAlignment;
  return desc;
}

/// Replaces every location of the program (ops and block arguments) by
/// the unknown location, as MLIR's --strip-debuginfo does.
void stripLocations(ModuleOp module) {
  Location unknown = UnknownLoc::get(module.getContext());
  module->walk([&](Operation *op) {
    op->setLoc(unknown);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setLoc(unknown);
  });
}

/// What makes two constants' stored bytes equal when their source bytes
/// are: the same width, count, source layout and stored encoding.
using ShapeKey = std::tuple<uint32_t, uint64_t, uint8_t, bool, bool, uint8_t>;
ShapeKey getShapeKey(const ConstantInfo &c, Encoding encoding) {
  return {c.elementType.scalarBits(),
          c.numScalars,
          uint8_t(c.sourceEncoding),
          c.isSplat,
          c.isZeroFill,
          uint8_t(encoding)};
}

/// For every constant, the index of the constant whose segment holds its
/// stored bytes: itself, or an earlier one. Reads the weights only for
/// Dedup::Content, and only where sizes match, hashing in parallel before
/// comparing every byte.
std::vector<size_t> findSharedConstants(ArrayRef<ConstantInfo> constants,
                                        ArrayRef<Encoding> encodings,
                                        Dedup dedup, unsigned threads) {
  std::vector<size_t> holder(constants.size());
  std::iota(holder.begin(), holder.end(), 0);
  if (dedup == Dedup::Off)
    return holder;

  // The same blob under the same key, or the same dense<...> attribute
  // (MLIR keeps one copy of equal attributes): the same bytes, whatever
  // the users' types, as long as width, count and layout agree.
  std::map<std::tuple<ShapeKey, std::string, const char *>, size_t> byBlob;
  for (size_t i = 0; i < constants.size(); ++i) {
    const ConstantInfo &c = constants[i];
    if (c.resourceKey.empty() && !c.data.data())
      continue;
    auto [it, inserted] = byBlob.try_emplace(
        {getShapeKey(c, encodings[i]), c.resourceKey, c.data.data()}, i);
    if (!inserted)
      holder[i] = it->second;
  }
  if (dedup != Dedup::Content)
    return holder;

  // Identical content: group stored constants by shape and size, hash the
  // members of groups of two or more, then compare equal hashes exactly.
  std::map<std::pair<ShapeKey, size_t>, std::vector<size_t>> groups;
  for (size_t i = 0; i < constants.size(); ++i)
    if (holder[i] == i)
      groups[{getShapeKey(constants[i], encodings[i]),
              constants[i].data.size()}]
          .push_back(i);
  std::vector<size_t> toHash;
  for (auto &[key, members] : groups)
    if (members.size() > 1)
      toHash.insert(toHash.end(), members.begin(), members.end());
  std::vector<uint64_t> hashes(constants.size(), 0);
  auto hashOne = [&](size_t i) {
    ArrayRef<char> data = constants[i].data;
    hashes[i] = llvm::xxh3_64bits(ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  };
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(threads);
  if (strategy.compute_thread_count() <= 1 || toHash.size() < 2) {
    for (size_t i : toHash)
      hashOne(i);
  } else {
    llvm::DefaultThreadPool pool(strategy);
    for (size_t i : toHash)
      pool.async([&hashOne, i] { hashOne(i); });
    pool.wait();
  }
  for (auto &[key, members] : groups) {
    if (members.size() < 2)
      continue;
    for (size_t m = 1; m < members.size(); ++m) {
      size_t i = members[m];
      ArrayRef<char> data = constants[i].data;
      for (size_t e = 0; e < m; ++e) {
        size_t j = members[e];
        if (holder[j] != j || hashes[i] != hashes[j])
          continue;
        if (data.empty() || std::memcmp(data.data(), constants[j].data.data(),
                                        data.size()) == 0) {
          holder[i] = j;
          break;
        }
      }
    }
  }
  return holder;
}

std::vector<Chunk> planChunks(ArrayRef<SegmentPlan> plans) {
  std::vector<Chunk> chunks;
  for (uint32_t p = 0; p < plans.size(); ++p) {
    const ConstantInfo &c = *plans[p].constant;
    uint32_t bitWidth = c.elementType.scalarBits();
    // Complex splats repeat a (real, imaginary) pair: keep chunks even.
    uint64_t granule = std::lcm(vmpack::elementGranule(bitWidth),
                                uint64_t(c.elementType.scalarsPerElement()));
    uint64_t perChunk = std::max<uint64_t>(granule, kChunkBytes * 8 / bitWidth /
                                                        granule * granule);
    for (uint64_t first = 0; first < c.numScalars; first += perChunk)
      chunks.push_back({p, first, std::min(perChunk, c.numScalars - first)});
  }
  return chunks;
}

} // namespace

LogicalResult
mlir::vmpack_compiler::serializeModule(ModuleOp module, StringRef outputPath,
                                       const SerializeOptions &options,
                                       TimingScope &timing) {
  Location loc = module.getLoc();
  auto isCancelled = [&] {
    return options.cancelled && options.cancelled->load();
  };

  TimingScope collectTimer = timing.nest("collect constants");
  FailureOr<SmallVector<ConstantInfo>> constants =
      collectConstants(module, options.zeroCopy, options.collect);
  if (failed(constants))
    return failure();
  std::vector<Encoding> encodings =
      chooseEncodings(*constants, options.encoding);
  if (failed(checkEncodable(*constants, encodings)))
    return failure();
  collectTimer.stop();

  TimingScope dedupTimer = timing.nest("find shared constants");
  std::vector<size_t> holder = findSharedConstants(
      *constants, encodings, options.dedup, options.threads);
  dedupTimer.stop();

  TimingScope programTimer = timing.nest("serialize program");
  if (failed(replaceWithReferences(*constants)))
    return failure();
  if (options.stripDebugInfo)
    stripLocations(module);
  std::string program;
  {
    llvm::raw_string_ostream os(program);
    BytecodeWriterConfig config(options.producer);
    if (failed(writeBytecodeToFile(module, os, config)))
      return emitError(loc) << "failed to write the program as bytecode";
  }
  programTimer.stop();

  TimingScope writeTimer = timing.nest("write segments");
  // An interrupt during the phases above must not reserve the output's space.
  if (isCancelled())
    return emitError(loc) << "interrupted; '" << outputPath
                          << "' was not written";
  archive::WriterOptions writerOptions;
  writerOptions.moduleName = options.moduleName;
  writerOptions.producer = options.producer;
  writerOptions.fsync = options.fsync;
  auto writerOr = archive::ArchiveWriter::create(outputPath.str(),
                                                 std::move(writerOptions));
  if (!writerOr)
    return emitError(loc) << writerOr.status().message();
  archive::ArchiveWriter &writer = **writerOr;

  std::vector<SegmentPlan> plans;
  std::vector<uint32_t> segmentOf(constants->size(), 0);
  uint64_t totalBytes = 0;
  for (size_t index = 0; index < constants->size(); ++index) {
    if (holder[index] != index)
      continue;
    const ConstantInfo &c = (*constants)[index];
    archive::SegmentDesc desc;
    static_cast<archive::ConstantDesc &>(desc) = describe(c);
    desc.encoding = encodings[index];
    desc.length = *vmpack::encodedSize(
        encodings[index], c.elementType.scalarBits(), c.numScalars);
    desc.alignment = options.alignment;
    uint64_t length = desc.length;
    auto id = writer.addSegment(std::move(desc));
    if (!id)
      return c.op->emitError() << id.status().message();
    plans.push_back({&c, *id, length, encodings[index]});
    segmentOf[index] = *id;
    totalBytes += length;
  }
  for (size_t index = 0; index < constants->size(); ++index) {
    if (holder[index] == index)
      continue;
    const ConstantInfo &c = (*constants)[index];
    archive::AliasDesc desc;
    static_cast<archive::ConstantDesc &>(desc) = describe(c);
    desc.segment = segmentOf[holder[index]];
    if (archive::Status status = writer.addAlias(std::move(desc)); !status)
      return c.op->emitError() << status.message();
  }
  writer.setProgram(std::move(program));
  if (archive::Status status = writer.beginData(); !status)
    return emitError(loc) << status.message();

  std::vector<Chunk> chunks = planChunks(plans);
  ProgressBar progress(totalBytes, options.progress);
  std::mutex errorMutex;
  std::optional<archive::Status> firstError;
  std::atomic<bool> stop{false};
  auto runChunk = [&](const Chunk &chunk) {
    if (stop.load(std::memory_order_relaxed))
      return;
    if (isCancelled()) {
      stop = true;
      return;
    }
    thread_local ScratchBuffer scratch, expanded;
    archive::Status status =
        writeChunk(writer, plans[chunk.plan], chunk, scratch, expanded);
    if (!status) {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!firstError)
        firstError = status;
      stop = true;
      return;
    }
    const SegmentPlan &plan = plans[chunk.plan];
    progress.add(*vmpack::encodedSize(plan.encoding,
                                      plan.constant->elementType.scalarBits(),
                                      chunk.numScalars));
  };

  llvm::ThreadPoolStrategy strategy =
      llvm::hardware_concurrency(options.threads);
  if (strategy.compute_thread_count() <= 1) {
    for (const Chunk &chunk : chunks)
      runChunk(chunk);
  } else {
    llvm::DefaultThreadPool pool(strategy);
    for (const Chunk &chunk : chunks)
      pool.async([&runChunk, &chunk] { runChunk(chunk); });
    pool.wait();
  }
  progress.finish();

  if (firstError)
    return emitError(loc) << firstError->message();
  if (isCancelled())
    return emitError(loc) << "interrupted; '" << outputPath
                          << "' was not written";
  if (archive::Status status = writer.finish(); !status)
    return emitError(loc) << status.message();
  return success();
}
