//===- CompileTest.cpp - The compiler end to end --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Through the code vmpack-compile runs (parseInputFile + serializeModule):
// for every element type of docs/packing.md and every encoding, each
// segment holds exactly the reference implementation's bytes; text,
// bytecode and pass-packed inputs give the same segments; any thread count
// gives the same file; and rebuilding the module gives the input back.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/ArchiveReader.h"
#include "vmpack/Archive/MappedFile.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/ModuleRebuilder.h"
#include "vmpack/Target/ModuleSerializer.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

using namespace mlir;
using vmpack::Encoding;
namespace archive = vmpack::archive;

namespace {

constexpr Encoding kEncodings[] = {Encoding::Packed, Encoding::Word,
                                   Encoding::Byte};

void registerDialects(MLIRContext &context) {
  DialectRegistry registry;
  registry
      .insert<arith::ArithDialect, func::FuncDialect,
              ml_program::MLProgramDialect, memref::MemRefDialect,
              tensor::TensorDialect, mlir::vmpack_compiler::VMPackDialect>();
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

class CompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("vmpack-compile-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(StringRef name) {
    SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }

  void writeFile(const std::string &file, StringRef contents) {
    std::ofstream out(file, std::ios::binary);
    out.write(contents.data(), std::streamsize(contents.size()));
  }

  /// Text module -> bytecode file.
  void writeBytecode(StringRef text, const std::string &file,
                     bool packFirst = false) {
    MLIRContext context;
    registerDialects(context);
    auto module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    if (packFirst) {
      PassManager pm(&context);
      pm.addPass(mlir::vmpack_compiler::createPackSubByteConstantsPass());
      ASSERT_TRUE(succeeded(pm.run(*module)));
    }
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    ASSERT_TRUE(succeeded(writeBytecodeToFile(*module, os)));
    writeFile(file, bytes);
  }

  /// Runs what vmpack-compile runs.
  bool compile(const std::string &input, const std::string &output,
               Encoding encoding, unsigned threads = 1) {
    MLIRContext context;
    registerDialects(context);
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
    std::string error;
    auto module = mlir::vmpack_compiler::parseInputFile(
        input, sourceMgr, &context, zeroCopy, error);
    if (!module)
      return false;
    mlir::vmpack_compiler::SerializeOptions options;
    options.encoding = encoding;
    options.threads = threads;
    options.zeroCopy = &zeroCopy;
    DefaultTimingManager timing;
    TimingScope root = timing.getRootScope();
    return succeeded(
        mlir::vmpack_compiler::serializeModule(*module, output, options, root));
  }

  std::string readFile(const std::string &file) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    EXPECT_TRUE(bool(buffer));
    return buffer ? (*buffer)->getBuffer().str() : "";
  }

  SmallString<64> dir;
};

struct TypeCase {
  const char *mlirType;
  uint32_t bitWidth;
  unsigned scalarsPerElement;
};

const TypeCase kTypes[] = {
    {"i1", 1, 1},          {"i2", 2, 1},          {"i3", 3, 1},
    {"i4", 4, 1},          {"si4", 4, 1},         {"ui4", 4, 1},
    {"i5", 5, 1},          {"i7", 7, 1},          {"i8", 8, 1},
    {"i9", 9, 1},          {"i12", 12, 1},        {"i16", 16, 1},
    {"i17", 17, 1},        {"i33", 33, 1},        {"i63", 63, 1},
    {"i64", 64, 1},        {"index", 64, 1},      {"f4E2M1FN", 4, 1},
    {"f6E2M3FN", 6, 1},    {"f6E3M2FN", 6, 1},    {"f8E5M2", 8, 1},
    {"f8E4M3FN", 8, 1},    {"f8E8M0FNU", 8, 1},   {"bf16", 16, 1},
    {"f16", 16, 1},        {"tf32", 19, 1},       {"f32", 32, 1},
    {"f64", 64, 1},        {"complex<i4>", 4, 2}, {"complex<f16>", 16, 2},
    {"complex<i1>", 1, 2},
};

