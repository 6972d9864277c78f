//===- consumer.cpp - A compiler built against an installed vmpack --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// usage: vmpack-compiler-consumer OUT.vmpk
//
// Parses a module holding an i4 ml_program.global, packs it with the
// installed vmpack pass, writes it with the installed compiler back end, and
// reads the segment back through the installed C runtime. Prints the
// values; exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/ModuleSerializer.h"
#include "vmpack/Transforms/Passes.h"

#include <vmpack/vmpack.h>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include <cstdio>
#include <cstring>

static const char *kModule = R"mlir(
ml_program.global private @weights(dense<[1, -2, 3, -4, 5, -6, 7]> : tensor<7xi4>) : tensor<7xi4>
)mlir";

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: vmpack-compiler-consumer OUT.vmpk\n");
    return 2;
  }
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::ml_program::MLProgramDialect,
                  mlir::vmpack_compiler::VMPackDialect>();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::vmpack_compiler::createPackSubByteConstantsPass());
  if (mlir::failed(pm.run(*module)))
    return 1;

  mlir::vmpack_compiler::SerializeOptions options;
  options.moduleName = "consumer";
  options.producer = "vmpack-compiler-consumer";
  mlir::DefaultTimingManager timing;
  mlir::TimingScope scope = timing.getRootScope();
  if (mlir::failed(mlir::vmpack_compiler::serializeModule(*module, argv[1],
                                                          options, scope)))
    return 1;

  vmpack_module_t *archive = nullptr;
  size_t index = 0;
  int8_t values[7];
  vmpack_status_t status = vmpack_module_open_file(argv[1], &archive);
  if (status == VMPACK_OK)
    status = vmpack_module_verify(archive, 0);
  if (status == VMPACK_OK)
    status = vmpack_module_find_segment(archive, "weights", 7, &index);
  if (status == VMPACK_OK)
    status = vmpack_segment_unpack(archive, index, 0, 7, VMPACK_DTYPE_INT8,
                                   values, sizeof values);
  if (status != VMPACK_OK) {
    std::fprintf(stderr, "vmpack-compiler-consumer: %s\n", vmpack_last_error());
    vmpack_module_close(archive);
    return 1;
  }
  for (int8_t v : values)
    std::printf("%d ", v);
  std::printf("\n");
  vmpack_module_close(archive);
  return 0;
}
