//===- TextFastPathTest.cpp -----------------------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The text fast path against MLIR's own parse of the same text: random
// programs with hex literals in every context the scanner must tell apart
// (ops, generic attribute dictionaries, strings with escapes, comments,
// dialect attribute bodies, resources, splats, several literals on a line),
// parsed both ways, then printed with locations after turning the fast
// path's resources back into dense<...>: the texts must be identical.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/TextFastPath.h"

#include "vmpack/Target/ConstantCollector.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
using mlir::vmpack_compiler::parseTextWithFastHex;
using mlir::vmpack_compiler::TextFastPathStats;
using mlir::vmpack_compiler::ZeroCopyRegistry;

namespace {

DialectRegistry &registry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

/// `module` printed generically, with locations and resources.
std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().enableDebugInfo(/*enable=*/true,
                                             /*prettyForm=*/false);
  module->print(os, flags);
  return text;
}

/// MLIR's own parse, printed; empty when it fails.
std::string parsePlain(StringRef text) {
  MLIRContext context(registry());
  context.allowUnregisteredDialects();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  auto module = parseSourceString<ModuleOp>(text, &context, "input.mlir");
  return module ? print(*module) : std::string();
}

/// The fast path's parse, its resources standing for dense<...> turned
/// back into dense<...>, printed; empty when the fast path declined.
std::string parseFast(StringRef text, size_t minBytes,
                      TextFastPathStats &stats) {
  MLIRContext context(registry());
  context.allowUnregisteredDialects();
  ZeroCopyRegistry zeroCopy;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(text, "input.mlir");
  auto module = parseTextWithFastHex(buffer->getMemBufferRef(), &context,
                                     zeroCopy, minBytes, &stats);
  if (!module)
    return {};
  EXPECT_EQ(zeroCopy.size(), stats.denseLiterals);
  module->walk([&](Operation *op) {
    mlir::vmpack_compiler::replaceNestedAttributes(
        op, [&](Attribute attr) -> Attribute {
          auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
          if (!resource ||
              !zeroCopy.isZeroCopyDense(resource.getRawHandle().getKey()))
            return {};
          return DenseElementsAttr::getFromRawBuffer(
              resource.getType(), resource.getRawHandle().getBlob()->getData());
        });
  });
  return print(*module);
}

struct ElementKind {
  const char *type;
  unsigned bytes; ///< MLIR storage bytes per element (0: i1 bitmask).
};
const ElementKind kKinds[] = {
    {"i1", 0},       {"i4", 1},           {"i8", 1},          {"i12", 2},
    {"i16", 2},      {"i32", 4},          {"bf16", 2},        {"f16", 2},
    {"f32", 4},      {"f64", 8},          {"f8E4M3FN", 1},    {"f8E5M2", 1},
    {"f4E2M1FN", 1}, {"complex<f32>", 8}, {"complex<i8>", 2}, {"index", 8},
};

class Generator {
public:
  explicit Generator(unsigned seed) : rng(seed) {}

  std::string hex(size_t bytes) {
    static const char upper[] = "0123456789ABCDEF",
                      lower[] = "0123456789abcdef";
    const char *digits = rng() & 1 ? upper : lower;
    std::string text;
    for (size_t i = 0; i < 2 * bytes; ++i)
      text += digits[rng() % 16];
    return text;
  }

  /// `dense<"0x...">  : tensor<NxT>`, sometimes of the wrong length for
  /// its type, sometimes a splat (one element).
  std::string literal(std::string *typeOut = nullptr) {
    const ElementKind &kind = kKinds[rng() % std::size(kKinds)];
    unsigned count = 1 + rng() % 40;
    size_t bytes = kind.bytes ? size_t(count) * kind.bytes : (count + 7) / 8;
    unsigned form = rng() % 10;
    if (form == 0 && kind.bytes)
      bytes = kind.bytes; // Splat.
    std::string space = rng() % 4 ? " " : "  ";
    std::string type =
        "tensor<" + std::to_string(count) + "x" + kind.type + ">";
    if (typeOut)
      *typeOut = type;
    return "dense<\"0x" + hex(bytes) + "\">" + space + ":" + space + type;
  }

