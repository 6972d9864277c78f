//===- ConstantCollectorTest.cpp ------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/ConstantCollector.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using vmpack::Encoding;

namespace {

class ConstantCollectorTest : public ::testing::Test {
protected:
  ConstantCollectorTest() {
    context.allowUnregisteredDialects();
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        ml_program::MLProgramDialect, memref::MemRefDialect,
                        mlir::vmpack_compiler::VMPackDialect>();
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
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
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
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
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
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants))
      << (diagnostics.empty() ? "" : diagnostics[0]);
  ASSERT_EQ(constants->size(), 2u);
  EXPECT_EQ((*constants)[0].origin,
            mlir::vmpack_compiler::ConstantOrigin::DenseResource);
  EXPECT_EQ((*constants)[0].sourceEncoding, Encoding::Byte);
  EXPECT_EQ((*constants)[0].resourceKey, "blob");
  EXPECT_EQ((*constants)[0].resourceAlignment, 4u);
  EXPECT_EQ((*constants)[1].origin,
            mlir::vmpack_compiler::ConstantOrigin::PackedResource);
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
  EXPECT_TRUE(failed(mlir::vmpack_compiler::collectConstants(*module)));
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
  EXPECT_TRUE(failed(mlir::vmpack_compiler::collectConstants(*module)));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("has no data"), std::string::npos)
      << diagnostics[0];
}

TEST_F(ConstantCollectorTest, FindsConstantsOfUnregisteredOpsAndNames) {
  auto module = parse(R"mlir(
    "util.global"() <{initial_value = dense<[1, 2, 3]> : tensor<3xi4>, sym_name = "w", type = tensor<3xi4>}> : () -> ()
    "util.global"() <{initial_value = dense<1> : tensor<2xi8>, sym_name = "two", type = tensor<2xi8>}> {value = dense<[1, 0]> : tensor<2xi1>} : () -> ()
    "util.global"() <{initial_value = #util.byte_pattern<1> : tensor<2xi8>, sym_name = "opaque", type = tensor<2xi8>}> : () -> ()
    func.func @f() {
      "flow.tensor.constant"() <{value = dense<[1, 2]> : tensor<2xi4>}> : () -> tensor<2xi4>
      "foo.nested"() {a = [dense<1> : tensor<2xi8>, {k = dense<[1, 2]> : tensor<2xi3>, s = "text"}], z = dense<["a", "b"]> : tensor<2x!foo.str>} : () -> ()
      "foo.props"() <[dense<[5]> : tensor<1xi16>]> : () -> ()
      "foo.empty"() {v = dense<2> : tensor<2x0x3xi4>} : () -> ()
      return
    }
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  std::vector<std::string> names;
  for (const auto &c : *constants)
    names.push_back(c.segmentName);
  // Symbols give their names; several constants in one op add their
  // attribute paths; nested ones their indexes and keys; non-dense
  // attributes, strings and zero-element splats are not constants.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "w", "two.value", "two.initial_value", "f.cst0",
                       "f.cst1.a.0", "f.cst1.a.1.k", "f.cst2"}));
  EXPECT_TRUE((*constants)[0].site.inProperties);
  EXPECT_FALSE((*constants)[1].site.inProperties);
  EXPECT_EQ((*constants)[5].site.path, (SmallVector<unsigned, 2>{1, 0}));
  // f.cst2 is the properties array's element 0.
  EXPECT_TRUE((*constants)[6].site.inProperties);
  EXPECT_EQ((*constants)[6].site.path, (SmallVector<unsigned, 2>{0}));
  EXPECT_EQ((*constants)[6].elementType.scalarBits(), 16u);
}

TEST_F(ConstantCollectorTest, SitesAreReplacedWhereTheyAre) {
  auto module = parse(R"mlir(
    "util.global"() <{initial_value = dense<[1, 2, 3]> : tensor<3xi4>, sym_name = "w", type = tensor<3xi4>}> : () -> ()
    "foo.nested"() {a = [dense<1> : tensor<2xi8>, {k = dense<[1, 2]> : tensor<2xi3>}]} : () -> ()
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  ASSERT_EQ(constants->size(), 3u);
  Builder builder(&context);
  for (const auto &c : *constants)
    mlir::vmpack_compiler::setSiteValue(c.op, c.site,
                                        builder.getStringAttr(c.segmentName));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("initial_value = \"w\""), std::string::npos) << text;
  EXPECT_NE(text.find("a = [\"module.cst0.a.0\", {k = \"module.cst0.a.1.k\"}]"),
            std::string::npos)
      << text;
  // The rest of the op is untouched.
  EXPECT_NE(text.find("sym_name = \"w\", type = tensor<3xi4>"),
            std::string::npos)
      << text;
}

