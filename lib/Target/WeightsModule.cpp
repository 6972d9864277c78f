//===- WeightsModule.cpp - Weight files as MLIR modules and back ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/WeightsModule.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/GgufValueText.h"
#include "vmpack/Formats/OutputFile.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Pack/Encoding.h"
#include "vmpack/Pack/Hex.h"
#include "vmpack/Target/TypeMapping.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;
namespace formats = vmpack::formats;
namespace fileio = vmpack::archive::detail;
using formats::Status;

namespace {

StringRef kMetadataAttrName = VMPackDialect::getMetadataAttrName();
StringRef kGgmlTypeAttrName = VMPackDialect::getGgmlTypeAttrName();
StringRef kGgmlShapeAttrName = VMPackDialect::getGgmlShapeAttrName();

/// A file beside the output, unlinked at once and mapped: converted blobs
/// live in the page cache, which the kernel can write back and evict,
/// rather than in the heap.
class ScratchFile {
public:
  ~ScratchFile() {
    if (map)
      ::munmap(map, size);
    if (fd >= 0)
      ::close(fd);
  }
  Status create(const std::string &beside, uint64_t bytes) {
    std::string temp;
    if (Status s = fileio::createTempFileBeside(beside, fd, temp); !s)
      return s;
    ::unlink(temp.c_str());
    if (Status s = fileio::reserveFileSpace(fd, bytes, temp); !s)
      return s;
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
      return Status::ioError("cannot map a scratch file of " +
                             std::to_string(bytes) + " bytes beside '" +
                             beside + "': " + std::strerror(errno));
    map = static_cast<uint8_t *>(p);
    size = bytes;
    return Status::ok();
  }
  uint8_t *data() { return map; }

private:
  int fd = -1;
  uint8_t *map = nullptr;
  uint64_t size = 0;
};

/// A resource key for `name`: MLIR prints keys as bare identifiers when
/// they are [A-Za-z_][A-Za-z0-9_.]*; other bytes become '_'. The blob
/// manager makes repeated keys unique.
std::string resourceKey(const std::string &name) {
  std::string key;
  for (unsigned char ch : name)
    key += (std::isalnum(ch) || ch == '_' || ch == '.') ? char(ch) : '_';
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0])))
    key = "_" + key;
  return key;
}

bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

/// The builtin dialect's resource section of a text module, as MLIR's
/// printer writes it, with blob `i` (the `byte` layout of tensor `i`,
/// after its alignment as a little-endian u32) under `keys[i]`. Writes at
/// most one chunk of digits at a time.
Status printBlobs(raw_ostream &os,
                  const std::vector<formats::TensorSource> &tensors,
                  const std::vector<std::string> &keys, uint32_t alignment) {
  os << "\n{-#\n  dialect_resources: {\n    builtin: {\n";
  std::vector<char> digits;
  auto printHex = [&](const uint8_t *bytes, uint64_t n) {
    digits.resize(2 * n);
    vmpack::encodeHex(bytes, n, digits.data());
    os.write(digits.data(), digits.size());
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    os << "      " << keys[i] << ": \"0x";
    uint8_t prefix[4] = {uint8_t(alignment), uint8_t(alignment >> 8),
                         uint8_t(alignment >> 16), uint8_t(alignment >> 24)};
    printHex(prefix, 4);
    // Opaque (ggml block) tensors come as they are, whatever the encoding.
    if (Status s = formats::forEachTensorChunk(
            tensors[i], Encoding::Byte,
            [&](uint64_t, const uint8_t *bytes, uint64_t n) {
              printHex(bytes, n);
              return Status::ok();
            });
        !s)
      return s;
    os << (i + 1 < tensors.size() ? "\",\n" : "\"\n");
  }
  os << "    }\n  }\n#-}\n";
  return Status::ok();
}

} // namespace