  std::string program() {
    std::string text;
    std::vector<std::string> resources;
    unsigned numOps = 1 + rng() % 8;
    for (unsigned i = 0; i < numOps; ++i) {
      switch (rng() % 10) {
      case 0:
        text +=
            "%c" + std::to_string(i) + " = arith.constant " + literal() + "\n";
        break;
      case 1:
        text += "\"test.op\"() {a = " + literal() + ", b = " + literal() +
                "} : () -> ()\n";
        break;
      case 2:
        // A literal inside a string, with escapes around it.
        text += "\"test.op\"() {s = \"\\\\\\\"" + literal() +
                "\\\"\"} : () -> ()\n";
        break;
      case 3:
        text += "// " + literal() + "\n";
        break;
      case 4:
        // An unregistered dialect's attribute: its body stays text.
        text += "\"test.op\"() {o = #unknown.thing<" + literal() +
                ">} : () -> ()\n";
        break;
      case 5: {
        // Nested ops on one line, after literals.
        text += "\"test.region\"() ({ \"test.inner\"() {v = " + literal() +
                "} : () -> () \"test.after\"() {w = " + literal() +
                "} : () -> () }) : () -> ()\n";
        break;
      }
      case 6: {
        std::string key = "blob" + std::to_string(i);
        unsigned count = 1 + rng() % 40;
        text += "\"test.op\"() {r = dense_resource<" + key + "> : tensor<" +
                std::to_string(count) + "xi16>} : () -> ()\n";
        static const char *aligns[] = {"01000000", "08000000", "40000000"};
        resources.push_back(key + ": \"0x" + aligns[rng() % 3] +
                            hex(2 * count) + "\"");
        break;
      }
      case 7: {
        std::string type;
        std::string value = literal(&type);
        text += "ml_program.global private @g" + std::to_string(i) + "(" +
                value + ") : " + type + "\n";
        break;
      }
      case 9: {
        // The same literal twice: MLIR keeps one attribute for both.
        std::string value = literal();
        text += "\"test.op\"() {a = " + value + "} : () -> ()\n";
        text += "\"test.op\"() {b = " + value + "} : () -> ()\n";
        break;
      }
      case 8:
        // An attribute alias.
        text = "#alias" + std::to_string(i) + " = " + literal() + "\n" + text;
        text +=
            "\"test.op\"() {a = #alias" + std::to_string(i) + "} : () -> ()\n";
        break;
      }
    }
    if (!resources.empty()) {
      text += "{-#\n  dialect_resources: {\n    builtin: {\n";
      for (size_t i = 0; i < resources.size(); ++i)
        text +=
            "      " + resources[i] + (i + 1 < resources.size() ? ",\n" : "\n");
      text += "    }\n  }\n#-}\n";
    }
    return text;
  }

private:
  std::mt19937 rng;
};

TEST(TextFastPath, RandomProgramsParseAsMLIRParsesThem) {
  size_t fastParses = 0, literals = 0, blobs = 0, rejected = 0;
  for (unsigned seed = 0; seed < 400; ++seed) {
    Generator generator(seed);
    std::string text = generator.program();
    std::string plain = parsePlain(text);
    TextFastPathStats stats;
    std::string fast = parseFast(text, /*minBytes=*/4, stats);
    if (plain.empty()) {
      // MLIR rejects the text (a literal of the wrong length): so does
      // the fast path, leaving the diagnostics to MLIR.
      EXPECT_TRUE(fast.empty()) << text;
      ++rejected;
      continue;
    }
    if (fast.empty()) {
      // Declining is allowed only when there is nothing to decode.
      EXPECT_EQ(stats.fallbackReason, "no hex literal to decode") << text;
      continue;
    }
    ++fastParses;
    literals += stats.denseLiterals;
    blobs += stats.resourceBlobs;
    ASSERT_EQ(fast, plain) << "seed " << seed << "\n" << text;
  }
  // The generator reaches every path.
  EXPECT_GT(fastParses, 100u);
  EXPECT_GT(literals, 200u);
  EXPECT_GT(blobs, 20u);
  EXPECT_GT(rejected, 10u);
}

