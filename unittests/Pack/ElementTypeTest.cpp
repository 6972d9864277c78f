//===- ElementTypeTest.cpp ------------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Pack/ElementType.h"

#include <gtest/gtest.h>

using namespace vmpack;

namespace {

TEST(ElementType, ParsesAndPrintsMlirSpellings) {
  for (const char *text : {"i1",
                           "i3",
                           "i4",
                           "i17",
                           "i64",
                           "si7",
                           "ui9",
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
                           "complex<f16>",
                           "complex<i3>"}) {
    auto parsed = parseElementType(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(toString(*parsed), text);
  }
}

TEST(ElementType, WidthsOfFloatsAndIndex) {
  EXPECT_EQ(parseElementType("f4E2M1FN")->scalarBits(), 4u);
  EXPECT_EQ(parseElementType("f6E3M2FN")->scalarBits(), 6u);
  EXPECT_EQ(parseElementType("tf32")->scalarBits(), 19u);
  EXPECT_EQ(parseElementType("index")->scalarBits(), 64u);
  EXPECT_EQ(parseElementType("f80")->scalarBits(), 80u);
  EXPECT_EQ(parseElementType("complex<f16>")->scalarsPerElement(), 2u);
  EXPECT_EQ(parseElementType("i16777215")->scalarBits(), 16777215u);
}

TEST(ElementType, RejectsWhatMlirRejects) {
  for (const char *text : {"", "i", "i0", "i01", "i16777216", "u8", "f7",
                           "complex<>", "complex<i4", "si", "x4", "i4 "})
    EXPECT_FALSE(parseElementType(text)) << text;
}

TEST(ElementType, Signedness) {
  EXPECT_TRUE(parseElementType("i4")->scalar.isSignExtended());
  EXPECT_TRUE(parseElementType("si4")->scalar.isSignExtended());
  EXPECT_FALSE(parseElementType("ui4")->scalar.isSignExtended());
  EXPECT_TRUE(parseElementType("f16")->scalar.isFloat());
  EXPECT_FALSE(parseElementType("index")->scalar.isFloat());
}

} // namespace
