//===- OnnxTest.cpp - ONNX models read and written ------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Models are built here byte by byte in protobuf's wire format (field
// numbers from onnx/onnx.proto), so that every case, hostile ones
// included, is exact. Models from the onnx package and ONNX Runtime's
// results are test/Formats/onnx_runtime.sh's.

#include "vmpack/Formats/Onnx.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/Parallel.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::formats;

namespace {

/// A protobuf message under construction.
struct Pb {
  std::string s;
  Pb &raw(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      s.push_back(char(b | (v ? 0x80 : 0)));
    } while (v);
    return *this;
  }
  Pb &varint(uint32_t field, uint64_t v) { return raw(field << 3).raw(v); }
  Pb &bytes(uint32_t field, std::string_view b) {
    raw(field << 3 | 2).raw(b.size());
    s.append(b);
    return *this;
  }
  Pb &msg(uint32_t field, const Pb &m) { return bytes(field, m.s); }
  Pb &packed(uint32_t field, const std::vector<int64_t> &values) {
    Pb p;
    for (int64_t v : values)
      p.raw(uint64_t(v));
    return bytes(field, p.s);
  }
  Pb &fixed32(uint32_t field, uint32_t v) {
    raw(field << 3 | 5);
    for (int i = 0; i < 4; ++i)
      s.push_back(char(v >> (8 * i)));
    return *this;
  }
};

Pb tensorProto(const std::string &name, int32_t type,
               const std::vector<int64_t> &dims) {
  Pb t;
  for (int64_t d : dims)
    t.varint(1, uint64_t(d));
  t.varint(2, uint64_t(type));
  t.bytes(8, name);
  return t;
}

Pb entryProto(const std::string &k, const std::string &v) {
  Pb e;
  e.bytes(1, k).bytes(2, v);
  return e;
}

Pb externalTensor(const std::string &name, int32_t type,
                  const std::vector<int64_t> &dims, const std::string &loc,
                  uint64_t offset, std::optional<uint64_t> length) {
  Pb t = tensorProto(name, type, dims);
  t.msg(13, entryProto("location", loc));
  t.msg(13, entryProto("offset", std::to_string(offset)));
  if (length)
    t.msg(13, entryProto("length", std::to_string(*length)));
  t.varint(14, 1);
  return t;
}

std::string modelOf(const std::vector<Pb> &initializers,
                    const std::vector<Pb> &nodes = {}) {
  Pb g;
  for (const Pb &n : nodes)
    g.msg(1, n);
  g.bytes(2, "g");
  for (const Pb &t : initializers)
    g.msg(5, t);
  Pb m;
  m.varint(1, 10);
  m.msg(7, g);
  return m.s;
}

StatusOr<OnnxModel> parse(const std::string &bytes) {
  return parseOnnx(reinterpret_cast<const uint8_t *>(bytes.data()),
                   bytes.size());
}

/// The bytes of tensor `i` of a parsed model.
std::string bytesOf(const std::string &model, const OnnxTensor &t) {
  if (t.storage == OnnxStorage::Typed)
    return std::string(t.decoded.begin(), t.decoded.end());
  return model.substr(size_t(t.info.offset), size_t(t.info.length));
}

