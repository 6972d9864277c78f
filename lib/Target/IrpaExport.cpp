//===- IrpaExport.cpp - Global constants to an IREE parameter archive -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Phases, as in ModuleSerializer: collect the constants (no copies), keep
// the globals' values, plan every entry and check it, rewrite the program,
// then fill the data entries in parallel, granule-aligned chunks converted
// to `word` straight into the archive writer. Every diagnostic is emitted
// before the output file is created.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/IrpaExport.h"

#include "ChunkEncoder.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Formats/IrpaWriter.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Target/StreamOutput.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mutex>
#include <numeric>
#include <unistd.h>

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;
namespace formats = vmpack::formats;

namespace {

/// Output bytes per chunk, as for module archives.
constexpr uint64_t kChunkBytes = 4 << 20;

/// The global ops whose value IREE's exporter turns into a parameter
/// (those implementing its GlobalOpInterface). memref.global is not one,
/// and its verifier admits only elements or unit initial values, so a
/// parameter reference could not stand there.
struct GlobalKind {
  StringLiteral opName;
  StringLiteral valueAttr;
};
constexpr GlobalKind kGlobalKinds[] = {
    {"util.global", "initial_value"},
    {"ml_program.global", "value"},
};

/// An inherent attribute (from the properties of an unregistered op too)
/// or, failing that, a discardable one.
Attribute getOpAttr(Operation *op, StringRef name) {
  if (std::optional<Attribute> inherent = op->getInherentAttr(name))
    if (*inherent)
      return *inherent;
  if (!op->isRegistered())
    if (auto properties =
            dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
      if (Attribute value = properties.get(name))
        return value;
  return op->getDiscardableAttr(name);
}

/// The name of the op's own attribute a constant is, or "" when it is
/// nested deeper (in properties: one level into the properties dictionary).
StringRef topLevelName(const ConstantInfo &c) {
  if (!c.site.inProperties)
    return c.site.path.empty() && c.site.attrName ? c.site.attrName.getValue()
                                                  : StringRef();
  if (c.site.path.size() != 1)
    return {};
  auto properties =
      dyn_cast_or_null<DictionaryAttr>(c.op->getPropertiesAsAttribute());
  if (!properties || c.site.path[0] >= properties.size())
    return {};
  return properties.getValue()[c.site.path[0]].getName().getValue();
}

bool isGlobalValue(const ConstantInfo &c) {
  StringRef opName = c.op->getName().getStringRef();
  StringRef name = topLevelName(c);
  for (const GlobalKind &kind : kGlobalKinds)
    if (opName == kind.opName && name == kind.valueAttr)
      return true;
  return false;
}

bool isMutableGlobal(Operation *op) {
  return static_cast<bool>(getOpAttr(op, "is_mutable"));
}

/// One entry of the archive.
struct EntryPlan {
  const ConstantInfo *constant;
  std::string key;
  uint64_t length = 0;
  bool isSplat = false;
  uint8_t pattern[formats::irpa::kMaxPatternLength] = {};
  uint8_t patternLength = 0;
  uint32_t id = 0;
};

/// A splat's bytes as one repeating block of its `word` bytes: the
/// smallest whole number of scalars that fills whole words (whole bytes
/// for widths that are multiples of 8 or 1), and for complex types whole
/// elements. Fails when that block is not 1, 2, 4, 8 or 16 bytes or does
/// not divide the tensor: the caller then writes a data entry.
bool splatPattern(const ConstantInfo &c, EntryPlan &plan) {
  uint32_t bits = c.elementType.scalarBits();
  uint64_t perElement = c.elementType.scalarsPerElement();
  uint64_t block = (bits % 8 == 0 || bits == 1)
                       ? perElement
                       : vmpack::wordLayout(bits).elementsPerWord;
  if (block % perElement != 0 || c.numScalars == 0 || c.numScalars % block != 0)
    return false;
  std::optional<uint64_t> size =
      vmpack::encodedSize(Encoding::Word, bits, block);
  if (!size || !formats::irpa::isValidPatternLength(*size))
    return false;
  std::vector<uint8_t> bytes(block * ((bits + 7) / 8));
  vmpack::expandMlirSplat(reinterpret_cast<const uint8_t *>(c.data.data()),
                          bits, c.elementType.isComplex, 0, block,
                          bytes.data());
  vmpack::convert(Encoding::Byte, Encoding::Word, bits, bytes.data(),
                  plan.pattern, block);
  plan.patternLength = uint8_t(*size);
  return true;
}

/// The printed form of IREE's #flow.parameter.named (printParameterReference
/// in IREE's FlowTypes.cpp): both strings between quotes, unescaped.
Attribute parameterReference(MLIRContext *context, Type type, StringRef scope,
                             StringRef key) {
  std::string data =
      "parameter.named<\"" + scope.str() + "\"::\"" + key.str() + "\">";
  return OpaqueAttr::get(StringAttr::get(context, "flow"), data, type);
}

/// IREE prints keys and scopes without escaping: only text that needs none
/// can be written the way IREE writes it.
bool printsVerbatim(StringRef text) {
  for (unsigned char ch : text)
    if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
      return false;
  return true;
}

struct Chunk {
  size_t plan;
  uint64_t firstScalar;
  uint64_t numScalars;
};

/// Converts scalars [firstScalar, +numScalars) of a data entry to `word`
/// and writes them at their place.
formats::Status writeChunk(formats::IrpaWriter &writer, const EntryPlan &plan,
                           const Chunk &chunk, ScratchBuffer &scratch,
                           ScratchBuffer &expanded) {
  const ConstantInfo &c = *plan.constant;
  uint64_t offset = vmpack::granuleByteOffset(
      Encoding::Word, c.elementType.scalarBits(), chunk.firstScalar);
  for (EncodedPiece piece : encodeChunk(c, Encoding::Word, chunk.firstScalar,
                                        chunk.numScalars, scratch, expanded)) {
    if (formats::Status status =
            writer.writeEntryData(plan.id, offset, piece.data, piece.size);
        !status)
      return status;
    offset += piece.size;
  }
  return formats::Status::ok();
}

} // namespace

LogicalResult
mlir::vmpack_compiler::exportParameters(ModuleOp module, StringRef outputPath,
                                        const IrpaExportOptions &options,
                                        TimingScope &timing) {
  TimingScope collectTimer = timing.nest("collect constants");
  FailureOr<SmallVector<ConstantInfo>> collected =
      collectConstants(module, options.zeroCopy, options.collect);
  if (failed(collected))
    return failure();
  collectTimer.stop();

  if (!printsVerbatim(options.scope))
    return module.emitError()
           << "parameter scope '" << options.scope
           << "' needs escaping, which IREE's printer does not do; use "
              "printable ASCII without '\"' and '\\'";

  // Plan: the globals' values of at least the minimum size, in module
  // order, and every check before anything is written.
  std::vector<EntryPlan> plans;
  bool ok = true;
  for (const ConstantInfo &c : *collected) {
    if (!isGlobalValue(c))
      continue;
    uint32_t bits = c.elementType.scalarBits();
    if (!vmpack::isEncodable(Encoding::Word, bits)) {
      c.op->emitError() << "element type " << c.logicalType.getElementType()
                        << " has no IREE (`word`) layout: widths above 64 "
                           "bits must be multiples of 8";
      ok = false;
      continue;
    }
    std::optional<uint64_t> length =
        vmpack::encodedSize(Encoding::Word, bits, c.numScalars);
    if (!length) {
      c.op->emitError() << "constant of type " << c.logicalType
                        << " is too large to store";
      ok = false;
      continue;
    }
    if (*length < options.minimumSize)
      continue;
    auto key = dyn_cast_or_null<StringAttr>(getOpAttr(c.op, "sym_name"));
    if (!key) {
      c.op->emitError() << "global without a symbol name";
      ok = false;
      continue;
    }
    if (!printsVerbatim(key.getValue())) {
      c.op->emitError() << "global name '" << key.getValue()
                        << "' needs escaping in #flow.parameter.named, which "
                           "IREE's printer does not do";
      ok = false;
      continue;
    }
    EntryPlan plan;
    plan.constant = &c;
    plan.key = key.getValue().str();
    plan.length = *length;
    plan.isSplat = c.isSplat && !c.isZeroFill && !isMutableGlobal(c.op) &&
                   splatPattern(c, plan);
    plans.push_back(std::move(plan));
  }
  if (!ok)
    return failure();

  // The program: each exported value becomes a parameter reference. The
  // old attributes stay alive in the context, so `data` stays valid.
  for (const EntryPlan &plan : plans) {
    const ConstantInfo &c = *plan.constant;
    auto value = dyn_cast_or_null<TypedAttr>(getSiteValue(c.op, c.site));
    Type type = value ? value.getType() : Type(c.valueType);
    setSiteValue(
        c.op, c.site,
        parameterReference(c.op->getContext(), type, options.scope, plan.key));
  }

  TimingScope writeTimer = timing.nest("write parameters");
  formats::IrpaWriterOptions writerOptions;
  writerOptions.fsync = options.fsync;
  auto writer = formats::IrpaWriter::create(outputPath.str(), writerOptions);
  if (!writer)
    return module.emitError() << writer.status().message();
  for (EntryPlan &plan : plans) {
    auto id = plan.isSplat
                  ? (*writer)->addSplatEntry(plan.key, plan.length,
                                             plan.pattern, plan.patternLength)
                  : (*writer)->addDataEntry(plan.key, plan.length);
    if (!id)
      return plan.constant->op->emitError() << id.status().message();
    plan.id = *id;
  }
  if (formats::Status st = (*writer)->beginData(); !st)
    return module.emitError() << st.message();

  std::vector<Chunk> chunks;
  for (size_t p = 0; p < plans.size(); ++p) {
    if (plans[p].isSplat)
      continue;
    const ConstantInfo &c = *plans[p].constant;
    uint32_t bits = c.elementType.scalarBits();
    uint64_t granule = std::lcm(vmpack::elementGranule(bits),
                                uint64_t(c.elementType.scalarsPerElement()));
    uint64_t perChunk =
        std::max<uint64_t>(granule, kChunkBytes * 8 / bits / granule * granule);
    for (uint64_t first = 0; first < c.numScalars; first += perChunk)
      chunks.push_back({p, first, std::min(perChunk, c.numScalars - first)});
  }

  std::mutex errorMutex;
  formats::Status firstError = formats::Status::ok();
  std::atomic<size_t> next{0};
  auto work = [&] {
    ScratchBuffer scratch, expanded;
    for (size_t i = next++; i < chunks.size(); i = next++) {
      if (options.cancelled && *options.cancelled) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (firstError.isOk())
          firstError = formats::Status::internalError("interrupted");
        return;
      }
      formats::Status st = writeChunk(**writer, plans[chunks[i].plan],
                                      chunks[i], scratch, expanded);
      if (!st) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (firstError.isOk())
          firstError = st;
        return;
      }
    }
  };
  llvm::ThreadPoolStrategy strategy =
      llvm::hardware_concurrency(options.threads);
  unsigned workers =
      std::min<size_t>(strategy.compute_thread_count(), chunks.size());
  if (workers <= 1) {
    work();
  } else {
    llvm::DefaultThreadPool pool(strategy);
    for (unsigned t = 0; t < workers; ++t)
      pool.async(work);
    pool.wait();
  }
  if (!firstError)
    return module.emitError() << firstError.message();
  if (formats::Status st = (*writer)->finish(); !st)
    return module.emitError() << st.message();
  return success();
}

LogicalResult mlir::vmpack_compiler::writeProgramFile(ModuleOp module,
                                                      StringRef path) {
  // Through the archive layer's temporary file: never over an input,
  // written through symlinks, the replaced file's mode kept.
  vmpack::archive::Status written = vmpack::target::writeStreamAtomically(
      path.str(), [&](llvm::raw_ostream &os) -> vmpack::archive::Status {
        if (path.ends_with(".mlirbc")) {
          if (failed(writeBytecodeToFile(module, os)))
            return vmpack::archive::Status::ioError(
                "cannot write the program as bytecode");
        } else {
          module.print(os);
          os << "\n";
        }
        return vmpack::archive::Status::ok();
      });
  if (!written)
    return module.emitError() << written.message();
  return success();
}
