//===- TypeMappingTest.cpp - MLIR types to the element model
//---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// getPackedElement (the dialect) maps MLIR's type objects to vmpack's element
// model; getPackElementType (Target) adds quantized types. Both are checked
// here against the slow obvious reference: MLIR's own spelling of the type,
// read back by vmpack::parseElementType.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/TypeMapping.h"
#include "vmpack/Dialect/VMPack/PackedLayout.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::vmpack_compiler;

namespace {

std::string spell(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

TEST(TypeMapping, EveryBuiltinElementTypeAgreesWithItsSpelling) {
  MLIRContext context;
  const char *types[] = {"i1",
                         "i2",
                         "i3",
                         "i4",
                         "i7",
                         "i8",
                         "i12",
                         "i17",
                         "i64",
                         "i65",
                         "i1000",
                         "si1",
                         "si4",
                         "si32",
                         "ui1",
                         "ui4",
                         "ui7",
                         "ui64",
                         "index",
                         "f4E2M1FN",
                         "f6E2M3FN",
                         "f6E3M2FN",
                         "f8E5M2",
                         "f8E4M3",
                         "f8E4M3FN",
                         "f8E5M2FNUZ",
                         "f8E4M3FNUZ",
                         "f8E4M3B11FNUZ",
                         "f8E3M4",
                         "f8E8M0FNU",
                         "bf16",
                         "f16",
                         "tf32",
                         "f32",
                         "f64",
                         "f80",
                         "f128",
                         "complex<i4>",
                         "complex<f16>",
                         "complex<si3>",
                         "complex<f8E4M3FN>"};
  for (const char *text : types) {
    Type type = parseType(text, &context);
    ASSERT_TRUE(type) << text;
    std::optional<vmpack::ElementType> expected =
        vmpack::parseElementType(spell(type));
    ASSERT_TRUE(expected.has_value()) << text;
    std::optional<vmpack::ElementType> got = getPackedElement(type);
    ASSERT_TRUE(got.has_value()) << text;
    EXPECT_TRUE(*got == *expected) << text << ": " << vmpack::toString(*got)
                                   << " vs " << vmpack::toString(*expected);
    std::optional<vmpack::ElementType> viaTarget = getPackElementType(type);
    ASSERT_TRUE(viaTarget.has_value()) << text;
    EXPECT_TRUE(*viaTarget == *expected) << text;
  }
}

TEST(TypeMapping, OtherTypesHaveNoModel) {
  MLIRContext context;
  context.loadDialect<quant::QuantDialect>();
  for (const char *text : {"none", "tensor<4xi4>", "vector<4xi4>",
                           "!quant.uniform<i4:f32, 5.000000e-01:-1>"}) {
    Type type = parseType(text, &context);
    ASSERT_TRUE(type) << text;
    EXPECT_FALSE(getPackedElement(type).has_value()) << text;
  }
}

TEST(TypeMapping, QuantizedTypesUseTheirStorageSignedness) {
  MLIRContext context;
  context.loadDialect<quant::QuantDialect>();
  struct Case {
    const char *type;
    const char *element;
  } cases[] = {{"!quant.uniform<i4:f32, 5.000000e-01:-1>", "si4"},
               {"!quant.uniform<u4:f32, 2.500000e-01:8>", "ui4"},
               {"!quant.uniform<i8:f32, 1.0>", "si8"}};
  for (const Case &c : cases) {
    Type type = parseType(c.type, &context);
    ASSERT_TRUE(type) << c.type;
    std::optional<vmpack::ElementType> got = getPackElementType(type);
    ASSERT_TRUE(got.has_value()) << c.type;
    EXPECT_EQ(vmpack::toString(*got), c.element) << c.type;
  }
}

} // namespace