class TempDir {
public:
  TempDir() {
    char tmpl[] = "/tmp/vmpack-onnx-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string &name) const { return path + "/" + name; }
  void write(const std::string &name, const std::string &bytes) const {
    std::ofstream(file(name), std::ios::binary) << bytes;
  }
  std::string path;
};

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string randomBytes(size_t n, std::mt19937_64 &rng) {
  std::string s(n, '\0');
  for (char &c : s)
    c = char(rng());
  return s;
}

TEST(Onnx, RawDataOfEveryTypeIsMappedInPlace) {
  std::mt19937_64 rng(1);
  std::vector<Pb> inits;
  std::vector<std::string> data;
  std::vector<int32_t> types;
  for (const InteropType &row : interopTypes()) {
    if (!row.canonical || row.onnxType < 0)
      continue;
    // Odd element counts: sub-byte tensors end inside a byte.
    std::vector<int64_t> dims{3, 5};
    uint64_t n = *storedSize(row.type, dims, interopEncoding(row.type));
    std::string bytes = randomBytes(size_t(n), rng);
    if (row.type.scalarBits() < 8) // Padding bits are zero.
      bytes.back() = char(uint8_t(bytes.back()) &
                          ((1u << (15 * row.type.scalarBits() % 8)) - 1));
    Pb t = tensorProto("t" + std::to_string(row.onnxType), row.onnxType, dims);
    t.bytes(9, bytes);
    inits.push_back(t);
    data.push_back(bytes);
    types.push_back(row.onnxType);
  }
  ASSERT_EQ(types.size(), 25u); // DataType 1-26 but STRING
  std::string model = modelOf(inits);
  StatusOr<OnnxModel> m = parse(model);
  ASSERT_TRUE(m) << m.status().message();
  ASSERT_EQ(m->tensors.size(), data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const OnnxTensor &t = m->tensors[i];
    EXPECT_EQ(t.storage, OnnxStorage::Raw);
    EXPECT_EQ(t.dataType, types[i]);
    EXPECT_EQ(toString(t.info.elementType), toString(*fromOnnxType(types[i])));
    EXPECT_EQ(t.info.shape, (std::vector<int64_t>{3, 5}));
    EXPECT_EQ(bytesOf(model, t), data[i]) << types[i];
  }
}

TEST(Onnx, TypedFieldsDecodeAsTheSpecPacksThem) {
  std::vector<Pb> inits;
  // float_data, packed and unpacked.
  inits.push_back(tensorProto("f", 1, {2}));
  {
    Pb p;
    p.s = std::string("\x00\x00\xc0\x3f", 4); // 1.5f
    inits.back().bytes(4, p.s);
    inits.back().fixed32(4, 0xc0000000u); // -2.0f, unpacked
  }
  // FLOAT16 and BFLOAT16: one 16-bit pattern per int32.
  inits.push_back(tensorProto("h", 10, {2}).packed(5, {0x3c00, 0xc000}));
  inits.push_back(tensorProto("bf", 16, {1}).packed(5, {0x3f80}));
  // INT8 negative values as sign-extended varints; BOOL; UINT8.
  inits.push_back(tensorProto("i8", 3, {3}).packed(5, {-3, 7, -128}));
  inits.push_back(tensorProto("b", 9, {3}).packed(5, {1, 0, 1}));
  // INT4: two elements per int32, the first in the low nibble: elements
  // 1, -2, 3 are bytes 0xe1, 0x03.
  inits.push_back(tensorProto("i4", 22, {3}).packed(5, {0xe1, 0x03}));
  // UINT2: four per int32: 1, 2, 3, 0, 1 -> 0x39, 0x01.
  inits.push_back(tensorProto("u2", 25, {5}).packed(5, {0x39, 0x01}));
  // INT16, INT32.
  inits.push_back(tensorProto("i16", 5, {2}).packed(5, {-2, 300}));
  inits.push_back(tensorProto("i32", 6, {1}).packed(5, {-5}));
  // int64_data, unpacked; uint64_data for UINT32 and UINT64; double_data.
  inits.push_back(tensorProto("i64", 7, {2})
                      .varint(7, uint64_t(-1))
                      .varint(7, 0x123456789ull));
  inits.push_back(tensorProto("u32", 12, {1}).packed(11, {0xfffffffe}));
  inits.push_back(tensorProto("u64", 13, {1}).packed(11, {-1}));
  {
    Pb d = tensorProto("d", 11, {1});
    double v = 0.25;
    d.bytes(10, std::string(reinterpret_cast<const char *>(&v), 8));
    inits.push_back(d);
  }
  std::string model = modelOf(inits);
  StatusOr<OnnxModel> m = parse(model);
  ASSERT_TRUE(m) << m.status().message();
  std::map<std::string, std::string> got;
  for (const OnnxTensor &t : m->tensors) {
    EXPECT_EQ(t.storage, OnnxStorage::Typed) << t.info.name;
    got[t.info.name] = bytesOf(model, t);
  }
  EXPECT_EQ(got["f"], std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8));
  EXPECT_EQ(got["h"], std::string("\x00\x3c\x00\xc0", 4));
  EXPECT_EQ(got["bf"], std::string("\x80\x3f", 2));
  EXPECT_EQ(got["i8"], std::string("\xfd\x07\x80", 3));
  EXPECT_EQ(got["b"], std::string("\x01\x00\x01", 3));
  EXPECT_EQ(got["i4"], std::string("\xe1\x03", 2));
  EXPECT_EQ(got["u2"], std::string("\x39\x01", 2));
  EXPECT_EQ(got["i16"], std::string("\xfe\xff\x2c\x01", 4));
  EXPECT_EQ(got["i32"], std::string("\xfb\xff\xff\xff", 4));
  EXPECT_EQ(got["i64"], std::string("\xff\xff\xff\xff\xff\xff\xff\xff"
                                    "\x89\x67\x45\x23\x01\x00\x00\x00",
                                    16));
  EXPECT_EQ(got["u32"], std::string("\xfe\xff\xff\xff", 4));
  EXPECT_EQ(got["u64"], std::string(8, '\xff'));
  EXPECT_EQ(got["d"], std::string("\x00\x00\x00\x00\x00\x00\xd0\x3f", 8));
}