std::string toHex(const std::vector<uint8_t> &bytes) {
  static const char digits[] = "0123456789ABCDEF";
  std::string hex = "0x";
  for (uint8_t b : bytes) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

TEST_F(CompileTest, EveryTypeAndEncodingMatchesTheReference) {
  std::mt19937_64 rng(7);
  for (const TypeCase &t : kTypes) {
    constexpr int64_t kElements = 37;
    uint64_t numScalars = kElements * t.scalarsPerElement;
    Encoding storage =
        vmpack::mlirStorageEncoding(t.bitWidth, t.scalarsPerElement == 2);
    std::vector<uint8_t> raw(
        *vmpack::encodedSize(storage, t.bitWidth, numScalars));
    for (auto &b : raw)
      b = uint8_t(rng());
    std::string type = "tensor<37x" + std::string(t.mlirType) + ">";
    std::string text = "ml_program.global private @g(dense<\"" + toHex(raw) +
                       "\"> : " + type + ") : " + type + "\n";
    std::string textFile = path("in.mlir"), bcFile = path("in.mlirbc");
    writeFile(textFile, text);
    writeBytecode(text, bcFile);
    for (Encoding encoding : kEncodings) {
      SCOPED_TRACE(std::string(t.mlirType) + " " +
                   vmpack::encodingName(encoding));
      std::vector<uint8_t> expected(
          *vmpack::encodedSize(encoding, t.bitWidth, numScalars));
      vmpack::reference::convert(storage, encoding, t.bitWidth, raw.data(),
                                 expected.data(), numScalars);
      for (const std::string &input : {textFile, bcFile}) {
        std::string out = path("out.vmpk");
        ASSERT_TRUE(compile(input, out, encoding)) << input;
        auto file = archive::MappedFile::open(out);
        ASSERT_TRUE(file.isOk());
        auto reader =
            archive::ArchiveReader::open((*file)->data(), (*file)->size());
        ASSERT_TRUE(reader.isOk()) << reader.status().message();
        ASSERT_EQ((*reader)->numSegments(), 1u);
        const archive::SegmentInfo &info = (*reader)->segment(0);
        EXPECT_EQ(info.name, "g");
        EXPECT_EQ(info.mlirType, type);
        EXPECT_EQ(info.encoding, encoding);
        ASSERT_EQ(info.length, expected.size());
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(),
                               (*reader)->segmentData(0)))
            << input;
      }
    }
  }
}

TEST_F(CompileTest, TextBytecodeAndPassPackedInputsGiveTheSameSegments) {
  const char *text = R"mlir(
    ml_program.global private @w(dense<"0x0102030405060708090A0B0C0D0E0F00F1"> : tensor<17xi4>) : tensor<17xi4>
    ml_program.global private @b(dense<[true, false, true, true, false, false, false, false, true, true]> : tensor<10xi1>) : tensor<10xi1>
    ml_program.global private @s(dense<5> : tensor<9xi3>) : tensor<9xi3>
    ml_program.global private @h(dense<[1.0, 2.0, 3.0]> : tensor<3xf16>) : tensor<3xf16>
  )mlir";
  writeFile(path("in.mlir"), text);
  writeBytecode(text, path("in.mlirbc"));
  writeBytecode(text, path("packed.mlirbc"), /*packFirst=*/true);
  for (Encoding encoding : kEncodings) {
    std::vector<std::string> outputs;
    for (const char *input : {"in.mlir", "in.mlirbc", "packed.mlirbc"}) {
      std::string out = path(std::string(input) + ".vmpk");
      ASSERT_TRUE(compile(path(input), out, encoding)) << input;
      outputs.push_back(out);
    }
    // Segment bytes (not whole files: the programs differ) are equal.
    std::vector<std::vector<std::string>> segments;
    for (const std::string &out : outputs) {
      auto file = archive::MappedFile::open(out);
      ASSERT_TRUE(file.isOk());
      auto reader =
          archive::ArchiveReader::open((*file)->data(), (*file)->size());
      ASSERT_TRUE(reader.isOk()) << reader.status().message();
      std::vector<std::string> bytes;
      for (size_t i = 0; i < (*reader)->numSegments(); ++i) {
        const auto &info = (*reader)->segment(i);
        bytes.push_back(info.name + ":" + info.mlirType + ":" +
                        std::string(reinterpret_cast<const char *>(
                                        (*reader)->segmentData(i)),
                                    info.length));
      }
      segments.push_back(bytes);
    }
    EXPECT_EQ(segments[0], segments[1]) << vmpack::encodingName(encoding);
    EXPECT_EQ(segments[0], segments[2]) << vmpack::encodingName(encoding);
    EXPECT_EQ(segments[0].size(), 4u);
  }
}

