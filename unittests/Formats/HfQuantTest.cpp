//===- HfQuantTest.cpp - GPTQ/AWQ unpacking and repack kernels ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Against slow obvious references written here: codes set bit by bit into
// GPTQ's bit streams and AWQ's nibble order (docs/quant.md section 8),
// unpackHfRows read back, the direct Q4_0/Q8_0 kernel against the Quant
// layer's checked repackToGgml on the unpacked rows, the streaming tensors
// asked for in ragged chunks against one whole request, the AWQ <-> GPTQ
// word kernels against element-by-element moves, and group planar sets
// written to safetensors and read back (openHfPlanarModel) against the
// codes, zero points and scales they were made from.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/HfQuant.h"

#include "TestFiles.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/GgmlTypes.h"
#include "vmpack/Quant/HfRepack.h"
#include "vmpack/Quant/Parallel.h"
#include <cmath>

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <random>
#include <thread>

using namespace vmpack;
using namespace vmpack::formats;
using vmpack::archive::testing::readFile;
using vmpack::archive::testing::ScratchDir;

namespace {

/// Sets code `v` (bits wide) at element e of a bit stream of 32-bit words.
void setStream(std::vector<uint32_t> &words, uint64_t base, uint64_t e,
               unsigned bits, uint32_t v) {
  for (unsigned b = 0; b < bits; ++b) {
    uint64_t bit = e * bits + b;
    if (v >> b & 1)
      words[base + bit / 32] |= 1u << (bit % 32);
  }
}

constexpr unsigned kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

struct Model {
  int64_t out, in;
  unsigned bits;
  uint64_t group;
  std::vector<uint8_t> codes, zeros; // [out][in], [groups][out] true zeros
  std::vector<uint16_t> scales;      // [groups][out]
  std::vector<uint32_t> qweight, qzeros;
  HfQuantLinear linear;
};

TensorSource source(const char *name, const char *dtype,
                    std::vector<int64_t> shape, const void *data,
                    uint64_t length) {
  TensorSource s;
  s.info.name = name;
  s.info.elementType = *fromSafetensorsDtype(dtype);
  s.info.shape = std::move(shape);
  s.info.length = length;
  s.data = static_cast<const uint8_t *>(data);
  return s;
}

void build(Model &m, HfQuantMethod method, bool sym, bool v1, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint64_t groups = uint64_t(m.in) / m.group;
  const uint32_t maxq = (1u << m.bits) - 1;
  m.codes.resize(uint64_t(m.out * m.in));
  for (auto &c : m.codes)
    c = uint8_t(rng() & maxq);
  m.zeros.resize(groups * uint64_t(m.out));
  for (auto &z : m.zeros)
    z = uint8_t(sym ? 1u << (m.bits - 1) : 1 + rng() % maxq);
  m.scales.resize(groups * uint64_t(m.out));
  for (auto &s : m.scales)
    s = uint16_t(0x1400 + rng() % 0x1000); // small positive normals
  HfQuantLinear &l = m.linear;
  l.method = method;
  l.bits = m.bits;
  l.groupSize = m.group;
  l.out = m.out;
  l.in = m.in;
  l.scaleType = "f16";
  l.weight.name = "m.weight";
  l.zerosMinusOne = v1;
  l.symmetric = sym;
  if (method == HfQuantMethod::Gptq) {
    const uint64_t words = uint64_t(m.in) * m.bits / 32;
    m.qweight.assign(words * uint64_t(m.out), 0);
    // Column o's stream: element e at word row e * bits / 32.
    std::vector<uint32_t> col(words);
    for (int64_t o = 0; o < m.out; ++o) {
      std::fill(col.begin(), col.end(), 0);
      for (int64_t i = 0; i < m.in; ++i)
        setStream(col, 0, uint64_t(i), m.bits, m.codes[o * m.in + i]);
      for (uint64_t w = 0; w < words; ++w)
        m.qweight[w * uint64_t(m.out) + uint64_t(o)] = col[w];
    }
    const uint64_t zw = uint64_t(m.out) * m.bits / 32;
    m.qzeros.assign(groups * zw, 0);
    for (uint64_t g = 0; g < groups; ++g)
      for (int64_t o = 0; o < m.out; ++o)
        setStream(m.qzeros, g * zw, uint64_t(o), m.bits,
                  m.zeros[g * uint64_t(m.out) + uint64_t(o)] - (v1 ? 1 : 0));
    l.qweight = source("m.qweight", "I32", {int64_t(words), m.out},
                       m.qweight.data(), m.qweight.size() * 4);
    l.qzeros = source("m.qzeros", "I32", {int64_t(groups), int64_t(zw)},
                      m.qzeros.data(), m.qzeros.size() * 4);
  } else {
    const uint64_t cols = uint64_t(m.out) / 8;
    m.qweight.assign(uint64_t(m.in) * cols, 0);
    for (int64_t i = 0; i < m.in; ++i)
      for (uint64_t c = 0; c < cols; ++c)
        for (unsigned k = 0; k < 8; ++k)
          m.qweight[uint64_t(i) * cols + c] |=
              uint32_t(m.codes[(8 * c + kAwqOrder[k]) * m.in + i]) << (4 * k);
    m.qzeros.assign(groups * cols, 0);
    for (uint64_t g = 0; g < groups; ++g)
      for (uint64_t c = 0; c < cols; ++c)
        for (unsigned k = 0; k < 8; ++k)
          m.qzeros[g * cols + c] |=
              uint32_t(m.zeros[g * m.out + 8 * c + kAwqOrder[k]]) << (4 * k);
    l.qweight = source("m.qweight", "I32", {m.in, int64_t(cols)},
                       m.qweight.data(), m.qweight.size() * 4);
    l.qzeros = source("m.qzeros", "I32", {int64_t(groups), int64_t(cols)},
                      m.qzeros.data(), m.qzeros.size() * 4);
  }
  l.scales = source("m.scales", "F16", {int64_t(groups), m.out},
                    m.scales.data(), m.scales.size() * 2);
}

/// Every byte of `t`, asked for in chunks of the given sizes in turn.
std::vector<uint8_t> produceAll(const TensorSource &t,
                                const std::vector<uint64_t> &steps) {
  std::vector<uint8_t> out(t.info.length);
  uint64_t at = 0;
  for (size_t k = 0; at < out.size(); ++k) {
    uint64_t n = std::min<uint64_t>(steps[k % steps.size()], out.size() - at);
    t.produce(at, n, out.data() + at);
    at += n;
  }
  return out;
}

struct Case {
  HfQuantMethod method;
  unsigned bits;
  uint64_t group;
  bool sym, v1;
};

class HfQuantCases : public testing::TestWithParam<Case> {};

/// unpackHfRows of `l` from each row of `firsts`, at most `most` rows at a
/// time: `m`'s codes, true zero points and scales.
void expectRowsOf(const Model &m, const HfQuantLinear &l,
                  std::initializer_list<int64_t> firsts, int64_t most) {
  HfRows rows;
  const uint64_t units = uint64_t(m.in) / m.group;
  for (int64_t first : firsts) {
    const int64_t count = std::min<int64_t>(most, m.out - first);
    ASSERT_TRUE(unpackHfRows(l, first, count, m.group, rows));
    ASSERT_EQ(rows.codes.size(), uint64_t(count * m.in));
    for (int64_t r = 0; r < count; ++r) {
      for (int64_t i = 0; i < m.in; ++i)
        ASSERT_EQ(rows.codes[r * m.in + i], m.codes[(first + r) * m.in + i])
            << "row " << first + r << " input " << i;
      for (uint64_t g = 0; g < units; ++g) {
        const uint64_t at = g * uint64_t(m.out) + uint64_t(first + r);
        ASSERT_EQ(rows.zeros[r * units + g], m.zeros[at]);
        uint16_t s;
        std::memcpy(&s, rows.scales.data() + 2 * (r * units + g), 2);
        ASSERT_EQ(s, m.scales[at]);
      }
    }
  }
}

TEST_P(HfQuantCases, UnpackedRowsAreTheCodesScalesAndZeros) {
  const Case c = GetParam();
  Model m{96, 256, c.bits, c.group, {}, {}, {}, {}, {}, {}};
  build(m, c.method, c.sym, c.v1, 7 + c.bits);
  ASSERT_NO_FATAL_FAILURE(expectRowsOf(m, m.linear, {0, 5, 17}, 19));
}

TEST_P(HfQuantCases, StreamedTensorsEqualOneRequestAndTheCheckedRepack) {
  const Case c = GetParam();
  Model m{96, 512, c.bits, c.group, {}, {}, {}, {}, {}, {}};
  build(m, c.method, c.sym, c.v1, 3 + c.bits);
  // Floats: each chunking gives the same bytes as one request, and those
  // are (q - z) * s.
  StatusOr<TensorSource> f = hfLinearAsFloats(m.linear, quant::FloatType::F32);
  ASSERT_TRUE(f);
  std::vector<uint8_t> whole = produceAll(*f, {f->info.length});
  EXPECT_EQ(produceAll(*f, {1, 7, 4093, 100000}), whole);
  // On threads (vmpack-convert --threads): the same bytes; 96 rows of 512
  // values in pieces of at least 2^14 values are at most 3 pieces, all but
  // the first on threads of their own.
  for (unsigned threads : {3u, 0u, 1000u}) {
    StatusOr<TensorSource> t =
        hfLinearAsFloats(m.linear, quant::FloatType::F32, threads);
    ASSERT_TRUE(t);
    uint64_t before = quant::splitRangeThreadsStarted();
    EXPECT_EQ(produceAll(*t, {t->info.length}), whole) << threads;
    unsigned all = std::max(1u, std::thread::hardware_concurrency());
    EXPECT_EQ(quant::splitRangeThreadsStarted() - before,
              std::min(threads ? threads : all, 3u) - 1)
        << threads;
    EXPECT_EQ(produceAll(*t, {1, 7, 4093, 100000}), whole) << threads;
  }
  for (int64_t o = 0; o < m.out; ++o)
    for (int64_t i = 0; i < m.in; ++i) {
      uint64_t g = uint64_t(i) / m.group;
      float s = quant::ggmlHalfToFloat(m.scales[g * m.out + o]);
      float want =
          float(int(m.codes[o * m.in + i]) - int(m.zeros[g * m.out + o])) * s;
      float got;
      std::memcpy(&got, whole.data() + 4 * (o * m.in + i), 4);
      uint32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &got, 4);
      ASSERT_EQ(a, b) << o << ", " << i;
    }
  // ggml blocks, where a type holds the codes exactly.
  StatusOr<uint32_t> type = hfGgmlTarget(m.linear, std::nullopt);
  if (!type) {
    // No ggml type for the width, or (most asymmetric 4-bit weights) a
    // minimum -z * s that float16 cannot hold.
    const std::string &why = type.status().message();
    if (c.bits == 4)
      EXPECT_NE(why.find("is not exact in float16"), std::string::npos) << why;
    else
      EXPECT_NE(why.find("have no exact ggml type"), std::string::npos) << why;
    EXPECT_FALSE(c.bits == 8 && c.sym) << why;
    return;
  }
  StatusOr<TensorSource> blocks = hfLinearAsGgml(m.linear, *type);
  ASSERT_TRUE(blocks);
  std::vector<uint8_t> all = produceAll(*blocks, {blocks->info.length});
  EXPECT_EQ(produceAll(*blocks, {3, 18 * 5 + 1, 65536}), all);
  HfRows rows;
  ASSERT_TRUE(unpackHfRows(m.linear, 0, m.out, m.group, rows));
  std::vector<uint8_t> checked(all.size());
  ASSERT_TRUE(quant::repackToGgml(*type, rows.source, checked.data()));
  EXPECT_EQ(all, checked);
}

