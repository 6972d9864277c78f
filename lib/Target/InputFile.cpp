//===- InputFile.cpp - Reading the compiler's input -----------------------===//

#include "vmpack/Target/InputFile.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

using namespace mlir;

OwningOpRef<ModuleOp>
mlir::vmpack::parseInputFile(StringRef path,
                             const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                             MLIRContext *context, ZeroCopyRegistry &zeroCopy,
                             std::string &errorMessage) {
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(path, llvm::Align(64), &errorMessage);
  if (!input)
    return {};
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  ParserConfig config(context);
  attachZeroCopyDenseElements(config, zeroCopy);
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}