void expectError(const std::string &model, const std::string &needle) {
  StatusOr<OnnxModel> m = parse(model);
  ASSERT_FALSE(m) << "accepted; expected: " << needle;
  EXPECT_NE(m.status().message().find(needle), std::string::npos)
      << m.status().message();
}

TEST(Onnx, DisagreeingTensorsAreRefused) {
  expectError(modelOf({tensorProto("w", 1, {2}).bytes(9, "1234567")}),
              "raw_data holds 7 bytes; FLOAT tensor<2xf32> needs 8");
  expectError(modelOf({tensorProto("w", 3, {2}).packed(4, {})}),
              "float_data holds no INT8");
  expectError(modelOf({tensorProto("w", 3, {2}).packed(5, {1})}),
              "1 values; INT8 tensor<2xi8> needs 2");
  expectError(modelOf({tensorProto("w", 3, {1}).packed(5, {300})}),
              "out of the range of INT8");
  expectError(modelOf({tensorProto("w", 22, {3}).packed(5, {1, 2, 3})}),
              "3 values; INT4 tensor<3xi4> needs 2");
  expectError(
      modelOf({tensorProto("w", 1, {1}).bytes(9, "1234").packed(4, {})}),
      "more than one of");
  expectError(modelOf({tensorProto("w", 1, {1})
                           .bytes(9, "1234")
                           .bytes(4, std::string(4, '\0'))}),
              "more than one of raw_data, external data and the typed");
  expectError(modelOf({tensorProto("w", 1, {2})}), "no data for FLOAT");
  expectError(modelOf({tensorProto("w", 1, {-1}).bytes(9, "")}),
              "negative dimension");
  expectError(modelOf({tensorProto("w", 99, {1}).bytes(9, "1")}),
              "unknown data type 99");
  expectError(modelOf({tensorProto("w", 0, {1}).bytes(9, "1")}),
              "unknown UNDEFINED");
  expectError(modelOf({tensorProto("s", 8, {1}).bytes(6, "hello")}),
              "initializer 's': a STRING tensor");
  expectError(
      modelOf({tensorProto("w", 1, {1}).bytes(9, "1234").varint(14, 2)}),
      "data_location 2");
  expectError(modelOf({tensorProto("", 1, {1}).bytes(9, "1234")}),
              "an initializer without a name");
  {
    Pb g;
    g.bytes(2, "g").msg(15, Pb());
    Pb m;
    m.msg(7, g);
    expectError(m.s, "a sparse initializer");
  }
  expectError(std::string("\x08\x0a", 2), "has no graph");
  // Lengths past the end, at every level.
  std::string good = modelOf({tensorProto("w", 1, {2}).bytes(9, "12345678")});
  for (size_t cut = 1; cut < good.size(); ++cut) {
    StatusOr<OnnxModel> m = parse(good.substr(0, cut));
    EXPECT_FALSE(m && m->tensors.size() == 1) << "cut at " << cut;
  }
  {
    std::string bad = good;
    ASSERT_EQ(bad[2], '\x3a'); // field 7 (graph), length-delimited
    bad[3] = char(0x7f);       // its length, now past the end
    expectError(bad, "runs past the end");
  }
}