/// The bytes of `t` (stored or computed).
std::vector<uint8_t> bytesOf(const TensorSource &t) {
  if (t.produce)
    return produceAll(t, {t.info.length});
  return std::vector<uint8_t>(t.data, t.data + t.info.length);
}

TEST_P(HfQuantCases, PlanarSetsReadBackAsTheSameWeight) {
  const Case c = GetParam();
  Model m{96, 512, c.bits, c.group, {}, {}, {}, {}, {}, {}};
  build(m, c.method, c.sym, c.v1, 11 + c.bits);
  // The planar set written to safetensors with its record, opened again.
  StatusOr<std::vector<TensorSource>> parts = hfLinearAsPlanar(m.linear);
  ASSERT_TRUE(parts) << parts.status().message();
  const std::string path = testing::TempDir() + "hfquant-planar-" +
                           std::to_string(c.bits) + "-" +
                           std::to_string(c.group) + (c.sym ? "s" : "a") +
                           (c.v1 ? "1" : "2") + ".safetensors";
  ASSERT_TRUE(writeSafetensors(
      path, *parts, {{planarRecordKey("m.weight"), kHfPlanarRecord}}));
  StatusOr<std::vector<std::unique_ptr<WeightFile>>> files =
      openWeightSet(path, FileFormat::Safetensors);
  ASSERT_TRUE(files);
  ASSERT_EQ(hfPlanarRecords(*files), std::vector<std::string>{"m.weight"});
  StatusOr<std::unique_ptr<HfQuantModel>> model =
      openHfPlanarModel(std::move(*files), path);
  ASSERT_TRUE(model) << model.status().message();
  ASSERT_EQ((*model)->linears.size(), 1u);
  const HfQuantLinear &p = (*model)->linears[0];
  EXPECT_EQ(p.method, HfQuantMethod::Planar);
  EXPECT_EQ(p.bits, c.bits);
  EXPECT_EQ(p.groupSize, c.group);
  EXPECT_EQ(p.symmetric, c.sym);
  EXPECT_EQ((*model)->others.size(), 0u);
  // Rows in ragged runs: the codes, true zero points and scales.
  ASSERT_NO_FATAL_FAILURE(expectRowsOf(m, p, {0, 1, 33}, 31));
  // Written back in the checkpoint's own scheme: the same tensors.
  const std::string target = c.method == HfQuantMethod::Awq ? "awq"
                             : c.v1                         ? "gptq"
                                                            : "gptq_v2";
  StatusOr<std::vector<TensorSource>> back = hfLinearAsScheme(p, target);
  ASSERT_TRUE(back) << back.status().message();
  StatusOr<std::vector<TensorSource>> own = hfLinearAsScheme(m.linear, target);
  ASSERT_TRUE(own) << own.status().message();
  ASSERT_GE(back->size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ((*back)[k].info.name, (*own)[k].info.name);
    EXPECT_EQ((*back)[k].info.shape, (*own)[k].info.shape);
    EXPECT_EQ(bytesOf((*back)[k]), bytesOf((*own)[k])) << (*own)[k].info.name;
  }
  // ggml blocks (symmetric Q4_0 and Q8_0 are copied straight from the
  // planar parts): the checkpoint's own blocks, in ragged requests too.
  StatusOr<uint32_t> type = hfGgmlTarget(m.linear, std::nullopt);
  if (type) {
    ASSERT_TRUE(hfGgmlTarget(p, *type));
    StatusOr<TensorSource> mine = hfLinearAsGgml(p, *type);
    StatusOr<TensorSource> theirs = hfLinearAsGgml(m.linear, *type);
    ASSERT_TRUE(mine && theirs);
    const std::vector<uint8_t> want = bytesOf(*theirs);
    EXPECT_EQ(produceAll(*mine, {mine->info.length}), want);
    EXPECT_EQ(produceAll(*mine, {5, 18 * 7 + 3, 34 * 3 + 1, 65536}), want);
  }
  // A set that does not hold: signed codes with zero points.
  std::vector<quant::PlanarTensorInfo> infos = {
      {"m.weight.q", "si4", {8, 64}, 256},
      {"m.weight.d", "f16", {8, 2}, 32},
      {"m.weight.m", "ui4", {8, 2}, 8}};
  StatusOr<HfPlanarSet> bad = checkHfPlanarSet("m.weight", infos);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("'m.weight.m'"), std::string::npos);
  infos[0].type = "ui4";
  StatusOr<HfPlanarSet> good = checkHfPlanarSet("m.weight", infos);
  ASSERT_TRUE(good) << good.status().message();
  EXPECT_EQ(good->groupSize, 32u);
  EXPECT_FALSE(good->affine);
  infos[2].type = "f16";
  infos[2].byteLength = 32;
  EXPECT_TRUE(checkHfPlanarSet("m.weight", infos)->affine);
  // Shapes whose sizes overflow are refused, not wrapped around.
  infos[0].shape = {int64_t(1) << 40, int64_t(1) << 30};
  infos[1].shape = {int64_t(1) << 40, 1};
  infos[2].shape = infos[1].shape;
  StatusOr<HfPlanarSet> huge = checkHfPlanarSet("m.weight", infos);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.status().message().find("too large"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, HfQuantCases,
    testing::Values(Case{HfQuantMethod::Gptq, 4, 128, true, true},
                    Case{HfQuantMethod::Gptq, 4, 32, true, false},
                    Case{HfQuantMethod::Gptq, 8, 64, true, true},
                    Case{HfQuantMethod::Gptq, 8, 128, false, false},
                    Case{HfQuantMethod::Gptq, 3, 32, false, true},
                    Case{HfQuantMethod::Gptq, 3, 128, true, false},
                    Case{HfQuantMethod::Gptq, 2, 64, false, false},
                    Case{HfQuantMethod::Gptq, 4, 256, false, true},
                    Case{HfQuantMethod::Awq, 4, 128, false, false},
                    Case{HfQuantMethod::Awq, 4, 32, true, false}));