TEST_F(ConstantCollectorTest, SymbolNamesWinOverDerivedNames) {
  auto module = parse(R"mlir(
    func.func @f() {
      "foo.c"() {value = dense<[1, 2]> : tensor<2xi4>} : () -> ()
      return
    }
    "util.global"() <{initial_value = dense<[1, 2]> : tensor<2xi4>, sym_name = "f.cst0", type = tensor<2xi4>}> : () -> ()
    module @inner {
      "util.global"() <{initial_value = dense<[3, 4]> : tensor<2xi4>, sym_name = "f.cst0", type = tensor<2xi4>}> : () -> ()
    }
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  ASSERT_EQ(constants->size(), 3u);
  EXPECT_EQ((*constants)[0].segmentName, "f.cst0_1");
  EXPECT_EQ((*constants)[1].segmentName, "f.cst0");
  // The same symbol twice (in different symbol tables, say): the second
  // is made unique.
  EXPECT_EQ((*constants)[2].segmentName, "f.cst0_2");
}

TEST_F(ConstantCollectorTest, QuantizedTypesAreTheirStorageIntegers) {
  context.loadDialect<quant::QuantDialect>();
  auto module = parse(R"mlir(
    "foo.c"() {value = dense<"0x010F"> : tensor<2x!quant.uniform<i4:f32, 5.000000e-01:-1>>} : () -> ()
    "foo.d"() {value = dense_resource<q> : tensor<3x!quant.uniform<u4:f32, 2.500000e-01:8>>} : () -> ()
    "foo.e"() {value = dense<"0x07"> : tensor<4x!quant.uniform<i8:f32, 1.0>>} : () -> ()
    {-# dialect_resources: { builtin: { q: "0x040000000F0008" } } #-}
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  ASSERT_EQ(constants->size(), 3u);
  EXPECT_EQ(vmpack::toString((*constants)[0].elementType), "si4");
  EXPECT_EQ((*constants)[0].data.size(), 2u);
  EXPECT_EQ((*constants)[0].data[1], char(0x0F));
  EXPECT_EQ(vmpack::toString((*constants)[1].elementType), "ui4");
  EXPECT_EQ((*constants)[1].origin,
            mlir::vmpack_compiler::ConstantOrigin::DenseResource);
  EXPECT_TRUE((*constants)[2].isSplat);
  EXPECT_EQ(vmpack::toString((*constants)[2].elementType), "si8");
}

TEST_F(ConstantCollectorTest, WhatCannotBeStoredStaysInTheProgram) {
  // Any op keeps a value vmpack has no layout for; for the ops vmpack
  // knows, a warning says so.
  auto module = parse(R"mlir(
    "foo.sparse"() {v = sparse<[[0]], [1]> : tensor<4xi4>} : () -> ()
    ml_program.global private @s(sparse<[[0]], [1]> : tensor<4xi4>) : tensor<4xi4>
    ml_program.global private @w(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  auto constants = mlir::vmpack_compiler::collectConstants(*module);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  ASSERT_EQ(constants->size(), 1u);
  EXPECT_EQ((*constants)[0].segmentName, "w");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("'builtin.sparse_elements' attribute) has no "
                                "vmpack layout and stays in the program"),
            std::string::npos)
      << diagnostics[0];
}

TEST_F(ConstantCollectorTest, ElidedResourcesBecomeZerosOnRequest) {
  auto module = parse(R"mlir(
    "foo.c"() {value = dense_resource<__elided__> : tensor<5xi4>} : () -> ()
  )mlir");
  ASSERT_TRUE(module) << diagnosticText();
  mlir::vmpack_compiler::CollectOptions options;
  options.zeroFillElided = true;
  auto constants =
      mlir::vmpack_compiler::collectConstants(*module, nullptr, options);
  ASSERT_TRUE(succeeded(constants)) << diagnosticText();
  ASSERT_EQ(constants->size(), 1u);
  EXPECT_TRUE((*constants)[0].isZeroFill);
  EXPECT_EQ((*constants)[0].numScalars, 5u);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].find("storing 'tensor<5xi4>' as zeros"),
            std::string::npos)
      << diagnostics[0];
}

} // namespace