TEST(Onnx, NestedGraphsAndConstantsAreNamedUniquely) {
  // Main graph: initializer "w"; an If whose then_branch has initializer
  // "w" (a clash) and "v", whose else_branch has a Constant "w" (another);
  // a Constant node "c".
  auto raw = [](const std::string &name) {
    return tensorProto(name, 2, {1}).bytes(9, "x");
  };
  Pb thenG;
  thenG.bytes(2, "then").msg(5, raw("w")).msg(5, raw("v"));
  Pb constW;
  constW.bytes(2, "w").bytes(4, "Constant");
  {
    Pb a;
    a.bytes(1, "value")
        .msg(5, tensorProto("", 2, {1}).bytes(9, "y"))
        .varint(20, 4);
    constW.msg(5, a);
  }
  Pb elseG;
  elseG.bytes(2, "else").msg(1, constW);
  Pb ifNode;
  ifNode.bytes(1, "cond").bytes(2, "out").bytes(3, "if1").bytes(4, "If");
  {
    Pb a;
    a.bytes(1, "then_branch").msg(6, thenG).varint(20, 5);
    ifNode.msg(5, a);
    Pb b;
    b.bytes(1, "else_branch").msg(6, elseG).varint(20, 5);
    ifNode.msg(5, b);
  }
  Pb constC;
  constC.bytes(2, "c").bytes(4, "Constant");
  {
    Pb a;
    a.bytes(1, "value")
        .msg(5, tensorProto("ignored", 2, {1}).bytes(9, "z"))
        .varint(20, 4);
    constC.msg(5, a);
  }
  // Nodes come first in the file, as protobuf serializes them.
  std::string model = modelOf({raw("w")}, {ifNode, constC});
  StatusOr<OnnxModel> m = parse(model);
  ASSERT_TRUE(m) << m.status().message();
  std::vector<std::string> names;
  for (const OnnxTensor &t : m->tensors)
    names.push_back(t.info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"w", "if1/then_branch/w", "v",
                                             "if1/else_branch/w", "c"}));
  EXPECT_TRUE(m->tensors[0].initializer);
  EXPECT_FALSE(m->tensors[3].initializer);
  EXPECT_EQ(bytesOf(model, m->tensors[3]), "y");
  EXPECT_EQ(bytesOf(model, m->tensors[4]), "z");

  // Nesting past the limit is refused.
  Pb inner;
  inner.bytes(2, "g");
  for (int i = 0; i < 40; ++i) {
    Pb n;
    n.bytes(4, "If");
    Pb a;
    a.bytes(1, "then_branch").msg(6, inner);
    n.msg(5, a);
    Pb g;
    g.msg(1, n);
    inner = g;
  }
  Pb top;
  top.msg(7, inner);
  expectError(top.s, "graphs nested deeper than 32");
}

TEST(Onnx, ExternalDataIsMappedAndChecked) {
  TempDir dir;
  std::string a = "0123456789abcdef", b = "ABCDEFGH";
  dir.write("a.bin", a);
  ::mkdir(dir.file("sub").c_str(), 0755);
  dir.write("sub/b.bin", b);
  dir.write("model.onnx",
            modelOf({externalTensor("x", 1, {2}, "a.bin", 8, 8),
                     externalTensor("y", 2, {8}, "sub/b.bin", 0, std::nullopt),
                     externalTensor("z", 10, {4}, "a.bin", 0, 8)}));
  StatusOr<std::unique_ptr<WeightFile>> f = openOnnx(dir.file("model.onnx"));
  ASSERT_TRUE(f) << f.status().message();
  std::vector<TensorSource> s = (*f)->sources();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(s[0].data), 8),
            "89abcdef");
  EXPECT_EQ(s[0].fileOffset, 8u);
  EXPECT_GE(s[0].fd, 0);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(s[1].data), 8), b);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(s[2].data), 8),
            "01234567");

  auto refused = [&](const std::vector<Pb> &inits, const std::string &needle) {
    dir.write("bad.onnx", modelOf(inits));
    StatusOr<std::unique_ptr<WeightFile>> g = openOnnx(dir.file("bad.onnx"));
    ASSERT_FALSE(g) << needle;
    EXPECT_NE(g.status().message().find(needle), std::string::npos)
        << g.status().message();
  };
  refused({externalTensor("x", 1, {2}, "../a.bin", 0, 8)},
          "has a '..' component");
  refused({externalTensor("x", 1, {2}, "sub/../../a.bin", 0, 8)},
          "has a '..' component");
  refused({externalTensor("x", 1, {2}, "/etc/passwd", 0, 8)},
          "is an absolute path");
  ASSERT_EQ(::symlink("/etc/hostname", dir.file("link.bin").c_str()), 0);
  refused({externalTensor("x", 2, {1}, "link.bin", 0, 1)},
          "outside the model's directory");
  refused({externalTensor("x", 1, {2}, "a.bin", 12, 8)},
          "runs past the end of 'a.bin'");
  refused({externalTensor("x", 1, {2}, "a.bin", uint64_t(-8) / 10, 8)},
          "runs past the end");
  refused({externalTensor("x", 1, {2}, "a.bin", 0, 9)},
          "external data of 9 bytes; FLOAT tensor<2xf32> needs 8");
  refused({externalTensor("x", 1, {2}, "a.bin", 0, 8),
           externalTensor("y", 1, {2}, "a.bin", 4, 8)},
          "tensors 'x' and 'y' overlap");
  refused({externalTensor("x", 1, {2}, "missing.bin", 0, 8)}, "missing.bin");
  refused({externalTensor("x", 1, {2}, "a.bin", 0, 8).bytes(9, "12345678")},
          "more than one of");
}