// The GGUF writer asks for a computed tensor kProduceChunkBytes at a time:
// with Q4_0 rows of 648 bytes, chunk ends fall inside rows. The file holds
// the bytes of one whole request, which are the checked repack's.
TEST(HfRepack, WrittenQ4_0BlocksSpanningChunksAreTheRepack) {
  Model m{1024, 1152, 4, 128, {}, {}, {}, {}, {}, {}};
  build(m, HfQuantMethod::Gptq, true, true, 11);
  StatusOr<TensorSource> blocks = hfLinearAsGgml(m.linear, quant::kGgmlQ4_0);
  ASSERT_TRUE(blocks) << blocks.status().message();
  const uint64_t length = blocks->info.length;
  ASSERT_EQ(length, uint64_t(1024) * 1152 / 32 * 18);
  ASSERT_GT(length, 2 * kProduceChunkBytes);
  ASSERT_NE(kProduceChunkBytes % 648, 0u);
  HfRows rows;
  ASSERT_TRUE(unpackHfRows(m.linear, 0, m.out, m.group, rows));
  std::vector<uint8_t> checked(length);
  ASSERT_TRUE(
      quant::repackToGgml(quant::kGgmlQ4_0, rows.source, checked.data()));
  EXPECT_EQ(produceAll(*blocks, {length}), checked);
  ScratchDir dir;
  ASSERT_TRUE(writeGguf(dir.path("q.gguf"), {*blocks}, {}).isOk());
  std::vector<uint8_t> file = readFile(dir.path("q.gguf"));
  StatusOr<GgufFile> g = readGguf(file.data(), file.size());
  ASSERT_TRUE(g) << g.status().message();
  ASSERT_EQ(g->tensors.size(), 1u);
  const TensorInfo &t = g->tensors[0];
  ASSERT_EQ(t.length, length);
  ASSERT_LE(t.offset + length, file.size());
  EXPECT_TRUE(std::equal(checked.begin(), checked.end(),
                         file.begin() + int64_t(t.offset)));
}

