//===- ForeignRuntimeTest.cpp - safetensors and GGUF through the C API ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The C API opens safetensors and GGUF files as it opens module archives:
// files written by the formats layer's writers, holding one pattern tensor
// of every type (SampleTensors.h), a ggml block tensor and metadata of
// every GGUF value type, are opened by mapping, by reading, into a caller's
// buffer and from unaligned memory; their segments, values, foreign types
// and metadata are checked against the pattern and the values written.
// Every single-byte change and truncation of small files is an error or a
// file whose every segment reads within its bounds (this test also runs
// under ASan/UBSan).
//
//===----------------------------------------------------------------------===//

#include "SampleTensors.h"
#include "TestFiles.h"

#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/vmpack.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>

using namespace vmpack;
using namespace vmpack::formats;
using namespace vmpack::formats::testing;
using namespace vmpack::archive::testing;

namespace {

/// A Q4_0 tensor (ggml type 2: 32 elements in 18 bytes) of shape [2, 64]
/// with random bytes.
OwnedTensor q4Tensor() {
  OwnedTensor t;
  t.source.info.name = "blk.0.q4";
  t.source.info.elementType = opaqueByteType();
  t.source.info.shape = {2, 64};
  t.source.info.encoding = Encoding::Byte;
  t.source.info.ggmlBlockType = 2;
  t.bytes = std::make_shared<std::vector<uint8_t>>(2 * 2 * 18);
  std::mt19937 rng(7);
  for (uint8_t &b : *t.bytes)
    b = uint8_t(rng());
  t.source.info.length = t.bytes->size();
  t.source.data = t.bytes->data();
  return t;
}

GgufValue scalarValue(GgufType type, uint64_t bits) {
  GgufValue v;
  v.type = type;
  v.scalars = {bits};
  return v;
}

/// Every GGUF value type, with the text and type name the C API gives.
struct ExpectedEntry {
  std::string key, value, type;
};

GgufMetadata ggufMetadata(std::vector<ExpectedEntry> &expected) {
  GgufMetadata md;
  auto add = [&](const std::string &key, GgufValue v, const std::string &text,
                 const std::string &type) {
    md.push_back({key, std::move(v)});
    expected.push_back({key, text, type});
  };
  add("general.name", GgufValue::string("tiny \"model\""), "tiny \"model\"",
      "string");
  // As quantizing tools write it (the GGUF writer adds no key itself).
  add("general.quantization_version", GgufValue::uint32(2), "2", "uint32");
  add("v.u8", scalarValue(GgufType::UInt8, 0xfe), "254", "uint8");
  add("v.i8", scalarValue(GgufType::Int8, 0x80), "-128", "int8");
  add("v.u16", scalarValue(GgufType::UInt16, 0xbeef), "48879", "uint16");
  add("v.i16", scalarValue(GgufType::Int16, 0x8001), "-32767", "int16");
  add("v.u32", scalarValue(GgufType::UInt32, 0xdeadbeef), "3735928559",
      "uint32");
  add("v.i32", scalarValue(GgufType::Int32, 0xfffffffb), "-5", "int32");
  // 0.1f: the shortest decimal that reads back as the same float.
  uint32_t tenth;
  float f = 0.1f;
  std::memcpy(&tenth, &f, 4);
  add("v.f32", scalarValue(GgufType::Float32, tenth), "0.1", "float32");
  add("v.bool", scalarValue(GgufType::Bool, 1), "true", "bool");
  add("v.u64", scalarValue(GgufType::UInt64, 0xfedcba9876543210),
      "18364758544493064720", "uint64");
  add("v.i64", scalarValue(GgufType::Int64, 0x8000000000000000),
      "-9223372036854775808", "int64");
  // A NaN: a JSON string of its bits.
  add("v.f64", scalarValue(GgufType::Float64, 0x7ff8000000000000),
      "\"0x7ff8000000000000\"", "float64");
  GgufValue strings;
  strings.type = GgufType::Array;
  strings.elementType = GgufType::String;
  strings.strings = {"a", "q\"b\\", std::string("\n\x01", 2)};
  add("v.strings", strings, "[\"a\",\"q\\\"b\\\\\",\"\\n\\u0001\"]",
      "array<string>");
  // Bytes that are not UTF-8 read as U+FFFD (vmpack-convert refuses them).
  GgufValue bytes;
  bytes.type = GgufType::Array;
  bytes.elementType = GgufType::String;
  bytes.strings = {"a\xff"};
  add("v.bytes", bytes, "[\"a\xef\xbf\xbd\"]", "array<string>");
  GgufValue ints;
  ints.type = GgufType::Array;
  ints.elementType = GgufType::Int16;
  ints.scalars = {1, 0xffff, 7};
  add("v.ints", ints, "[1,-1,7]", "array<int16>");
  GgufValue floats;
  floats.type = GgufType::Array;
  floats.elementType = GgufType::Float64;
  floats.scalars = {0x3ff8000000000000, 0xfff0000000000000};
  add("v.floats", floats, "[1.5,\"0xfff0000000000000\"]", "array<float64>");
  return md;
}

/// The sign-aware value scalar k of a sample integer tensor unpacks to.
int64_t expectedInt(const ElementType &type, uint64_t k, uint64_t t) {
  uint32_t w = type.scalar.width;
  uint64_t v = patternValue(w, k, t);
  if (type.scalar.isSignExtended() && w < 64 && (v >> (w - 1)) & 1)
    return int64_t(v | ~((uint64_t(1) << w) - 1));
  return int64_t(v);
}

class ForeignFiles : public ::testing::Test {
protected:
  void SetUp() override {
    tensors = sampleTensors();
    safetensorsPath = dir.path("m.safetensors");
    ASSERT_TRUE(writeSafetensors(safetensorsPath, sources(tensors),
                                 {{"format", "pt"}, {"note", "x\ty"}})
                    .isOk());
    std::vector<OwnedTensor> withBlocks = tensors;
    withBlocks.push_back(q4Tensor());
    ggufPath = dir.path("m.gguf");
    Status st =
        writeGguf(ggufPath, sources(withBlocks), ggufMetadata(ggufExpected));
    ASSERT_TRUE(st.isOk()) << st.message();
  }