TEST(TextFastPath, LeavesSmallAndUnrecognisedLiteralsToMLIR) {
  std::string big(2 * 4096, 'A');
  std::string text =
      "%a = arith.constant dense<\"0x" + big + "\"> : tensor<4096xi8>\n" +
      "%b = arith.constant dense<\"0x0102\"> : tensor<2xi8>\n" +
      "%c = arith.constant dense < \"0x" + big + "\"> : tensor<4096xi8>\n" +
      "%d = arith.constant dense<\"0x" + big + "\"> : tensor<1xi8>\n" +
      "%e = arith.constant dense<\"0x" + big.substr(0, 2) +
      "\"> : tensor<4096xi8>\n" + "\"test.op\"() {s = \"dense<\\\"0x" + big +
      "\\\"> : tensor<4096xi8>\"} : () -> ()\n";
  // %d is the wrong length: MLIR rejects the file.
  {
    TextFastPathStats stats;
    EXPECT_TRUE(parseFast(text, 4096, stats).empty());
    EXPECT_EQ(stats.fallbackReason, "MLIR rejected the rewritten program");
  }
  size_t d = text.find("%d");
  text.erase(d, text.find('\n', d) + 1 - d);
  TextFastPathStats stats;
  std::string fast = parseFast(text, 4096, stats);
  EXPECT_EQ(stats.denseLiterals, 1u) << stats.fallbackReason;
  EXPECT_EQ(fast, parsePlain(text));
}

// Literals longer than one 2 MiB decoding step, ending on, just before and
// just after step boundaries, one right after another (so that a thread
// that decodes past a literal's end reads the next one's digits) and a
// resource blob: one thread and several give each literal's own bytes.
TEST(TextFastPath, LongLiteralsDecodeAlikeOnOneAndSeveralThreads) {
  const size_t step = size_t(2) << 20;
  const size_t sizes[] = {2 * step, step + 1, 2 * step - 1};
  std::mt19937 rng(11);
  std::vector<std::string> bytes;
  std::string text;
  static const char digits[] = "0123456789abcdef";
  auto hexOf = [&](const std::string &data) {
    std::string hex;
    hex.reserve(2 * data.size());
    for (unsigned char c : data) {
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    return hex;
  };
  for (size_t size : sizes) {
    std::string data(size, '\0');
    for (char &c : data)
      c = char(rng());
    text += "\"test.op\"() {a = dense<\"0x" + hexOf(data) + "\"> : tensor<" +
            std::to_string(size) + "xi8>} : () -> ()\n";
    bytes.push_back(std::move(data));
  }
  std::string blob(step + 3, '\0');
  for (char &c : blob)
    c = char(rng());
  text += "\"test.op\"() {r = dense_resource<blob> : tensor<" +
          std::to_string(blob.size()) + "xi8>} : () -> ()\n" +
          "{-#\n  dialect_resources: {\n    builtin: {\n      blob: \"0x" +
          "01000000" + hexOf(blob) + "\"\n    }\n  }\n#-}\n";
  bytes.push_back(blob);

  for (unsigned threads : {1u, 2u, 3u}) {
    MLIRContext context(registry());
    context.allowUnregisteredDialects();
    ZeroCopyRegistry zeroCopy;
    auto buffer = llvm::MemoryBuffer::getMemBuffer(text, "input.mlir");
    TextFastPathStats stats;
    auto module = parseTextWithFastHex(buffer->getMemBufferRef(), &context,
                                       zeroCopy, 4096, &stats, threads);
    ASSERT_TRUE(module) << stats.fallbackReason;
    EXPECT_EQ(stats.denseLiterals, 3u);
    EXPECT_EQ(stats.resourceBlobs, 1u);
    std::vector<std::string> decoded;
    module->walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs())
        if (auto resource =
                dyn_cast<DenseResourceElementsAttr>(attr.getValue()))
          decoded.emplace_back(
              resource.getRawHandle().getBlob()->getData().data(),
              resource.getRawHandle().getBlob()->getData().size());
    });
    ASSERT_EQ(decoded.size(), bytes.size()) << "threads " << threads;
    for (size_t i = 0; i < bytes.size(); ++i)
      EXPECT_TRUE(decoded[i] == bytes[i])
          << "literal " << i << ", threads " << threads;
  }
}

TEST(TextFastPath, TextNamingTheKeyPrefixIsParsedAsUsual) {
  std::string big(2 * 64, '1');
  std::string text = "%a = arith.constant dense<\"0x" + big +
                     "\"> : tensor<64xi8>\n\"test.op\"() {vmpack_hex0 = 1 "
                     ": i32} : () -> ()\n";
  TextFastPathStats stats;
  EXPECT_TRUE(parseFast(text, 16, stats).empty());
  EXPECT_NE(stats.fallbackReason.find("vmpack_hex"), std::string::npos);
}

} // namespace
