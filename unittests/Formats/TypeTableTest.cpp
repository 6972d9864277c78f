//===- TypeTableTest.cpp - The interop type table
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//--------------------------===//

#include "vmpack/Formats/TypeTable.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

TEST(TypeTable, EveryCanonicalSafetensorsDtypeRoundTrips) {
  std::set<std::string> seen;
  for (const InteropType &row : interopTypes()) {
    if (!row.safetensorsDtype)
      continue;
    // Writing any row's type gives its dtype.
    EXPECT_STREQ(toSafetensorsDtype(row.type), row.safetensorsDtype);
    if (!row.canonical)
      continue;
    EXPECT_TRUE(seen.insert(row.safetensorsDtype).second)
        << "two canonical rows for " << row.safetensorsDtype;
    std::optional<ElementType> back =
        fromSafetensorsDtype(row.safetensorsDtype);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(toString(*back), toString(row.type));
  }
  // Every dtype of safetensors' `enum Dtype` (tensor.rs) is in the table.
  for (const char *dtype :
       {"BOOL",    "F4",      "F6_E2M3", "F6_E3M2",     "U8",          "I8",
        "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16",
        "U16",     "F16",     "BF16",    "I32",         "U32",         "F32",
        "C64",     "F64",     "I64",     "U64"})
    EXPECT_TRUE(seen.count(dtype)) << dtype;
  EXPECT_FALSE(fromSafetensorsDtype("Q4").has_value());
}

TEST(TypeTable, DtypeBitsMatchTheReference) {
  // safetensors `Dtype::bitsize`.
  EXPECT_EQ(safetensorsDtypeBits("F4"), 4u);
  EXPECT_EQ(safetensorsDtypeBits("F6_E2M3"), 6u);
  EXPECT_EQ(safetensorsDtypeBits("BOOL"), 8u);
  EXPECT_EQ(safetensorsDtypeBits("BF16"), 16u);
  EXPECT_EQ(safetensorsDtypeBits("C64"), 64u);
  EXPECT_EQ(safetensorsDtypeBits("F64"), 64u);
}

TEST(TypeTable, EveryPlainGgmlTypeRoundTrips) {
  std::set<uint32_t> seen;
  for (const InteropType &row : interopTypes()) {
    if (row.ggmlType < 0)
      continue;
    EXPECT_EQ(toGgmlType(row.type), uint32_t(row.ggmlType));
    const GgmlTypeTraits *traits = ggmlTypeTraits(uint32_t(row.ggmlType));
    ASSERT_NE(traits, nullptr);
    EXPECT_EQ(traits->blockSize, 1u);
    EXPECT_EQ(traits->typeSize * 8,
              row.type.scalarBits() * row.type.scalarsPerElement());
    if (row.canonical) {
      seen.insert(uint32_t(row.ggmlType));
      EXPECT_EQ(toString(*fromGgmlType(uint32_t(row.ggmlType))),
                toString(row.type));
    }
  }
  // ggml.h: F32 0, F16 1, I8 24, I16 25, I32 26, I64 27, F64 28, BF16 30.
  EXPECT_EQ(seen, (std::set<uint32_t>{0, 1, 24, 25, 26, 27, 28, 30}));
}

TEST(TypeTable, GgmlBlockGeometry) {
  // Spot checks against ggml-common.h's static_asserts.
  EXPECT_EQ(ggmlTypeTraits(2)->typeSize, 18u);   // Q4_0: half + 16
  EXPECT_EQ(ggmlTypeTraits(8)->typeSize, 34u);   // Q8_0: half + 32
  EXPECT_EQ(ggmlTypeTraits(12)->typeSize, 144u); // Q4_K
  EXPECT_EQ(ggmlTypeTraits(14)->blockSize, 256u);
  EXPECT_EQ(ggmlTypeTraits(39)->typeSize, 17u); // MXFP4
  for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u, 1000u})
    EXPECT_EQ(ggmlTypeTraits(removed), nullptr) << removed;
  uint32_t last = 0;
  for (const GgmlTypeTraits &t : ggmlTypes()) {
    EXPECT_TRUE(t.type == 0 || t.type > last) << "ascending";
    last = t.type;
    EXPECT_EQ(ggmlTypeTraits(t.type), &t);
    EXPECT_GT(t.blockSize, 0u);
    EXPECT_GT(t.typeSize, 0u);
  }
}