  /// Checks everything the C API says about a module opened from the
  /// sample file of `container`.
  void checkModule(const vmpack_module_t *m, vmpack_container_t container) {
    ASSERT_EQ(vmpack_module_container(m), container);
    bool gguf = container == VMPACK_CONTAINER_GGUF;
    size_t n = tensors.size() + (gguf ? 1 : 0);
    ASSERT_EQ(vmpack_module_segment_count(m), n);
    EXPECT_STREQ(vmpack_module_name(m), "");
    EXPECT_EQ(vmpack_module_format_version(m), gguf ? 3u : 0u);
    const void *program;
    uint64_t programLength;
    EXPECT_EQ(vmpack_module_program(m, &program, &programLength),
              VMPACK_ERROR_UNSUPPORTED);
    EXPECT_EQ(vmpack_module_verify(m, 1), VMPACK_OK);
    for (size_t t = 0; t < tensors.size(); ++t) {
      SCOPED_TRACE(tensors[t].source.info.name);
      const TensorInfo &want = tensors[t].source.info;
      size_t index;
      ASSERT_EQ(vmpack_module_find_segment(m, want.name.data(),
                                           want.name.size(), &index),
                VMPACK_OK);
      vmpack_segment_info_t info;
      ASSERT_EQ(vmpack_module_segment_info(m, index, &info), VMPACK_OK);
      EXPECT_EQ(std::string(info.name, info.name_length), want.name);
      EXPECT_EQ(info.kind, VMPACK_SEGMENT_TYPED);
      // The logical type comes back, also where the file stores U8/I8.
      EXPECT_EQ(std::string(info.mlir_type),
                tensorTypeString(want.elementType, want.shape));
      EXPECT_EQ(std::string(info.element_type), toString(want.elementType));
      EXPECT_EQ(std::vector<int64_t>(info.shape, info.shape + info.rank),
                want.shape);
      EXPECT_EQ(info.checksum, 0u);
      // Whole-byte types the format has a dtype for are `byte`; the others
      // (sub-byte, and types stored as U8/I8 bytes with a vmpack.type
      // record) `packed`, which is the same layout for whole bytes.
      if (interopEncoding(want.elementType) == Encoding::Packed)
        EXPECT_EQ(info.encoding, VMPACK_ENCODING_PACKED);
      else if (toSafetensorsDtype(want.elementType) &&
               (!gguf || toGgmlType(want.elementType)))
        EXPECT_EQ(info.encoding, VMPACK_ENCODING_BYTE);
      EXPECT_EQ(info.offset % info.alignment, 0u);
      EXPECT_EQ(vmpack_segment_verify(m, index), VMPACK_OK);
      vmpack_foreign_info_t foreign;
      ASSERT_EQ(vmpack_segment_foreign_info(m, index, &foreign), VMPACK_OK);
      EXPECT_STREQ(foreign.type, "");
      EXPECT_EQ(foreign.rank, 0u);
      // The stored bytes, in place, hold the pattern.
      TensorInfo stored = want;
      stored.offset = 0;
      stored.encoding = vmpack::Encoding(info.encoding);
      EXPECT_EQ(toByteEncoding(stored, static_cast<const uint8_t *>(info.data)),
                *tensors[t].bytes);
      // Integers unpack sign-aware to the pattern.
      const ElementType &type = want.elementType;
      uint64_t scalars = info.element_count * type.scalarsPerElement();
      if (type.scalar.isInteger() && type.scalar.width <= 32) {
        std::vector<int32_t> got(scalars);
        ASSERT_EQ(vmpack_segment_unpack(m, index, 0, info.element_count,
                                        VMPACK_DTYPE_INT32, got.data(),
                                        got.size() * 4),
                  VMPACK_OK)
            << vmpack_last_error();
        for (uint64_t k = 0; k < scalars; ++k)
          ASSERT_EQ(got[k], int32_t(expectedInt(type, k, t))) << k;
      }
      // f32 decodes to its own bits.
      if (type == ElementType{ScalarType::floatKind(ScalarKind::F32)}) {
        std::vector<float> got(scalars);
        ASSERT_EQ(vmpack_segment_unpack(m, index, 0, info.element_count,
                                        VMPACK_DTYPE_FLOAT32, got.data(),
                                        got.size() * 4),
                  VMPACK_OK);
        EXPECT_EQ(
            std::memcmp(got.data(), tensors[t].bytes->data(), got.size() * 4),
            0);
      }
    }
    if (gguf)
      checkBlockTensor(m);
    checkMetadata(m, gguf);
  }