TEST(HfRepack, AwqAndGptqWordsAreTheSameMatrix) {
  const uint64_t k = 64, n = 56; // 7 word columns: pairs and one alone
  std::mt19937 rng(5);
  std::vector<uint8_t> q(k * n);
  for (auto &v : q)
    v = uint8_t(rng() & 15);
  std::vector<uint32_t> awq(k * n / 8, 0), gptq(k / 8 * n, 0);
  for (uint64_t i = 0; i < k; ++i)
    for (uint64_t c = 0; c < n / 8; ++c)
      for (unsigned j = 0; j < 8; ++j)
        awq[i * (n / 8) + c] |= uint32_t(q[i * n + 8 * c + kAwqOrder[j]])
                                << (4 * j);
  for (uint64_t w = 0; w < k / 8; ++w)
    for (uint64_t o = 0; o < n; ++o)
      for (unsigned r = 0; r < 8; ++r)
        gptq[w * n + o] |= uint32_t(q[(8 * w + r) * n + o]) << (4 * r);
  std::vector<uint32_t> got(gptq.size());
  auto bytes = [](auto &v) { return reinterpret_cast<uint8_t *>(v.data()); };
  // In two calls: word rows 0..2, then 3..7.
  quant::awqToGptqWords(bytes(awq), n, 0, 3, bytes(got));
  quant::awqToGptqWords(bytes(awq), n, 3, k / 8 - 3, bytes(got) + 3 * n * 4);
  EXPECT_EQ(got, gptq);
  std::vector<uint32_t> back(awq.size());
  quant::gptqToAwqWords(bytes(gptq), n, 0, 16, bytes(back));
  quant::gptqToAwqWords(bytes(gptq), n, 16, k - 16,
                        bytes(back) + 16 * (n / 8) * 4);
  EXPECT_EQ(back, awq);
  // Zero-point words: the order, and v1's minus one.
  std::vector<uint32_t> zg(n / 8), za(n / 8);
  ASSERT_TRUE(quant::awqToGptqZeroWords(bytes(awq), n / 8, 0, bytes(zg)));
  for (uint64_t c = 0; c < n / 8; ++c)
    for (unsigned j = 0; j < 8; ++j)
      EXPECT_EQ((zg[c] >> (4 * j)) & 15u, q[8 * c + j]);
  ASSERT_TRUE(quant::gptqToAwqZeroWords(bytes(zg), n / 8, 0, bytes(za)));
  EXPECT_TRUE(std::equal(za.begin(), za.end(), awq.begin()));
  std::vector<uint32_t> ones(1, 0x11111111u), out(1);
  ASSERT_TRUE(quant::gptqToAwqZeroWords(bytes(ones), 1, -1, bytes(out)));
  EXPECT_EQ(out[0], 0u);
  std::vector<uint32_t> zero(1, 0x10111111u);
  EXPECT_FALSE(quant::awqToGptqZeroWords(bytes(zero), 1, -1, bytes(out)));
}