std::vector<TensorSource> sourcesOf(const std::vector<std::string> &data,
                                    const std::vector<TensorInfo> &infos) {
  std::vector<TensorSource> out;
  for (size_t i = 0; i < infos.size(); ++i) {
    TensorSource s;
    s.info = infos[i];
    s.data = reinterpret_cast<const uint8_t *>(data[i].data());
    out.push_back(s);
  }
  return out;
}

TEST(Onnx, EveryTypeRoundTripsInlineAndExternal) {
  std::mt19937_64 rng(7);
  std::vector<std::string> data;
  std::vector<TensorInfo> infos;
  for (const InteropType &row : interopTypes()) {
    if (row.onnxType < 0)
      continue;
    TensorInfo t;
    t.name = "t/" + toString(row.type);
    t.elementType = row.type;
    t.shape = {7, 3};
    t.encoding = interopEncoding(row.type);
    t.length = *storedSize(row.type, t.shape, t.encoding);
    std::string bytes = randomBytes(size_t(t.length), rng);
    if (row.type.scalarBits() < 8)
      bytes.back() = char(uint8_t(bytes.back()) &
                          ((1u << (21 * row.type.scalarBits() % 8)) - 1));
    data.push_back(bytes);
    infos.push_back(t);
  }
  std::vector<TensorSource> sources = sourcesOf(data, infos);
  for (bool inlineData : {true, false}) {
    TempDir dir;
    OnnxWriteOptions o;
    o.inlineData = inlineData;
    o.metadata = {{"k", "v"}};
    std::string path = dir.file("out.onnx");
    ASSERT_TRUE(writeOnnx(path, sources, o));
    EXPECT_EQ(::access((path + ".data").c_str(), F_OK) == 0, !inlineData);
    StatusOr<std::unique_ptr<WeightFile>> f = openOnnx(path);
    ASSERT_TRUE(f) << f.status().message();
    EXPECT_EQ((*f)->stringMetadata, o.metadata);
    std::vector<TensorSource> back = (*f)->sources();
    ASSERT_EQ(back.size(), infos.size());
    for (size_t i = 0; i < infos.size(); ++i) {
      EXPECT_EQ(back[i].info.name, infos[i].name);
      // Aliases (si8) read back as their canonical type (i8).
      EXPECT_EQ(toOnnxType(back[i].info.elementType),
                toOnnxType(infos[i].elementType));
      EXPECT_EQ(back[i].info.shape, infos[i].shape);
      EXPECT_EQ(std::string(reinterpret_cast<const char *>(back[i].data),
                            size_t(back[i].info.length)),
                data[i])
          << infos[i].name;
      if (!inlineData)
        EXPECT_EQ(back[i].fileOffset % 4096, 0u);
    }
  }
}