  void checkBlockTensor(const vmpack_module_t *m) {
    OwnedTensor q = q4Tensor();
    size_t index;
    ASSERT_EQ(vmpack_module_find_segment(m, "blk.0.q4", 8, &index), VMPACK_OK);
    vmpack_segment_info_t info;
    ASSERT_EQ(vmpack_module_segment_info(m, index, &info), VMPACK_OK);
    EXPECT_STREQ(info.element_type, "ui8");
    EXPECT_STREQ(info.mlir_type, "tensor<72xui8>");
    EXPECT_EQ(info.encoding, VMPACK_ENCODING_BYTE);
    ASSERT_EQ(info.length, 72u);
    EXPECT_EQ(std::memcmp(info.data, q.bytes->data(), 72), 0);
    EXPECT_EQ(info.alignment, kGgufDefaultAlignment);
    vmpack_foreign_info_t foreign;
    ASSERT_EQ(vmpack_segment_foreign_info(m, index, &foreign), VMPACK_OK);
    EXPECT_STREQ(foreign.type, "ggml.Q4_0");
    EXPECT_EQ(foreign.type_id, 2u);
    EXPECT_EQ(std::vector<int64_t>(foreign.shape, foreign.shape + foreign.rank),
              (std::vector<int64_t>{2, 64}));
    std::vector<int16_t> bytes(72);
    ASSERT_EQ(vmpack_segment_unpack(m, index, 0, 72, VMPACK_DTYPE_INT16,
                                    bytes.data(), 144),
              VMPACK_OK);
    for (size_t k = 0; k < 72; ++k)
      ASSERT_EQ(bytes[k], (*q.bytes)[k]);
  }