Status mlir::vmpack_compiler::writeWeightsModule(
    const std::string &path, const std::vector<formats::TensorSource> &tensors,
    const formats::StringMetadata &metadata,
    const WeightsModuleOptions &options) {
  if (!isPowerOfTwo(options.alignment))
    return Status::invalidArgument("the blob alignment must be a power of two");
  // Text: MLIR's printer would build each blob's hex digits in one string,
  // so blobs are left out of the module and their resource section is
  // written here, chunk by chunk, in the printer's form.
  bool streamBlobs = !options.bytecode && !options.dense;
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<ml_program::MLProgramDialect, VMPackDialect>();
  std::string diagnostic;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
    if (diagnostic.empty())
      diagnostic = d.str();
    return success();
  });
  OpBuilder builder(&context);
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(
      loc, options.moduleName.empty() ? std::optional<StringRef>()
                                      : StringRef(options.moduleName));
  if (!metadata.empty()) {
    SmallVector<Attribute> pairs;
    for (const auto &[key, value] : metadata)
      pairs.push_back(builder.getArrayAttr(
          {builder.getStringAttr(key), builder.getStringAttr(value)}));
    (*module)->setAttr(kMetadataAttrName, builder.getArrayAttr(pairs));
  }

  // Plan every tensor: its MLIR type, and where its blob bytes come from.
  struct Plan {
    RankedTensorType type;
    bool inPlace = false;
    uint64_t blobSize = 0;
    uint64_t scratchOffset = 0;
  };
  std::vector<Plan> plans(tensors.size());
  uint64_t scratchSize = 0;
  Type byteType = getMlirElementType(formats::opaqueByteType(), &context);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const formats::TensorInfo &t = tensors[i].info;
    if (t.name.empty())
      return Status::invalidArgument(
          "a tensor without a name cannot be an MLIR symbol");
    Plan &plan = plans[i];
    if (t.isOpaque()) {
      plan.type = RankedTensorType::get({int64_t(t.length)}, byteType);
      plan.blobSize = t.length;
      plan.inPlace = !tensors[i].produce;
    } else {
      Type element = getMlirElementType(t.elementType, &context);
      if (!element)
        return Status::invalidArgument(
            "tensor '" + t.name +
            "': " + formats::tensorTypeString(t.elementType, t.shape) +
            " has no MLIR type");
      plan.type = RankedTensorType::get(t.shape, element);
      std::optional<uint64_t> size =
          formats::storedSize(t.elementType, t.shape, Encoding::Byte);
      if (!size)
        return Status::invalidArgument("tensor '" + t.name + "' is too large");
      plan.blobSize = *size;
      plan.inPlace = !tensors[i].produce && t.encoding == Encoding::Byte;
    }
    if (!plan.inPlace && !options.dense && !streamBlobs) {
      // Each converted blob starts aligned in the scratch file too.
      scratchSize = (scratchSize + options.alignment - 1) / options.alignment *
                    options.alignment;
      plan.scratchOffset = scratchSize;
      scratchSize += plan.blobSize;
    }
  }
  ScratchFile scratch;
  if (scratchSize)
    if (Status s = scratch.create(path, scratchSize); !s)
      return s;

  auto &blobs = DenseResourceElementsHandle::getManagerInterface(&context);
  std::vector<std::string> streamedKeys(tensors.size());
  builder.setInsertionPointToEnd(module->getBody());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const formats::TensorSource &source = tensors[i];
    const formats::TensorInfo &t = source.info;
    const Plan &plan = plans[i];
    Attribute value;
    if (options.dense) {
      // MLIR's own storage (i1 as a bitmask in MLIR 22), copied into the
      // context as every DenseElementsAttr is.
      Encoding storage =
          t.isOpaque() ? Encoding::Byte
                       : vmpack::mlirStorageEncoding(t.elementType.scalarBits(),
                                                     t.elementType.isComplex);
      std::optional<uint64_t> size =
          t.isOpaque() ? std::optional<uint64_t>(t.length)
                       : formats::storedSize(t.elementType, t.shape, storage);
      if (!size)
        return Status::invalidArgument("tensor '" + t.name + "' is too large");
      std::vector<char> bytes(*size);
      if (Status s = formats::forEachTensorChunk(
              source, storage,
              [&](uint64_t at, const uint8_t *data, uint64_t n) {
                std::memcpy(bytes.data() + at, data, n);
                return Status::ok();
              });
          !s)
        return s;
      bool splat = false;
      if (!DenseElementsAttr::isValidRawBuffer(plan.type, bytes, splat))
        return Status::invalidArgument(
            "tensor '" + t.name +
            "': its bytes do not form a dense<...> value");
      value = DenseElementsAttr::getFromRawBuffer(plan.type, bytes);
    } else if (streamBlobs) {
      DenseResourceElementsHandle handle = blobs.insert(resourceKey(t.name));
      streamedKeys[i] = handle.getKey().str();
      value = DenseResourceElementsAttr::get(plan.type, handle);
    } else {
      const char *data;
      if (plan.inPlace) {
        data = reinterpret_cast<const char *>(source.data);
      } else {
        uint8_t *out = scratch.data() + plan.scratchOffset;
        if (Status s = formats::forEachTensorChunk(
                source, Encoding::Byte,
                [&](uint64_t at, const uint8_t *bytes, uint64_t n) {
                  std::memcpy(out + at, bytes, n);
                  return Status::ok();
                });
            !s)
          return s;
        data = reinterpret_cast<const char *>(out);
      }
      DenseResourceElementsHandle handle = blobs.insert(
          resourceKey(t.name),
          UnmanagedAsmResourceBlob::allocateWithAlign(
              ArrayRef<char>(data, plan.blobSize), options.alignment));
      value = DenseResourceElementsAttr::get(plan.type, handle);
    }
    auto global = ml_program::GlobalOp::create(
        builder, loc, builder.getStringAttr(t.name), TypeAttr::get(plan.type),
        /*is_mutable=*/UnitAttr(), value, builder.getStringAttr("private"));
    if (t.isOpaque()) {
      global->setAttr(
          kGgmlTypeAttrName,
          builder.getIntegerAttr(builder.getIntegerType(32, /*isSigned=*/false),
                                 *t.ggmlBlockType));
      global->setAttr(kGgmlShapeAttrName,
                      builder.getDenseI64ArrayAttr(t.shape));
    }
  }
  if (failed(verify(*module)))
    return Status::internalError("the MLIR module is not valid: " + diagnostic);

  int fd = -1;
  std::string temp;
  if (Status s = fileio::createTempFileBeside(path, fd, temp); !s)
    return s;
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
    if (options.bytecode) {
      BytecodeWriterConfig config(options.producer);
      if (failed(writeBytecodeToFile(*module, os, config))) {
        ::close(fd);
        ::unlink(temp.c_str());
        return Status::ioError("cannot write MLIR bytecode: " + diagnostic);
      }
    } else {
      module->print(os);
      if (streamBlobs && !tensors.empty())
        if (Status s = printBlobs(os, tensors, streamedKeys, options.alignment);
            !s) {
          ::close(fd);
          ::unlink(temp.c_str());
          return s;
        }
      os << "\n";
    }
    os.flush();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      ::close(fd);
      ::unlink(temp.c_str());
      return Status::ioError("writing '" + temp + "': " + message);
    }
  }
  bool renamed = false;
  Status committed =
      fileio::commitTempFile(fd, temp, path, /*fsync=*/false, renamed);
  if (!renamed)
    ::unlink(temp.c_str());
  return committed;
}

