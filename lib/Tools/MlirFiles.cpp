//===- MlirFiles.cpp - MLIR files for the tools layer ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The MLIR part of the tools layer (VmpackToolsMlir): .mlir / .mlirbc
// inputs through the compiler's reader and constant collector (lib/Target),
// outputs through lib/Target/WeightsModule.cpp, and MLIR's version.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Tools/MlirFiles.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/ConstantCollector.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/WeightsModule.h"
#include "vmpack/Target/ZeroCopyBytecode.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"

#include <fcntl.h>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::tools;
using archive::Status;
using archive::StatusOr;

namespace {

/// Everything the tensors point into: the context, the input buffer, the
/// module and its collected constants.
class ParsedMlir : public MlirInput {
public:
  explicit ParsedMlir(mlir::DialectRegistry &registry) : context(registry) {}
  ~ParsedMlir() override {
    if (fd >= 0)
      ::close(fd);
  }
  mlir::MLIRContext context;
  std::shared_ptr<llvm::SourceMgr> sourceMgr =
      std::make_shared<llvm::SourceMgr>();
  mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::SmallVector<mlir::vmpack_compiler::ConstantInfo> constants;
  int fd = -1;
};

class CompilerMlirFiles : public MlirFiles {
public:
  StatusOr<std::unique_ptr<MlirInput>>
  open(const std::string &path) const override {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    registry.insert<mlir::vmpack_compiler::VMPackDialect>();
    auto input = std::make_unique<ParsedMlir>(registry);
    input->context.allowUnregisteredDialects(true);
    input->context.printOpOnDiagnostic(false);
    mlir::vmpack_compiler::InputDiagnosticHandler diagnostics(*input->sourceMgr,
                                                              &input->context);
    std::string error;
    input->module = mlir::vmpack_compiler::parseInputFile(
        path, input->sourceMgr, &input->context, input->zeroCopy, error);
    if (!input->module)
      return Status::formatError(
          "'" + path +
          "': " + (error.empty() ? "not a valid MLIR module" : error));
    mlir::FailureOr<mlir::SmallVector<mlir::vmpack_compiler::ConstantInfo>>
        constants = mlir::vmpack_compiler::collectConstants(*input->module,
                                                            &input->zeroCopy);
    if (mlir::failed(constants))
      return Status::formatError("'" + path +
                                 "': its constants cannot be read");
    input->constants = std::move(*constants);
    const llvm::MemoryBuffer *buffer = input->sourceMgr->getMemoryBuffer(1);
    input->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    mlir::FailureOr<mlir::vmpack_compiler::ModuleTensors> tensors =
        mlir::vmpack_compiler::getModuleTensors(
            *input->module, input->constants, buffer->getBuffer(), input->fd);
    if (mlir::failed(tensors))
      return Status::formatError("'" + path +
                                 "': its constants cannot be read");
    input->tensors = std::move(tensors->tensors);
    input->metadata = std::move(tensors->metadata);
    return std::unique_ptr<MlirInput>(std::move(input));
  }

  Status write(const std::string &path,
               const std::vector<formats::TensorSource> &tensors,
               const formats::StringMetadata &metadata,
               const MlirOutputOptions &options) const override {
    mlir::vmpack_compiler::WeightsModuleOptions o;
    o.bytecode = options.bytecode;
    o.dense = options.dense;
    o.alignment = options.alignment;
    o.moduleName = options.moduleName;
    o.producer = options.producer;
    return mlir::vmpack_compiler::writeWeightsModule(path, tensors, metadata,
                                                     o);
  }
};

} // namespace

const MlirFiles &vmpack::tools::mlirFiles() {
  static const CompilerMlirFiles files;
  return files;
}

const char *vmpack::tools::mlirVersion() { return LLVM_VERSION_STRING; }