// onnx.proto's TensorProto.DataType, IR version 12, by value.
const std::map<int32_t, std::string> &onnxTypeNames() {
  static const std::map<int32_t, std::string> names = {
      {1, "FLOAT"},         {2, "UINT8"},
      {3, "INT8"},          {4, "UINT16"},
      {5, "INT16"},         {6, "INT32"},
      {7, "INT64"},         {8, "STRING"},
      {9, "BOOL"},          {10, "FLOAT16"},
      {11, "DOUBLE"},       {12, "UINT32"},
      {13, "UINT64"},       {14, "COMPLEX64"},
      {15, "COMPLEX128"},   {16, "BFLOAT16"},
      {17, "FLOAT8E4M3FN"}, {18, "FLOAT8E4M3FNUZ"},
      {19, "FLOAT8E5M2"},   {20, "FLOAT8E5M2FNUZ"},
      {21, "UINT4"},        {22, "INT4"},
      {23, "FLOAT4E2M1"},   {24, "FLOAT8E8M0"},
      {25, "UINT2"},        {26, "INT2"}};
  return names;
}

TEST(TypeTable, EveryOnnxTypeButStringRoundTrips) {
  std::set<int32_t> seen;
  for (const InteropType &row : interopTypes()) {
    if (row.onnxType < 0)
      continue;
    EXPECT_EQ(toOnnxType(row.type), row.onnxType) << toString(row.type);
    if (!row.canonical)
      continue;
    EXPECT_TRUE(seen.insert(row.onnxType).second) << row.onnxType;
    EXPECT_EQ(toString(*fromOnnxType(row.onnxType)), toString(row.type));
  }
  // Every fixed-width DataType has a canonical row; STRING and UNDEFINED
  // have none.
  for (const auto &[value, name] : onnxTypeNames())
    EXPECT_EQ(seen.count(value), value == 8 ? 0u : 1u) << name;
  EXPECT_FALSE(fromOnnxType(0).has_value());
  EXPECT_FALSE(fromOnnxType(27).has_value());
  // The widths ONNX gives them.
  EXPECT_EQ(fromOnnxType(22)->scalarBits(), 4u);
  EXPECT_EQ(fromOnnxType(26)->scalarBits(), 2u);
  EXPECT_EQ(fromOnnxType(23)->scalarBits(), 4u);
  EXPECT_EQ(fromOnnxType(15)->scalarBits() *
                fromOnnxType(15)->scalarsPerElement(),
            128u);
}

TEST(TypeTable, Encodings) {
  EXPECT_EQ(interopEncoding(*parseElementType("i1")), Encoding::Byte);
  EXPECT_EQ(interopEncoding(*parseElementType("f4E2M1FN")), Encoding::Packed);
  EXPECT_EQ(interopEncoding(*parseElementType("i4")), Encoding::Packed);
  EXPECT_EQ(interopEncoding(*parseElementType("bf16")), Encoding::Byte);
}

} // namespace

namespace {

// docs/interop.md lists the table; every row of the code must appear there
// exactly, and the page must list no other row.
TEST(TypeTable, DocumentationListsEveryRow) {
  std::ifstream in(std::string(VMPACK_SOURCE_DIR) + "/docs/interop.md");
  ASSERT_TRUE(in.good());
  std::set<std::string> documented;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| `", 0) == 0)
      documented.insert(line);
  std::set<std::string> expected;
  for (const InteropType &row : interopTypes()) {
    std::string ggml = "—";
    if (row.ggmlType >= 0)
      ggml = std::to_string(row.ggmlType) + " (" +
             ggmlTypeTraits(uint32_t(row.ggmlType))->name + ")";
    std::string onnx = "—";
    if (row.onnxType >= 0)
      onnx = std::to_string(row.onnxType) + " (" +
             onnxTypeNames().at(row.onnxType) + ")";
    expected.insert("| `" + toString(row.type) + "` | `" +
                    (row.safetensorsDtype ? row.safetensorsDtype : "—") +
                    "` | " + ggml + " | " + onnx + " | " +
                    (row.canonical ? "read and write" : "write (alias)") +
                    " | " + encodingName(interopEncoding(row.type)) + " |");
  }
  EXPECT_EQ(documented, expected);
}

} // namespace
