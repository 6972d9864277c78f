//===- ApintBaseline.cpp - The per-element APInt serializer ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-baseline-apint INPUT.mlir[bc] -o OUT [--timing]
//
// The algorithm vmpack replaces, as IREE's VM rodata serializer ran it
// before vmpack existed: parse the module with MLIR, then for every
// `ml_program.global` holding a DenseElementsAttr, walk the elements with
// getValues<APInt>() (floats through APFloat::bitcastToAPInt) and pack them
// one at a time into little-endian words of IREE's layout (docs/packing.md
// §2.2, `word`), written through a buffered stream into the output file.
// Like the original, 8-bit integers are copied as MLIR stores them and i1 is
// expanded to a byte per element. Each constant starts at a 16-byte
// boundary, as IREE aligned rodata.
//
// This is a benchmark reference: faithful to the original, neither slowed
// down nor tuned.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Encoding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

namespace {
llvm::cl::opt<std::string> inputPath(llvm::cl::Positional,
                                     llvm::cl::desc("<input .mlir/.mlirbc>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> outputPath("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("file"),
                                      llvm::cl::Required);
llvm::cl::opt<bool> timing("timing",
                           llvm::cl::desc("Print parse and pack times"));

constexpr uint64_t kConstantAlignment = 16;

/// Accumulates W-bit elements into a P-bit word and writes the word when the
/// next element would not fit: the element-at-a-time packer.
template <typename WordT> class WordWriter {
public:
  WordWriter(unsigned bitWidth, llvm::raw_ostream &os)
      : bitWidth(bitWidth), os(os) {}
  ~WordWriter() { flush(); }

  void write(uint64_t value) {
    if (bitOffset + bitWidth > 8 * sizeof(WordT))
      flush();
    word |= static_cast<WordT>(value) << bitOffset;
    bitOffset += bitWidth;
  }

  void flush() {
    if (bitOffset == 0)
      return;
    WordT little =
        llvm::support::endian::byte_swap<WordT>(word, llvm::endianness::little);
    os.write(reinterpret_cast<const char *>(&little), sizeof(little));
    word = 0;
    bitOffset = 0;
  }

private:
  const unsigned bitWidth;
  llvm::raw_ostream &os;
  unsigned bitOffset = 0;
  WordT word = 0;
};

/// The elements of `attr` as APInts, one at a time.
template <typename Fn> void forEachElementBits(DenseElementsAttr attr, Fn fn) {
  if (llvm::isa<FloatType>(attr.getElementType())) {
    for (const llvm::APFloat &value : attr.getValues<llvm::APFloat>())
      fn(value.bitcastToAPInt());
  } else {
    for (const llvm::APInt &value : attr.getValues<llvm::APInt>())
      fn(value);
  }
}

template <typename WordT>
void packWords(DenseElementsAttr attr, unsigned bitWidth,
               llvm::raw_ostream &os) {
  WordWriter<WordT> writer(bitWidth, os);
  forEachElementBits(attr, [&](const llvm::APInt &bits) {
    writer.write(bits.getZExtValue());
  });
}

/// Writes one constant in `word` layout. Returns false for element types the
/// layout does not define.
bool serialize(DenseElementsAttr attr, llvm::raw_ostream &os) {
  Type elementType = attr.getElementType();
  if (!elementType.isIntOrFloat())
    return false;
  unsigned bitWidth = elementType.getIntOrFloatBitWidth();
  if (bitWidth == 1) {
    for (const llvm::APInt &value : attr.getValues<llvm::APInt>())
      os << static_cast<char>(value.getZExtValue());
    return true;
  }
  if (bitWidth == 8 && elementType.isInteger() && !attr.isSplat()) {
    ArrayRef<char> raw = attr.getRawData();
    os.write(raw.data(), raw.size());
    return true;
  }
  if (bitWidth % 8 == 0) {
    // Whole bytes per element, little-endian.
    SmallVector<char, 16> bytes(bitWidth / 8);
    forEachElementBits(attr, [&](const llvm::APInt &bits) {
      for (unsigned b = 0; b < bitWidth / 8; ++b)
        bytes[b] = static_cast<char>(bits.extractBitsAsZExtValue(8, 8 * b));
      os.write(bytes.data(), bytes.size());
    });
    return true;
  }
  if (!vmpack::isEncodable(vmpack::Encoding::Word, bitWidth))
    return false;
  switch (vmpack::wordLayout(bitWidth).wordBits) {
  case 8:
    packWords<uint8_t>(attr, bitWidth, os);
    return true;
  case 16:
    packWords<uint16_t>(attr, bitWidth, os);
    return true;
  case 32:
    packWords<uint32_t>(attr, bitWidth, os);
    return true;
  case 64:
    packWords<uint64_t>(attr, bitWidth, os);
    return true;
  }
  return false;
}

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "per-element APInt constant serializer (benchmark baseline)\n");

  MLIRContext context;
  context.loadDialect<func::FuncDialect, ml_program::MLProgramDialect>();
  context.allowUnregisteredDialects();

  auto start = Clock::now();
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputPath, sourceMgr, &context);
  if (!module)
    return 1;
  double parseSeconds = secondsSince(start);

  start = Clock::now();
  std::error_code ec;
  llvm::raw_fd_ostream os(outputPath, ec);
  if (ec) {
    llvm::errs() << "vmpack-baseline-apint: cannot open '" << outputPath
                 << "': " << ec.message() << "\n";
    return 1;
  }
  uint64_t constants = 0, elements = 0;
  bool ok = true;
  module->walk([&](ml_program::GlobalOp global) {
    auto value = llvm::dyn_cast_or_null<DenseElementsAttr>(
        global.getValue().value_or(Attribute()));
    if (!value)
      return;
    while (os.tell() % kConstantAlignment)
      os << '\0';
    if (!serialize(value, os)) {
      global.emitError("cannot serialize elements of type ")
          << value.getElementType();
      ok = false;
      return;
    }
    ++constants;
    elements += value.getNumElements();
  });
  os.close();
  if (os.has_error()) {
    llvm::errs() << "vmpack-baseline-apint: writing '" << outputPath
                 << "' failed: " << os.error().message() << "\n";
    os.clear_error();
    return 1;
  }
  if (!ok)
    return 1;
  if (timing) {
    double packSeconds = secondsSince(start);
    llvm::errs() << llvm::format(
        "vmpack-baseline-apint: parse %.3f s, pack+write %.3f s: %llu "
        "constants, %llu elements (%.1f M elements/s)\n",
        parseSeconds, packSeconds, (unsigned long long)constants,
        (unsigned long long)elements, elements / packSeconds / 1e6);
  }
  return 0;
}