// docs/interop.md, "What vmpack writes": the test vectors.
TEST(Onnx, DocumentedBytes) {
  TempDir dir;
  std::string w("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
  TensorInfo info;
  info.name = "w";
  info.elementType = *fromOnnxType(1);
  info.shape = {2};
  info.length = 8;
  std::vector<std::string> data{w};
  OnnxWriteOptions o;
  o.inlineData = true;
  std::string path = dir.file("w.onnx");
  ASSERT_TRUE(writeOnnx(path, sourcesOf(data, {info}), o));
  const std::string head("\x08\x08\x12\x06vmpack", 10);
  const std::string tail("\x42\x04\x0a\x00\x10\x11", 6);
  EXPECT_EQ(readAll(path), head +
                               "\x3a\x1b\x12\x06vmpack\x2a\x11"
                               "\x08\x02\x10\x01\x42\x01w\x4a\x08" +
                               w + tail);
  o.inlineData = false;
  ASSERT_TRUE(writeOnnx(path, sourcesOf(data, {info}), o));
  EXPECT_EQ(readAll(path), head +
                               "\x3a\x46\x12\x06vmpack\x2a\x3c"
                               "\x08\x02\x10\x01\x42\x01w"
                               "\x6a\x17\x0a\x08location\x12\x0bw.onnx.data"
                               "\x6a\x0b\x0a\x06offset\x12\x01"
                               "0"
                               "\x6a\x0b\x0a\x06length\x12\x01"
                               "8"
                               "\x70\x01" +
                               tail);
  EXPECT_EQ(readAll(path + ".data"), w);
}

Pb intAttr(const std::string &name, int64_t v) {
  Pb a;
  a.bytes(1, name).varint(3, uint64_t(v)).varint(20, 2);
  return a;
}

TEST(Onnx, MatMulNBitsIsAQuantizedWeight) {
  TempDir dir;
  auto model = [&](std::vector<int64_t> bDims, int64_t bits) {
    Pb node;
    node.bytes(1, "a").bytes(1, "B").bytes(1, "S").bytes(1, "Z");
    node.bytes(2, "y").bytes(4, "MatMulNBits").bytes(7, "com.microsoft");
    node.msg(5, intAttr("K", 32)).msg(5, intAttr("N", 2));
    node.msg(5, intAttr("bits", bits)).msg(5, intAttr("block_size", 16));
    uint64_t n = 1;
    for (int64_t d : bDims)
      n *= uint64_t(d);
    // Codes 0..15 in every block, scales 0.5, packed zero points 3 and 5.
    std::string codes(size_t(n), '\0');
    for (size_t i = 0; i < codes.size(); ++i)
      codes[i] = char((2 * i % 16) | (2 * i + 1) % 16 << 4);
    std::string scales;
    for (int i = 0; i < 4; ++i)
      scales += std::string("\x00\x00\x00\x3f", 4);
    return modelOf({tensorProto("B", 2, bDims).bytes(9, codes),
                    tensorProto("S", 1, {4}).bytes(9, scales),
                    tensorProto("Z", 2, {2}).bytes(9, "\x53\x53")},
                   {node});
  };
  dir.write("m.onnx", model({2, 2, 8}, 4));
  OnnxModel parsed;
  StatusOr<std::unique_ptr<WeightFile>> f =
      openOnnx(dir.file("m.onnx"), OnnxLimits(), &parsed);
  ASSERT_TRUE(f) << f.status().message();
  StatusOr<std::vector<OnnxQuantizedWeight>> q =
      onnxQuantizedWeights(parsed, **f);
  ASSERT_TRUE(q) << q.status().message();
  ASSERT_EQ(q->size(), 1u);
  const OnnxQuantizedWeight &w = q->front();
  EXPECT_EQ(w.weight.name, "B");
  EXPECT_EQ(w.weight.shape, (std::vector<int64_t>{2, 32}));
  EXPECT_EQ(w.weight.axis, 1u);
  EXPECT_EQ(w.weight.scheme.codeType, "ui4");
  EXPECT_EQ(w.weight.scheme.groupSize, 16u);
  EXPECT_EQ(w.weight.scheme.offsetKind, quant::OffsetKind::ZeroPoint);
  TensorSource s = onnxDequantizedSource(w, **f, quant::FloatType::F32);
  ASSERT_EQ(s.info.length, 2u * 32 * 4);
  std::vector<float> v(64);
  s.produce(0, s.info.length, reinterpret_cast<uint8_t *>(v.data()));
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 32; ++k) {
      int zp = k < 16 ? 3 : 5; // the low nibble is block 0
      EXPECT_EQ(v[size_t(r * 32 + k)], float((k % 16) - zp) * 0.5f)
          << r << "," << k;
    }
  // A byte range that starts and ends inside values.
  std::vector<uint8_t> part(7);
  s.produce(5, 7, part.data());
  EXPECT_EQ(
      std::memcmp(part.data(), reinterpret_cast<uint8_t *>(v.data()) + 5, 7),
      0);

  auto refused = [&](const std::string &bytes, const std::string &needle) {
    dir.write("bad.onnx", bytes);
    OnnxModel m;
    StatusOr<std::unique_ptr<WeightFile>> g =
        openOnnx(dir.file("bad.onnx"), OnnxLimits(), &m);
    ASSERT_TRUE(g) << g.status().message();
    StatusOr<std::vector<OnnxQuantizedWeight>> r = onnxQuantizedWeights(m, **g);
    ASSERT_FALSE(r) << needle;
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << r.status().message();
  };
  refused(
      model({2, 2, 4}, 4),
      "MatMulNBits over 'B': B is tensor<2x2x4xui8>, not tensor<2x2x8xui8>");
  refused(model({2, 2, 6}, 3), "bits 3");
}