FailureOr<ModuleTensors>
mlir::vmpack_compiler::getModuleTensors(ModuleOp module,
                                        ArrayRef<ConstantInfo> constants,
                                        StringRef input, int inputFd) {
  ModuleTensors out;
  if (Attribute attr = module->getAttr(kMetadataAttrName)) {
    auto pairs = dyn_cast<ArrayAttr>(attr);
    if (!pairs)
      return module.emitError()
             << kMetadataAttrName << " must be an array of [key, value] "
             << "string pairs";
    for (Attribute entry : pairs) {
      auto pair = dyn_cast<ArrayAttr>(entry);
      StringAttr key =
          pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0]) : nullptr;
      StringAttr value =
          pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[1]) : nullptr;
      if (!key || !value)
        return module.emitError()
               << kMetadataAttrName << " must be an array of [key, value] "
               << "string pairs, not " << entry;
      out.metadata.emplace_back(key.str(), value.str());
    }
  }

  for (const ConstantInfo &c : constants) {
    formats::TensorSource s;
    formats::TensorInfo &t = s.info;
    t.name = c.segmentName;
    t.elementType = c.elementType;
    t.shape.assign(c.logicalType.getShape().begin(),
                   c.logicalType.getShape().end());
    uint32_t bits = c.elementType.scalarBits();
    if (c.isZeroFill || c.isSplat) {
      // Computed in `byte` layout, chunk by chunk, when written.
      t.encoding = Encoding::Byte;
      t.length = *vmpack::encodedSize(Encoding::Byte, bits, c.numScalars);
      if (c.isZeroFill) {
        s.produce = [](uint64_t, uint64_t n, uint8_t *to) {
          std::memset(to, 0, n);
        };
      } else {
        const auto *splat = reinterpret_cast<const uint8_t *>(c.data.data());
        bool isComplex = c.elementType.isComplex;
        uint64_t each = (bits + 7) / 8;
        std::shared_ptr<const std::vector<char>> keep = c.ownedData;
        s.produce = [splat, bits, isComplex, each,
                     keep](uint64_t first, uint64_t n, uint8_t *to) {
          uint64_t firstScalar = first / each;
          uint64_t endScalar = (first + n + each - 1) / each;
          std::vector<uint8_t> bytes((endScalar - firstScalar) * each);
          vmpack::expandMlirSplat(splat, bits, isComplex, firstScalar,
                                  endScalar - firstScalar, bytes.data());
          std::memcpy(to, bytes.data() + (first - firstScalar * each), n);
        };
      }
    } else {
      t.encoding = c.sourceEncoding;
      t.length = *vmpack::encodedSize(c.sourceEncoding, bits, c.numScalars);
      s.data = reinterpret_cast<const uint8_t *>(c.data.data());
      // Bytes inside the input file can be copied in the kernel.
      if (inputFd >= 0 && c.data.data() >= input.begin() &&
          c.data.data() + c.data.size() <= input.end()) {
        s.fd = inputFd;
        s.fileOffset = uint64_t(c.data.data() - input.begin());
      }
    }

    // A ggml block tensor: ui8 bytes of exactly the blocks' size.
    Attribute ggmlType = c.op->getAttr(kGgmlTypeAttrName);
    if (ggmlType) {
      auto number = dyn_cast<IntegerAttr>(ggmlType);
      auto shape = dyn_cast_or_null<DenseI64ArrayAttr>(
          c.op->getAttr(kGgmlShapeAttrName));
      if (!number || !shape || number.getValue().getActiveBits() > 32)
        return c.op->emitError()
               << kGgmlTypeAttrName << " must be an integer ggml type and "
               << kGgmlShapeAttrName << " an array<i64: ...> shape";
      if (!(t.elementType == formats::opaqueByteType()) || t.shape.size() != 1)
        return c.op->emitError()
               << "a ggml block tensor must be held as a 1-D tensor of ui8";
      uint32_t type = uint32_t(number.getValue().getZExtValue());
      std::vector<int64_t> logical(shape.asArrayRef().begin(),
                                   shape.asArrayRef().end());
      formats::StatusOr<uint64_t> bytes =
          formats::ggmlTensorBytes(type, logical);
      if (!bytes)
        return c.op->emitError() << bytes.status().message();
      if (*bytes != t.length)
        return c.op->emitError()
               << "ggml type " << type << " of shape "
               << formats::tensorTypeString(t.elementType, logical) << " needs "
               << *bytes << " bytes, not " << t.length;
      t.ggmlBlockType = type;
      t.shape = std::move(logical);
    }
    out.tensors.push_back(std::move(s));
  }
  return out;
}