TEST(HfQuantConfig, FieldsAndRefusals) {
  auto parse = [](const std::string &text) {
    return parseHfQuantConfig(reinterpret_cast<const uint8_t *>(text.data()),
                              text.size(), "c.json");
  };
  auto c = parse(R"({"quantization_config": {"quant_method": "gptq",
      "bits": 3, "group_size": -1, "desc_act": true, "sym": false,
      "checkpoint_format": "gptq_v2"}})");
  ASSERT_TRUE(c);
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->bits, 3u);
  EXPECT_EQ((*c)->groupSize, -1);
  EXPECT_TRUE((*c)->descAct);
  EXPECT_FALSE((*c)->sym);
  EXPECT_EQ((*c)->checkpointFormat, "gptq_v2");
  auto a = parse(R"({"zero_point": true, "q_group_size": 64, "w_bit": 4,
      "version": "GEMM"})");
  ASSERT_TRUE(a);
  ASSERT_TRUE(*a);
  EXPECT_EQ((*a)->method, HfQuantMethod::Awq);
  EXPECT_EQ((*a)->groupSize, 64);
  auto none = parse(R"({"torch_dtype": "float16"})");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  for (const char *bad :
       {R"({"quantization_config": {"quant_method": "gptq", "bits": 5}})",
        R"({"quantization_config": {"quant_method": "gptq", "bits": 4,
            "group_size": 0}})",
        R"({"quantization_config": {"quant_method": "awq", "bits": 4,
            "version": "gemv"}})",
        R"({"quantization_config": {"quant_method": "gptq", "bits": "4"}})",
        R"({"quantization_config": {"quant_method": "gptq", "bits": 4,
            "checkpoint_format": "marlin"}})",
        R"({"quantization_config": 7})", R"([1])", R"({"bits": )"}) {
    auto r = parse(bad);
    EXPECT_FALSE(r) << bad;
    if (!r)
      EXPECT_NE(r.status().message().find("c.json"), std::string::npos)
          << r.status().message();
  }
}