TEST_F(CompileTest, OutputIsTheSameForAnyThreadCount) {
  // Several chunks per segment: 3 Mi i4 elements -> 1.5 MiB packed.
  std::vector<uint8_t> raw(3 << 20);
  std::mt19937_64 rng(11);
  for (auto &b : raw)
    b = uint8_t(rng() & 15);
  std::string text = "ml_program.global private @big(dense<\"" + toHex(raw) +
                     "\"> : tensor<3145728xi4>) : tensor<3145728xi4>\n"
                     "ml_program.global private @odd(dense<\"0x0102\"> : "
                     "tensor<2xi7>) : tensor<2xi7>\n";
  writeBytecode(text, path("in.mlirbc"));
  for (Encoding encoding : kEncodings) {
    ASSERT_TRUE(compile(path("in.mlirbc"), path("one.vmpk"), encoding, 1));
    ASSERT_TRUE(compile(path("in.mlirbc"), path("two.vmpk"), encoding, 2));
    ASSERT_TRUE(compile(path("in.mlirbc"), path("all.vmpk"), encoding, 0));
    std::string one = readFile(path("one.vmpk"));
    EXPECT_EQ(one, readFile(path("two.vmpk")));
    EXPECT_EQ(one, readFile(path("all.vmpk")));
  }
}

TEST_F(CompileTest, RebuildGivesTheInputBack) {
  const char *text = R"mlir(
module @m {
  ml_program.global private @w(dense<[[1, -2, 3], [4, 5, -8]]> : tensor<2x3xi4>) : tensor<2x3xi4>
  ml_program.global private @s(dense<-1> : tensor<9xi3>) : tensor<9xi3>
  ml_program.global private @r(dense_resource<blob> : tensor<3xi4>) : tensor<3xi4>
  ml_program.global private mutable @x(dense<[true, false, true]> : tensor<3xi1>) : tensor<3xi1>
  memref.global "private" constant @m : memref<2xi8> = dense<[7, 8]>
  func.func @f() -> (tensor<2x3xi4>, tensor<5xf16>, tensor<2xcomplex<i4>>) {
    %0 = ml_program.global_load_const @w : tensor<2x3xi4>
    %1 = arith.constant dense<[1.0, 2.5, -3.0, 0.0, 6.0]> : tensor<5xf16>
    %2 = arith.constant dense<[(1, -1), (2, 7)]> : tensor<2xcomplex<i4>>
    %3 = arith.constant dense<[(true, false), (false, true), (true, true)]> : tensor<3xcomplex<i1>>
    %4 = arith.constant dense<(true, false)> : tensor<5xcomplex<i1>>
    return %0, %1, %2 : tensor<2x3xi4>, tensor<5xf16>, tensor<2xcomplex<i4>>
  }
}
{-# dialect_resources: { builtin: { blob: "0x08000000010203" } } #-}
)mlir";
  std::string expected;
  {
    MLIRContext context;
    registerDialects(context);
    auto module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    llvm::raw_string_ostream os(expected);
    module->print(os);
  }
  writeFile(path("in.mlir"), text);
  writeBytecode(text, path("packed.mlirbc"), /*packFirst=*/true);
  // The comparison below is only as good as the printed text: make sure it
  // holds the constants themselves.
  ASSERT_NE(expected.find("dense<[[1, -2, 3], [4, 5, -8]]>"), std::string::npos)
      << expected;
  ASSERT_NE(expected.find("blob: \"0x08000000010203\""), std::string::npos)
      << expected;
  ASSERT_NE(expected.find("dense<[(1,-1), (2,7)]>"), std::string::npos)
      << expected;
  std::string expectedPacked;
  {
    MLIRContext context;
    registerDialects(context);
    auto module = parseSourceFile<ModuleOp>(path("packed.mlirbc"), &context);
    ASSERT_TRUE(module);
    llvm::raw_string_ostream os(expectedPacked);
    module->print(os);
  }
  for (Encoding encoding : kEncodings) {
    for (auto [input, want] :
         {std::pair{std::string("in.mlir"), &expected},
          {std::string("packed.mlirbc"), &expectedPacked}}) {
      ASSERT_TRUE(compile(path(input), path("out.vmpk"), encoding));
      auto file = archive::MappedFile::open(path("out.vmpk"));
      ASSERT_TRUE(file.isOk());
      auto reader =
          archive::ArchiveReader::open((*file)->data(), (*file)->size());
      ASSERT_TRUE(reader.isOk()) << reader.status().message();
      MLIRContext context;
      registerDialects(context);
      OwningOpRef<ModuleOp> rebuilt =
          mlir::vmpack_compiler::rebuildModule(**reader, &context);
      ASSERT_TRUE(rebuilt);
      std::string got;
      llvm::raw_string_ostream os(got);
      rebuilt->print(os);
      EXPECT_EQ(got, *want) << input << " " << vmpack::encodingName(encoding);
    }
  }
}

} // namespace