  void checkMetadata(const vmpack_module_t *m, bool gguf) {
    std::vector<ExpectedEntry> expected =
        gguf ? ggufExpected
             : std::vector<ExpectedEntry>{{"format", "pt", "string"},
                                          {"note", "x\ty", "string"}};
    ASSERT_EQ(vmpack_module_metadata_count(m), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      vmpack_metadata_entry_t e;
      ASSERT_EQ(vmpack_module_metadata_entry(m, i, &e), VMPACK_OK);
      EXPECT_EQ(std::string(e.key, e.key_length), expected[i].key);
      EXPECT_EQ(std::string(e.value, e.value_length), expected[i].value)
          << expected[i].key;
      EXPECT_EQ(std::string(e.value_type), expected[i].type);
      size_t found;
      ASSERT_EQ(vmpack_module_find_metadata(m, e.key, e.key_length, &found),
                VMPACK_OK);
      EXPECT_EQ(found, i);
      // The logical-type records were applied, not listed.
      EXPECT_NE(std::string(e.key).rfind(kSafetensorsTypeKeyPrefix, 0), 0u);
    }
    vmpack_metadata_entry_t e;
    EXPECT_EQ(vmpack_module_metadata_entry(m, expected.size(), &e),
              VMPACK_ERROR_OUT_OF_RANGE);
    size_t found;
    EXPECT_EQ(vmpack_module_find_metadata(m, "absent", 6, &found),
              VMPACK_ERROR_NOT_FOUND);
  }