TEST(HfQuantConfig, CompressedTensorsAndMlx) {
  auto parse = [](const std::string &text) {
    return parseHfQuantConfig(reinterpret_cast<const uint8_t *>(text.data()),
                              text.size(), "c.json");
  };
  auto ct = parse(R"({"quantization_config": {
      "quant_method": "compressed-tensors", "format": "pack-quantized",
      "config_groups": {
        "group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
          "type": "int", "symmetric": false, "group_size": 32,
          "actorder": "group"}},
        "group_1": {"targets": ["re:.*down_proj"], "weights": {"num_bits": 8,
          "strategy": "channel"}, "format": "naive-quantized"},
        "acts": {"targets": ["Linear"], "weights": null},
        "W4A16": ["re:.*gate_proj"]}}})");
  ASSERT_TRUE(ct) << ct.status().message();
  ASSERT_TRUE(*ct);
  EXPECT_EQ((*ct)->method, HfQuantMethod::CompressedTensors);
  const std::vector<HfCtWeightArgs> &g = (*ct)->ctGroups;
  ASSERT_EQ(g.size(), 3u);
  // nlohmann's object: keys in sorted order.
  EXPECT_EQ(g[0].group, "W4A16");
  EXPECT_EQ(g[0].bits, 4u);
  EXPECT_TRUE(g[0].symmetric);
  EXPECT_EQ(g[0].groupSize, 128);
  EXPECT_EQ(g[1].group, "group_0");
  EXPECT_EQ(g[1].strategy, "group");
  EXPECT_FALSE(g[1].symmetric);
  EXPECT_TRUE(g[1].actorder);
  EXPECT_EQ(g[1].groupSize, 32);
  EXPECT_EQ(g[2].format, "naive-quantized");
  EXPECT_EQ(g[2].strategy, "channel");
  EXPECT_EQ(g[2].bits, 8u);
  auto fp8 = parse(R"({"quantization_config": {
      "quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 8, "type": "float", "strategy": "block",
        "block_structure": [128, 128], "symmetric": true}}}}})");
  ASSERT_TRUE(fp8) << fp8.status().message();
  ASSERT_TRUE(*fp8);
  ASSERT_EQ((*fp8)->ctGroups.size(), 1u);
  EXPECT_TRUE((*fp8)->ctGroups[0].floatType);
  EXPECT_EQ((*fp8)->ctGroups[0].strategy, "block");
  EXPECT_EQ((*fp8)->ctGroups[0].blockRows, 128);
  EXPECT_EQ((*fp8)->ctGroups[0].blockCols, 128);
  auto mlx = parse(R"({"quantization": {"group_size": 32, "bits": 3,
      "model.layers.0.mlp.down_proj": {"group_size": 128, "bits": 8},
      "lm_head": false}, "quantization_config": {"group_size": 32,
      "bits": 3}})");
  ASSERT_TRUE(mlx) << mlx.status().message();
  ASSERT_TRUE(*mlx);
  EXPECT_EQ((*mlx)->method, HfQuantMethod::Mlx);
  EXPECT_EQ((*mlx)->bits, 3u);
  EXPECT_EQ((*mlx)->groupSize, 32);
  ASSERT_EQ((*mlx)->mlxLayers.size(), 2u);
  EXPECT_EQ((*mlx)->mlxLayers[0].first, "lm_head");
  EXPECT_FALSE((*mlx)->mlxLayers[0].second.quantized);
  EXPECT_EQ((*mlx)->mlxLayers[1].second.bits, 8u);
  EXPECT_EQ((*mlx)->mlxLayers[1].second.groupSize, 128);
  auto mx = parse(R"({"quantization": {"group_size": 32, "bits": 4,
      "mode": "mxfp4", "lm_head": {"group_size": 64, "bits": 8,
      "mode": "affine"}}})");
  ASSERT_TRUE(mx) << mx.status().message();
  ASSERT_TRUE(*mx);
  EXPECT_TRUE((*mx)->mlxDefault.mxfp4);
  ASSERT_EQ((*mx)->mlxLayers.size(), 1u);
  EXPECT_FALSE((*mx)->mlxLayers[0].second.mxfp4);
  EXPECT_EQ((*mx)->mlxLayers[0].second.bits, 8u);
  for (
      const char *bad : {
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "float-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 8, "type": "float",
               "symmetric": false}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "float-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 4, "type": "float"}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "float-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 8, "type": "float",
               "strategy": "block", "block_structure": [128]}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 8, "type": "float"}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "nvfp4-pack-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 4, "type": "float"}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized"}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 1}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "naive-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 4}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 4, "strategy": "group"}}}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized", "config_groups": {"W2": ["x"]}}})",
          R"({"quantization_config": {"quant_method": "compressed-tensors",
               "format": "pack-quantized", "config_groups": {"g": {
               "weights": {"num_bits": 4, "actorder": 3}}}}})",
          R"({"quantization": {"bits": 4, "group_size": 48}})",
          R"({"quantization": {"bits": 7, "group_size": 64}})",
          R"({"quantization": {"bits": 4, "group_size": 64, "mode": "nvfp4"}})",
          R"({"quantization": {"bits": 4, "group_size": 64, "mode": "mxfp4"}})",
          R"({"quantization": {"bits": 4, "group_size": 64,
               "m.q": {"bits": "4"}}})",
          R"({"quantization": 3})"}) {
    auto r = parse(bad);
    EXPECT_FALSE(r) << bad;
    if (!r)
      EXPECT_NE(r.status().message().find("c.json"), std::string::npos)
          << r.status().message();
  }
}

