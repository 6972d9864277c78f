//===- ZeroCopyBytecodeTest.cpp -------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Dense elements in bytecode are handed over as pointers into the input
// buffer: no copy, and the compiler still sees them as dense<...>.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/ZeroCopyBytecode.h"

#include "vmpack/Target/ConstantCollector.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

std::string toBytecode(StringRef text) {
  MLIRContext context;
  context.loadDialect<ml_program::MLProgramDialect>();
  auto module = parseSourceString<ModuleOp>(text, &context);
  EXPECT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  EXPECT_TRUE(succeeded(writeBytecodeToFile(*module, os)));
  return bytes;
}

TEST(ZeroCopyBytecode, LargeDenseElementsPointIntoTheInputBuffer) {
  // 8192 distinct-enough i4 values (one byte each in MLIR storage) and a
  // splat that must stay a DenseElementsAttr.
  std::string hex;
  for (int i = 0; i < 8192; ++i) {
    static const char digits[] = "0123456789ABCDEF";
    hex += '0';
    hex += digits[(i * 7) % 16];
  }
  std::string text =
      "ml_program.global private @big(dense<\"0x" + hex +
      "\"> : tensor<8192xi4>) : tensor<8192xi4>\n"
      "ml_program.global private @splat(dense<3> : tensor<8192xi4>) : "
      "tensor<8192xi4>\n";
  std::string bytecode = toBytecode(text);

  MLIRContext context;
  context.loadDialect<ml_program::MLProgramDialect>();
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytecode, "input");
  const char *begin = buffer->getBufferStart();
  const char *end = buffer->getBufferEnd();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::vmpack_compiler::ZeroCopyRegistry registry;
  ParserConfig config(&context);
  ASSERT_TRUE(
      mlir::vmpack_compiler::attachZeroCopyDenseElements(config, registry));
  auto module = parseSourceFile<ModuleOp>(sourceMgr, config);
  ASSERT_TRUE(module);
  EXPECT_EQ(registry.size(), 1u);

  auto constants = mlir::vmpack_compiler::collectConstants(*module, &registry);
  ASSERT_TRUE(succeeded(constants));
  ASSERT_EQ(constants->size(), 2u);
  const mlir::vmpack_compiler::ConstantInfo &big = (*constants)[0];
  EXPECT_EQ(big.origin, mlir::vmpack_compiler::ConstantOrigin::Dense);
  EXPECT_EQ(big.sourceEncoding, vmpack::Encoding::Byte);
  ASSERT_EQ(big.data.size(), 8192u);
  EXPECT_GE(big.data.data(), begin);
  EXPECT_LE(big.data.data() + big.data.size(), end);
  for (int i = 0; i < 8192; ++i)
    ASSERT_EQ(big.data[i], char((i * 7) % 16)) << i;

  const mlir::vmpack_compiler::ConstantInfo &splat = (*constants)[1];
  EXPECT_TRUE(splat.isSplat);
  EXPECT_EQ(splat.origin, mlir::vmpack_compiler::ConstantOrigin::Dense);
}

} // namespace
