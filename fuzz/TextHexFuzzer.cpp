//===- TextHexFuzzer.cpp - The text fast path against MLIR's own parse ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One input is MLIR text. parseTextWithFastHex (with a 2-byte threshold, so
// that short literals take the fast path too) must never crash, and when it
// gives a module, MLIR's own parse of the same text must succeed and print
// the same, once the fast path's resources are turned back into dense<...>.
// The first bytes also go through every hex kernel, which must agree with
// the reference.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Pack/Hex.h"
#include "vmpack/Target/ConstantCollector.h"
#include "vmpack/Target/TextFastPath.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;

namespace {

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().enableDebugInfo(true, false);
  module->print(os, flags);
  return text;
}

const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *registry = new DialectRegistry;
    registerAllDialects(*registry);
    return registry;
  }();
  return *r;
}

void checkHexKernels(const char *text, size_t size) {
  uint64_t maxBytes = size / 2;
  std::vector<uint8_t> expected(maxBytes), got(maxBytes);
  uint64_t n =
      vmpack::reference::decodeHexPrefix(text, expected.data(), maxBytes);
  for (unsigned i = 0; i < vmpack::kNumDispatchLevels; ++i) {
    auto level = vmpack::DispatchLevel(i);
    if (!vmpack::isDispatchLevelSupported(level))
      continue;
    if (vmpack::decodeHexPrefixAt(level, text, got.data(), maxBytes) != n ||
        !std::equal(got.begin(), got.begin() + n, expected.begin()) ||
        vmpack::decodeHexAt(level, text, got.data(), maxBytes) !=
            (n == maxBytes))
      std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16))
    return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  checkHexKernels(text.data(), text.size());

  std::string fast;
  {
    MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
    context.allowUnregisteredDialects();
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
    auto buffer = llvm::MemoryBuffer::getMemBuffer(text, "input.mlir");
    auto module = mlir::vmpack_compiler::parseTextWithFastHex(
        buffer->getMemBufferRef(), &context, zeroCopy, /*minBytes=*/2);
    if (!module)
      return 0;
    module->walk([&](Operation *op) {
      mlir::vmpack_compiler::replaceNestedAttributes(
          op, [&](Attribute attr) -> Attribute {
            auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
            if (!resource ||
                !zeroCopy.isZeroCopyDense(resource.getRawHandle().getKey()))
              return {};
            return DenseElementsAttr::getFromRawBuffer(
                resource.getType(),
                resource.getRawHandle().getBlob()->getData());
          });
    });
    fast = print(*module);
  }
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  auto module = parseSourceString<ModuleOp>(text, &context, "input.mlir");
  if (!module || print(*module) != fast)
    std::abort();
  return 0;
}