  ScratchDir dir;
  std::vector<OwnedTensor> tensors;
  std::string safetensorsPath, ggufPath;
  std::vector<ExpectedEntry> ggufExpected;
};

struct Way {
  const char *name;
  vmpack_load_mode_t mode;
  vmpack_verify_mode_t verify;
  bool callerBuffer;
};
const Way kWays[] = {
    {"mmap", VMPACK_LOAD_MMAP, VMPACK_VERIFY_STRUCTURE, false},
    {"mmap-full", VMPACK_LOAD_MMAP, VMPACK_VERIFY_FULL, false},
    {"read", VMPACK_LOAD_READ, VMPACK_VERIFY_STRUCTURE, false},
    {"read-lazy", VMPACK_LOAD_READ, VMPACK_VERIFY_LAZY, false},
    {"read-into-buffer", VMPACK_LOAD_READ, VMPACK_VERIFY_FULL, true}};

TEST_F(ForeignFiles, EveryLoadModeGivesTheSameSegments) {
  for (auto [path, container] :
       {std::pair(safetensorsPath, VMPACK_CONTAINER_SAFETENSORS),
        std::pair(ggufPath, VMPACK_CONTAINER_GGUF)}) {
    for (const Way &way : kWays) {
      SCOPED_TRACE(path + " " + way.name);
      vmpack_open_options_t o;
      vmpack_open_options_init(&o);
      o.load_mode = way.mode;
      o.verify = way.verify;
      std::vector<uint8_t> storage;
      if (way.callerBuffer) {
        size_t size = readFile(path).size();
        storage.assign(size + 64, 0xAA);
        uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
        o.buffer = storage.data() + (64 - p % 64) % 64;
        o.buffer_size = size;
      }
      vmpack_module_t *m = nullptr;
      ASSERT_EQ(vmpack_module_open_file_with_options(path.c_str(), &o, &m),
                VMPACK_OK)
          << vmpack_last_error();
      EXPECT_EQ(vmpack_module_load_mode(m), way.mode);
      if (way.callerBuffer) {
        vmpack_segment_info_t info;
        ASSERT_EQ(vmpack_module_segment_info(m, 0, &info), VMPACK_OK);
        EXPECT_EQ(static_cast<const uint8_t *>(info.data),
                  static_cast<const uint8_t *>(o.buffer) + info.offset);
      }
      checkModule(m, container);
      vmpack_module_close(m);
    }
  }
}

TEST_F(ForeignFiles, OpensFromUnalignedMemory) {
  for (auto [path, container] :
       {std::pair(safetensorsPath, VMPACK_CONTAINER_SAFETENSORS),
        std::pair(ggufPath, VMPACK_CONTAINER_GGUF)}) {
    SCOPED_TRACE(path);
    std::vector<uint8_t> bytes = readFile(path);
    // One byte past an aligned address: neither format needs alignment.
    AlignedBytes aligned(std::vector<uint8_t>(bytes.size() + 1));
    std::memcpy(aligned.data() + 1, bytes.data(), bytes.size());
    vmpack_module_t *m = nullptr;
    ASSERT_EQ(vmpack_module_open_memory(aligned.data() + 1, bytes.size(), &m),
              VMPACK_OK)
        << vmpack_last_error();
    checkModule(m, container);
    vmpack_module_close(m);
  }
}

TEST_F(ForeignFiles, ForeignVmpkSegmentsAndMetadataReadBackTheSame) {
  // GGUF -> .vmpk as vmpack-convert writes it: a foreign segment and the
  // string metadata.
  std::vector<OwnedTensor> withBlocks = {tensors[2], q4Tensor()};
  std::string path = dir.path("m.vmpk");
  Status st = writeVmpk(path, sources(withBlocks),
                        {{"general.name", "tiny"}, {"z", ""}}, "m", 64);
  ASSERT_TRUE(st.isOk()) << st.message();
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_file(path.c_str(), &m), VMPACK_OK)
      << vmpack_last_error();
  EXPECT_EQ(vmpack_module_verify(m, 1), VMPACK_OK);
  ASSERT_EQ(vmpack_module_metadata_count(m), 2u);
  vmpack_metadata_entry_t e;
  ASSERT_EQ(vmpack_module_metadata_entry(m, 0, &e), VMPACK_OK);
  EXPECT_STREQ(e.key, "general.name");
  EXPECT_STREQ(e.value, "tiny");
  EXPECT_STREQ(e.value_type, "string");
  vmpack_foreign_info_t foreign;
  ASSERT_EQ(vmpack_segment_foreign_info(m, 0, &foreign), VMPACK_OK);
  EXPECT_STREQ(foreign.type, "");
  ASSERT_EQ(vmpack_segment_foreign_info(m, 1, &foreign), VMPACK_OK);
  EXPECT_STREQ(foreign.type, "ggml.Q4_0");
  EXPECT_EQ(foreign.type_id, 2u);
  EXPECT_EQ(std::vector<int64_t>(foreign.shape, foreign.shape + foreign.rank),
            (std::vector<int64_t>{2, 64}));
  EXPECT_EQ(vmpack_segment_foreign_info(m, 2, &foreign),
            VMPACK_ERROR_OUT_OF_RANGE);
  vmpack_module_close(m);
}

TEST_F(ForeignFiles, AnIrpaHasNoMetadataAndNoForeignTypes) {
  std::string path = dir.path("m.irpa");
  ASSERT_TRUE(writeIrpa(path, sources({tensors[2], q4Tensor()})).isOk());
  vmpack_module_t *m = nullptr;
  ASSERT_EQ(vmpack_module_open_file(path.c_str(), &m), VMPACK_OK);
  EXPECT_EQ(vmpack_module_metadata_count(m), 0u);
  vmpack_foreign_info_t foreign;
  ASSERT_EQ(vmpack_segment_foreign_info(m, 1, &foreign), VMPACK_OK);
  EXPECT_STREQ(foreign.type, "");
  vmpack_module_close(m);
}