/// A MatMulNBits weight [N, K] = [64, 4096] (block 32, packed zero points)
/// and a blocked DequantizeLinear over INT4 [512, 512] (axis 1, block 32,
/// INT4 zero points), 2^18 elements each: decoded on 1, 3, all and 1000
/// threads (more than either has rows), the same bytes, each value
/// (code - zero point) * scale, and the pieces past the first on threads
/// of their own (quant::splitRangeThreadsStarted).
TEST(Onnx, DequantizedWeightsDecodeOnThreadsToTheSameBytes) {
  TempDir dir;
  std::mt19937_64 rng(24);
  const int64_t N = 64, K = 4096, block = 32, blocks = K / block;
  std::string codes = randomBytes(size_t(N * blocks * block / 2), rng);
  std::string zeros = randomBytes(size_t(N * blocks / 2), rng);
  std::vector<float> scales(size_t(N * blocks));
  for (float &f : scales)
    f = float(int(rng() % 64) - 32) / 16.0f;
  std::string scaleBytes(reinterpret_cast<const char *>(scales.data()),
                         scales.size() * 4);
  const int64_t R = 512, C = 512, cBlocks = C / block;
  std::string q = randomBytes(size_t(R * C / 2), rng);
  std::string qz = randomBytes(size_t(R * cBlocks / 2), rng);
  std::vector<float> qs(size_t(R * cBlocks));
  for (float &f : qs)
    f = float(int(rng() % 64) - 32) / 8.0f;
  std::string qsBytes(reinterpret_cast<const char *>(qs.data()), qs.size() * 4);
  Pb nbits;
  nbits.bytes(1, "a").bytes(1, "B").bytes(1, "S").bytes(1, "Z");
  nbits.bytes(2, "y").bytes(4, "MatMulNBits").bytes(7, "com.microsoft");
  nbits.msg(5, intAttr("K", K)).msg(5, intAttr("N", N));
  nbits.msg(5, intAttr("bits", 4)).msg(5, intAttr("block_size", block));
  Pb dq;
  dq.bytes(1, "Q").bytes(1, "S1").bytes(1, "Z1").bytes(2, "W1");
  dq.bytes(4, "DequantizeLinear");
  dq.msg(5, intAttr("axis", 1)).msg(5, intAttr("block_size", block));
  dir.write(
      "m.onnx",
      modelOf({tensorProto("B", 2, {N, blocks, block / 2}).bytes(9, codes),
               tensorProto("S", 1, {N * blocks}).bytes(9, scaleBytes),
               tensorProto("Z", 2, {N * blocks / 2}).bytes(9, zeros),
               tensorProto("Q", 22, {R, C}).bytes(9, q),
               tensorProto("S1", 1, {R, cBlocks}).bytes(9, qsBytes),
               tensorProto("Z1", 22, {R, cBlocks}).bytes(9, qz)},
              {nbits, dq}));
  OnnxModel parsed;
  StatusOr<std::unique_ptr<WeightFile>> f =
      openOnnx(dir.file("m.onnx"), OnnxLimits(), &parsed);
  ASSERT_TRUE(f) << f.status().message();
  StatusOr<std::vector<OnnxQuantizedWeight>> weights =
      onnxQuantizedWeights(parsed, **f);
  ASSERT_TRUE(weights) << weights.status().message();
  ASSERT_EQ(weights->size(), 2u);
  auto nibble = [](const std::string &b, uint64_t i) {
    return unsigned(uint8_t(b[size_t(i / 2)]) >> (i % 2 * 4) & 15);
  };
  auto si4 = [](unsigned v) { return int(v ^ 8) - 8; };
  for (const OnnxQuantizedWeight &w : *weights) {
    SCOPED_TRACE(w.weight.name);
    std::vector<float> want(size_t(1) << 18);
    for (uint64_t e = 0; e < want.size(); ++e) {
      if (w.matMulNBits) {
        uint64_t r = e / uint64_t(K), b = e % uint64_t(K) / uint64_t(block);
        want[e] = float(int(nibble(codes, e)) -
                        int(nibble(zeros, r * uint64_t(blocks) + b))) *
                  scales[r * uint64_t(blocks) + b];
      } else {
        uint64_t g = e / uint64_t(C) * uint64_t(cBlocks) +
                     e % uint64_t(C) / uint64_t(block);
        want[e] = float(si4(nibble(q, e)) - si4(nibble(qz, g))) * qs[g];
      }
    }
    std::string wantBytes(reinterpret_cast<const char *>(want.data()),
                          want.size() * 4);
    for (quant::FloatType type :
         {quant::FloatType::F32, quant::FloatType::F16}) {
      std::string first;
      for (unsigned threads : {1u, 3u, 0u, 1000u}) {
        SCOPED_TRACE(threads);
        TensorSource s = onnxDequantizedSource(w, **f, type, threads);
        ASSERT_EQ(s.info.length, want.size() * quant::floatTypeBytes(type));
        std::string got(size_t(s.info.length), '\0');
        uint64_t before = quant::splitRangeThreadsStarted();
        s.produce(0, s.info.length, reinterpret_cast<uint8_t *>(got.data()));
        uint64_t started = quant::splitRangeThreadsStarted() - before;
        // 2^18 elements in pieces of at least 2^14: at most 16.
        unsigned all = std::max(1u, std::thread::hardware_concurrency());
        unsigned pieces = std::min(threads ? threads : all, 16u);
        EXPECT_EQ(started, pieces - 1);
        if (type == quant::FloatType::F32)
          EXPECT_TRUE(got == wantBytes);
        if (first.empty())
          first = got;
        EXPECT_TRUE(got == first);
        // A writer's chunk that starts and ends inside values.
        std::string part(size_t(kProduceChunkBytes), '\0');
        s.produce(3, part.size(), reinterpret_cast<uint8_t *>(part.data()));
        EXPECT_TRUE(part == first.substr(3, part.size()));
      }
    }
  }
}