TEST(HfQuantConfig, Bitsandbytes) {
  auto parse = [](const std::string &text) {
    return parseHfQuantConfig(reinterpret_cast<const uint8_t *>(text.data()),
                              text.size(), "c.json");
  };
  auto c = parse(R"({"quantization_config": {"quant_method": "bitsandbytes",
      "load_in_4bit": true, "load_in_8bit": false,
      "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true}})");
  ASSERT_TRUE(c) << c.status().message();
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->method, HfQuantMethod::Bitsandbytes);
  EXPECT_EQ((*c)->bnbQuantType, "nf4");
  EXPECT_TRUE((*c)->bnbDoubleQuant);
  auto state = [](const std::string &text) {
    return parseBnbQuantState(reinterpret_cast<const uint8_t *>(text.data()),
                              text.size(), "qs");
  };
  auto s = state(R"({"quant_type": "fp4", "blocksize": 128,
      "dtype": "bfloat16", "shape": [96, 512], "nested_blocksize": 256,
      "nested_dtype": "float32", "nested_offset": 0.01234567891})");
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->quantType, "fp4");
  EXPECT_EQ(s->blocksize, 128u);
  EXPECT_EQ(s->shape, (std::vector<int64_t>{96, 512}));
  EXPECT_TRUE(s->nested);
  EXPECT_EQ(s->nestedBlocksize, 256u);
  // The double rounded to float32, as torch.tensor(float(...)) does.
  EXPECT_EQ(s->nestedOffset, float(0.01234567891));
  auto plain = state(R"({"quant_type": "nf4", "blocksize": 64,
      "dtype": "float16", "shape": [5, 13]})");
  ASSERT_TRUE(plain) << plain.status().message();
  EXPECT_FALSE(plain->nested);
  // FP4's code 8 is -0.0 in bitsandbytes' kernels.
  EXPECT_TRUE(std::signbit(bnbCodeValues("fp4")[8]));
  EXPECT_EQ(bnbCodeValues("nf4")[15], 1.0f);
  EXPECT_EQ(bnbCodeValues("int4"), nullptr);
  for (const char *bad :
       {R"({"quant_type": "int4", "blocksize": 64, "dtype": "float16",
           "shape": [4, 4]})",
        R"({"quant_type": "nf4", "blocksize": 65, "dtype": "float16",
           "shape": [4, 4]})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "int8",
           "shape": [4, 4]})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "float16",
           "shape": [4, 4, 4]})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "float16",
           "shape": [0, 4]})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "float16",
           "shape": [4, 4], "nested_offset": 0.5})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "float16",
           "shape": [4, 4], "nested_blocksize": 256, "nested_dtype":
           "float16", "nested_offset": 0.5})",
        R"({"quant_type": "nf4", "blocksize": 64, "dtype": "float16",
           "shape": [4, 4], "code": [1]})",
        R"([1])", R"({"quant_type": )"}) {
    auto r = state(bad);
    EXPECT_FALSE(r) << bad;
    if (!r)
      EXPECT_NE(r.status().message().find("qs"), std::string::npos)
          << r.status().message();
  }
  for (const char *bad :
       {R"({"quantization_config": {"quant_method": "bitsandbytes",
           "load_in_8bit": true}})",
        R"({"quantization_config": {"quant_method": "bitsandbytes",
           "load_in_4bit": true, "bnb_4bit_quant_type": "af4"}})",
        R"({"quantization_config": {"quant_method": "bitsandbytes",
           "load_in_4bit": "yes"}})"}) {
    auto r = parse(bad);
    EXPECT_FALSE(r) << bad;
  }
}

} // namespace