TEST_F(ForeignFiles, ANamedFileThatIsNotItsFormatGetsThatFormatsError) {
  std::string st = dir.path("bad.safetensors"), gg = dir.path("bad.gguf");
  writeFile(st, {1, 0, 0, 0, 0, 0, 0, 0, '['});
  writeFile(gg, {'G', 'G', 'U', 'X', 3, 0, 0, 0});
  vmpack_module_t *m = nullptr;
  EXPECT_EQ(vmpack_module_open_file(st.c_str(), &m), VMPACK_ERROR_FORMAT);
  EXPECT_NE(std::string(vmpack_last_error()).find("safetensors"),
            std::string::npos)
      << vmpack_last_error();
  EXPECT_NE(std::string(vmpack_last_error()).find(st), std::string::npos);
  EXPECT_EQ(vmpack_module_open_file(gg.c_str(), &m), VMPACK_ERROR_FORMAT);
  EXPECT_NE(std::string(vmpack_last_error()).find("GGUF"), std::string::npos)
      << vmpack_last_error();
  EXPECT_EQ(m, nullptr);
}

TEST_F(ForeignFiles, NullArgumentsAreRejected) {
  vmpack_metadata_entry_t e;
  vmpack_foreign_info_t f;
  size_t index;
  EXPECT_EQ(vmpack_module_metadata_entry(nullptr, 0, &e),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_segment_foreign_info(nullptr, 0, &f),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_module_find_metadata(nullptr, "a", 1, &index),
            VMPACK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vmpack_module_metadata_count(nullptr), 0u);
}

//===----------------------------------------------------------------------===//
// Hostile input
//===----------------------------------------------------------------------===//

/// Opens `bytes` from an exactly sized copy (ASan sees any read past the
/// end); what opens is read in full: every segment's first and last byte,
/// every unpack the type allows, every metadata entry and foreign type.
vmpack_status_t openAndRead(const std::vector<uint8_t> &bytes,
                            std::string &message) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() + !bytes.size()]);
  if (!bytes.empty())
    std::memcpy(copy.get(), bytes.data(), bytes.size());
  vmpack_module_t *m = nullptr;
  vmpack_status_t st = vmpack_module_open_memory(copy.get(), bytes.size(), &m);
  if (st != VMPACK_OK) {
    EXPECT_EQ(m, nullptr);
    message = vmpack_last_error();
    return st;
  }
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < vmpack_module_segment_count(m); ++i) {
    vmpack_segment_info_t info;
    EXPECT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
    const auto *p = static_cast<const uint8_t *>(info.data);
    if (info.length)
      sink = sink ^ p[0] ^ p[info.length - 1];
    vmpack_foreign_info_t foreign;
    EXPECT_EQ(vmpack_segment_foreign_info(m, i, &foreign), VMPACK_OK);
    uint64_t values = info.element_count * (info.is_complex ? 2 : 1);
    std::unique_ptr<float[]> out(new float[values + 1]);
    for (vmpack_dtype_t dtype : {VMPACK_DTYPE_INT32, VMPACK_DTYPE_FLOAT32}) {
      vmpack_status_t u = vmpack_segment_unpack(m, i, 0, info.element_count,
                                                dtype, out.get(), values * 4);
      EXPECT_TRUE(u == VMPACK_OK || u == VMPACK_ERROR_UNSUPPORTED)
          << vmpack_status_name(u);
    }
  }
  for (size_t i = 0; i < vmpack_module_metadata_count(m); ++i) {
    vmpack_metadata_entry_t e;
    EXPECT_EQ(vmpack_module_metadata_entry(m, i, &e), VMPACK_OK);
    if (e.value_length)
      sink = sink ^ uint8_t(e.value[e.value_length - 1]);
  }
  st = vmpack_module_verify(m, 1);
  message = st == VMPACK_OK ? "" : vmpack_last_error();
  vmpack_module_close(m);
  return st;
}