TEST(Onnx, TemplateTensorsAreReplacedByName) {
  TempDir dir;
  // A template with an inline initializer "w", an external one "e", a typed
  // one "k" and a Constant "c".
  dir.write("t.bin", std::string(8, '\x11'));
  Pb constC;
  constC.bytes(2, "c").bytes(4, "Constant");
  {
    Pb a;
    a.bytes(1, "value").msg(5, tensorProto("", 2, {2}).bytes(9, "zz"));
    constC.msg(5, a);
  }
  Pb doc = tensorProto("w", 1, {2});
  doc.bytes(12, "kept doc").bytes(9, std::string(8, '\0'));
  dir.write("t.onnx", modelOf({doc, externalTensor("e", 2, {8}, "t.bin", 0, 8),
                               tensorProto("k", 7, {1}).packed(7, {42})},
                              {constC}));
  std::string w("\x00\x00\x80\x3f\x00\x00\x00\x40", 8), c("ab");
  TensorInfo wi;
  wi.name = "w";
  wi.elementType = *fromOnnxType(1);
  wi.shape = {2};
  wi.length = 8;
  TensorInfo ci;
  ci.name = "c";
  ci.elementType = *fromOnnxType(2);
  ci.shape = {2};
  ci.length = 2;
  std::vector<std::string> data{w, c};
  std::vector<TensorSource> sources = sourcesOf(data, {wi, ci});
  for (bool inlineData : {false, true}) {
    OnnxWriteOptions o;
    o.templatePath = dir.file("t.onnx");
    o.inlineData = inlineData;
    std::string out = dir.file(inlineData ? "i.onnx" : "x.onnx");
    Status s = writeOnnx(out, sources, o);
    ASSERT_TRUE(s) << s.message();
    StatusOr<std::unique_ptr<WeightFile>> f = openOnnx(out);
    ASSERT_TRUE(f) << f.status().message();
    std::map<std::string, std::string> got;
    for (const TensorSource &t : (*f)->sources())
      got[t.info.name] = std::string(reinterpret_cast<const char *>(t.data),
                                     size_t(t.info.length));
    EXPECT_EQ(got["w"], w);
    EXPECT_EQ(got["c"], c);
    EXPECT_EQ(got["e"], std::string(8, '\x11')); // moved from t.bin
    EXPECT_EQ(got["k"], std::string("\x2a\0\0\0\0\0\0\0", 8));
    EXPECT_NE(readAll(out).find("kept doc"), std::string::npos);
  }

  // A type or shape that differs names the tensor; nothing is written.
  auto refused = [&](TensorInfo info, const std::string &needle) {
    std::vector<std::string> d{std::string(64, '\0')};
    OnnxWriteOptions o;
    o.templatePath = dir.file("t.onnx");
    std::string out = dir.file("bad.onnx");
    Status s = writeOnnx(out, sourcesOf(d, {info}), o);
    ASSERT_FALSE(s) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
    EXPECT_NE(::access(out.c_str(), F_OK), 0);
    EXPECT_NE(::access((out + ".data").c_str(), F_OK), 0);
  };
  TensorInfo wrongType = wi;
  wrongType.elementType = *fromOnnxType(10);
  wrongType.length = 4;
  refused(wrongType, "tensor 'w': the input has tensor<2xf16> (FLOAT16), the "
                     "template's initializer is tensor<2xf32> (FLOAT)");
  TensorInfo wrongShape = wi;
  wrongShape.shape = {1, 2};
  refused(wrongShape, "tensor 'w': the input has tensor<1x2xf32>");
  TensorInfo unknown = wi;
  unknown.name = "nope";
  refused(unknown, "tensor 'nope' of the input is no initializer");
}

} // namespace
