//===- ConstantCollectorTest.cpp ------------------------------------------===//

#include "vmpack/Target/ConstantCollector.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using ::vmpack::Encoding;

namespace {

class ConstantCollectorTest : public ::testing::Test {
protected:
  ConstantCollectorTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        ml_program::MLProgramDialect, memref::MemRefDialect,
                        mlir::vmpack::VMPackDialect>();
    context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
      diagnostics.push_back(diag.str());
      return success();
    });
  }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  std::string diagnosticText() const {
    std::string text;
    for (const std::string &d : diagnostics)
      text += d + "\n";
    return text;
  }

  MLIRContext context;
  std::vector<std::string> diagnostics;
};

TEST_F(ConstantCollectorTest, FindsEveryKindOfConstantInWalkOrder) {
  auto module = parse(R"mlir(
    ml_program.global private @w(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
    memref.global "private" constant @m : memref<2xi8> = dense<[7, 8]>
    ml_program.global private mutable @uninitialized : tensor<2xi4>
    func.func @f() -> (tensor<2xi3>, tensor<4xi1>, i32) {
      %a = arith.constant dense<[1, 2]> : tensor<2xi3>
      %b = arith.constant dense<true> : tensor<4xi1>
      %c = arith.constant 5 : i32
      return %a, %b, %c : tensor<2xi3>, tensor<4xi1>, i32
    }
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants));
  ASSERT_EQ(constants->size(), 4u);
  EXPECT_EQ((*constants)[0].segmentName, "w");
  EXPECT_EQ((*constants)[0].numScalars, 3u);
  EXPECT_EQ((*constants)[0].sourceEncoding, Encoding::Byte);
  EXPECT_EQ((*constants)[0].data.size(), 3u);
  EXPECT_EQ((*constants)[1].segmentName, "m");
  EXPECT_TRUE(isa<MemRefType>((*constants)[1].logicalType));
  EXPECT_EQ((*constants)[2].segmentName, "f.cst0");
  EXPECT_EQ((*constants)[3].segmentName, "f.cst1");
  EXPECT_TRUE((*constants)[3].isSplat);
  EXPECT_EQ((*constants)[3].sourceEncoding, Encoding::Packed);
  EXPECT_EQ((*constants)[3].elementType.scalarBits(), 1u);
}

TEST_F(ConstantCollectorTest, ConstantNamesAvoidGlobalNames) {
  auto module = parse(R"mlir(
    ml_program.global private @"f.cst0"(dense<1> : tensor<2xi4>) : tensor<2xi4>
    func.func @f() -> tensor<2xi3> {
      %a = arith.constant dense<[1, 2]> : tensor<2xi3>
      return %a : tensor<2xi3>
    }
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants));
  ASSERT_EQ(constants->size(), 2u);
  EXPECT_EQ((*constants)[0].segmentName, "f.cst0");
  EXPECT_EQ((*constants)[1].segmentName, "f.cst0_1");
}

TEST_F(ConstantCollectorTest, ResourcesAreByteLayoutUnlessPacked) {
  auto module = parse(R"mlir(
    ml_program.global private @r(dense_resource<blob> : tensor<3xi4>) : tensor<3xi4>
    ml_program.global private @p(dense_resource<packed> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<3xi4>}
    {-# dialect_resources: { builtin: {
      blob: "0x04000000010203",
      packed: "0x040000002103"
    } } #-}
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants))
      << (diagnostics.empty() ? "" : diagnostics[0]);
  ASSERT_EQ(constants->size(), 2u);
  EXPECT_EQ((*constants)[0].origin,
            mlir::vmpack::ConstantOrigin::DenseResource);
  EXPECT_EQ((*constants)[0].sourceEncoding, Encoding::Byte);
  EXPECT_EQ((*constants)[0].resourceKey, "blob");
  EXPECT_EQ((*constants)[0].resourceAlignment, 4u);
  EXPECT_EQ((*constants)[1].origin,
            mlir::vmpack::ConstantOrigin::PackedResource);
  EXPECT_EQ((*constants)[1].sourceEncoding, Encoding::Packed);
  EXPECT_EQ((*constants)[1].numScalars, 3u);
  EXPECT_TRUE(isa<RankedTensorType>((*constants)[1].valueType));
  EXPECT_EQ((*constants)[1].valueType.getNumElements(), 2);
}

TEST_F(ConstantCollectorTest, BlobOfTheWrongSizeIsAnError) {
  auto module = parse(R"mlir(
    ml_program.global private @r(dense_resource<blob> : tensor<4xi4>) : tensor<4xi4>
    {-# dialect_resources: { builtin: { blob: "0x04000000010203" } } #-}
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  EXPECT_TRUE(failed(mlir::vmpack::collectConstants(*module)));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(
      diagnostics[0].find("holds 3 bytes but type 'tensor<4xi4>' needs 4"),
      std::string::npos)
      << diagnostics[0];
}

TEST_F(ConstantCollectorTest, ElidedResourceIsAnError) {
  auto module = parse(R"mlir(
    ml_program.global private @r(dense_resource<__elided__> : tensor<4xi4>) : tensor<4xi4>
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  EXPECT_TRUE(failed(mlir::vmpack::collectConstants(*module)));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("has no data"), std::string::npos)
      << diagnostics[0];
}

} // namespace