/// Small files of each format: a few tensors, metadata, a block tensor.
std::vector<uint8_t> smallFile(bool gguf) {
  ScratchDir dir;
  std::vector<OwnedTensor> tensors = sampleTensors();
  std::vector<OwnedTensor> few = {tensors[2], tensors[8], tensors[27]};
  std::string path = dir.path(gguf ? "s.gguf" : "s.safetensors");
  if (gguf) {
    few.push_back(q4Tensor());
    GgufMetadata md = {{"general.name", GgufValue::string("s")}};
    GgufValue a;
    a.type = GgufType::Array;
    a.elementType = GgufType::String;
    a.strings = {"x", "yz"};
    md.push_back({"tokens", a});
    EXPECT_TRUE(writeGguf(path, sources(few), md).isOk());
  } else {
    EXPECT_TRUE(writeSafetensors(path, sources(few), {{"k", "v"}}).isOk());
  }
  return readFile(path);
}

/// Where the last tensor's bytes end.
size_t dataEndOf(const std::vector<uint8_t> &bytes) {
  vmpack_module_t *m = nullptr;
  EXPECT_EQ(vmpack_module_open_memory(bytes.data(), bytes.size(), &m),
            VMPACK_OK);
  uint64_t end = 0;
  for (size_t i = 0; m && i < vmpack_module_segment_count(m); ++i) {
    vmpack_segment_info_t info;
    EXPECT_EQ(vmpack_module_segment_info(m, i, &info), VMPACK_OK);
    end = std::max(end, info.offset + info.length);
  }
  vmpack_module_close(m);
  return size_t(end);
}

TEST(HostileForeignFile, EveryByteChangeAndTruncationIsSafe) {
  for (bool gguf : {false, true}) {
    SCOPED_TRACE(gguf ? "gguf" : "safetensors");
    std::vector<uint8_t> good = smallFile(gguf);
    ASSERT_GT(good.size(), 100u);
    std::string message;
    ASSERT_EQ(openAndRead(good, message), VMPACK_OK) << message;
    size_t dataEnd = dataEndOf(good);
    EXPECT_LE(good.size() - dataEnd, gguf ? kGgufDefaultAlignment - 1 : 0u);
    size_t rejected = 0, accepted = 0;
    for (size_t i = 0; i < good.size(); ++i) {
      for (uint8_t delta : {uint8_t(1), uint8_t(0x80), uint8_t(0xFF)}) {
        std::vector<uint8_t> bad = good;
        bad[i] = uint8_t(bad[i] + delta);
        vmpack_status_t st = openAndRead(bad, message);
        // No checksums: damaged data opens; damaged structure must not
        // (a changed GGUF version or byte order is unsupported).
        ASSERT_TRUE(st == VMPACK_OK || st == VMPACK_ERROR_FORMAT ||
                    (gguf && st == VMPACK_ERROR_UNSUPPORTED))
            << "offset " << i << ": " << vmpack_status_name(st);
        if (st != VMPACK_OK)
          ASSERT_FALSE(message.empty()) << "offset " << i;
        ++(st == VMPACK_OK ? accepted : rejected);
      }
    }
    EXPECT_GT(rejected, 0u);
    EXPECT_GT(accepted, 0u);
    for (size_t n = 0; n < good.size(); ++n) {
      std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
      vmpack_status_t st = openAndRead(cut, message);
      // Every tensor's bytes are needed; only GGUF's final padding to its
      // alignment may go.
      if (n < dataEnd) {
        ASSERT_EQ(st, VMPACK_ERROR_FORMAT) << "truncated to " << n;
        ASSERT_FALSE(message.empty());
      } else {
        ASSERT_EQ(st, VMPACK_OK) << "truncated to " << n << ": " << message;
      }
    }
  }
}

} // namespace