LogicalResult mlir::vmpack_compiler::exportWeightFile(
    ModuleOp module, StringRef outputPath,
    const WeightFileExportOptions &options) {
  FailureOr<SmallVector<ConstantInfo>> constants =
      collectConstants(module, options.zeroCopy, options.collect);
  if (failed(constants))
    return failure();
  bool gguf = options.format == WeightFileFormat::Gguf;
  bool ok = true;
  for (const ConstantInfo &c : *constants) {
    if (gguf && c.segmentName.size() > formats::kGgufMaxWrittenNameBytes) {
      c.op->emitError() << "the tensor name '" << c.segmentName << "' has "
                        << c.segmentName.size()
                        << " bytes; GGUF names have at most "
                        << formats::kGgufMaxWrittenNameBytes
                        << " (ggml's GGML_MAX_NAME)";
      ok = false;
    }
    if (!gguf && c.segmentName == "__metadata__") {
      c.op->emitError() << "a safetensors tensor cannot be named "
                           "'__metadata__', the key of the file's metadata";
      ok = false;
    }
    if (auto quantized =
            dyn_cast<quant::QuantizedType>(c.logicalType.getElementType()))
      c.op->emitWarning() << "'" << c.segmentName << "' is written as its "
                          << "storage integers ("
                          << vmpack::toString(c.elementType)
                          << "); the quantization parameters of " << quantized
                          << " are not kept";
  }
  if (!ok)
    return failure();
  FailureOr<ModuleTensors> tensors =
      getModuleTensors(module, *constants, options.input, options.inputFd);
  if (failed(tensors))
    return failure();
  Status written = Status::ok();
  if (gguf) {
    formats::StatusOr<formats::GgufMetadata> metadata =
        formats::stringMetadataToGguf(tensors->metadata);
    if (!metadata)
      return module.emitError()
             << kMetadataAttrName << ": " << metadata.status().message();
    written = formats::writeGguf(outputPath.str(), tensors->tensors, *metadata);
  } else {
    written = formats::writeSafetensors(outputPath.str(), tensors->tensors,
                                        tensors->metadata);
  }
  if (!written)
    return module.emitError() << written.message();
  return success();
}
