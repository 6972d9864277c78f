//===- DumpMlir.cpp - vmpack-dump --mlir ----------------------------------===//

#include "DumpMlir.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/ModuleRebuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/raw_ostream.h"

int vmpack::dump::printModuleAsMlir(const archive::ArchiveReader &reader) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  registry.insert<mlir::vmpack::VMPackDialect>();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::vmpack::rebuildModule(reader, &context);
  if (!module)
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  llvm::outs().flush();
  return 0;
}
