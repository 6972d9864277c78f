//===- Compile.cpp - vmpack.compile: MLIR in, module archive out ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What tools/vmpack-compile does, as a function: parse the input (bytecode
// used in place), serialize its constants into a module archive written
// atomically. Runs without the GIL. Diagnostics are collected and raised
// as vmpack.CompileError; on any error nothing is written.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/ModuleSerializer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace py = pybind11;

namespace {

PyObject *compileErrorClass;
PyObject *invalidArgumentClass;

std::optional<vmpack::Encoding> parseEncoding(const std::string &name) {
  if (name == "packed")
    return vmpack::Encoding::Packed;
  if (name == "word")
    return vmpack::Encoding::Word;
  if (name == "byte")
    return vmpack::Encoding::Byte;
  return std::nullopt;
}

std::optional<mlir::vmpack_compiler::Dedup>
parseDedup(const std::string &name) {
  if (name == "off")
    return mlir::vmpack_compiler::Dedup::Off;
  if (name == "resources")
    return mlir::vmpack_compiler::Dedup::Resources;
  if (name == "content")
    return mlir::vmpack_compiler::Dedup::Content;
  return std::nullopt;
}

/// Returns "" on success, else the diagnostics (or the I/O error).
std::string compileFile(const std::string &input, const std::string &output,
                        mlir::vmpack_compiler::SerializeOptions options,
                        bool allowUnregistered) {
  using namespace mlir;
  DialectRegistry registry;
  registerAllDialects(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects(allowUnregistered);

  std::string diagnosticText;
  llvm::raw_string_ostream os(diagnosticText);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  mlir::vmpack_compiler::InputDiagnosticHandler diagnostics(*sourceMgr,
                                                            &context, os);
  mlir::vmpack_compiler::ZeroCopyRegistry zeroCopy;
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = mlir::vmpack_compiler::parseInputFile(
      input, sourceMgr, &context, zeroCopy, errorMessage);
  if (!module) {
    os.flush();
    if (!errorMessage.empty())
      return errorMessage;
    return diagnosticText.empty() ? "cannot parse " + input : diagnosticText;
  }
  if (options.moduleName.empty())
    if (std::optional<StringRef> name = module->getSymName())
      options.moduleName = name->str();
  if (options.moduleName.empty())
    options.moduleName = llvm::sys::path::stem(input).str();
  options.zeroCopy = &zeroCopy;

  DefaultTimingManager timingManager;
  TimingScope timing = timingManager.getRootScope();
  if (failed(mlir::vmpack_compiler::serializeModule(*module, output, options,
                                                    timing))) {
    os.flush();
    return diagnosticText.empty() ? "cannot write " + output : diagnosticText;
  }
  return "";
}

} // namespace

void vmpack::python::registerCompile(py::module_ &m) {
  m.attr("HAS_COMPILER") = true;
  compileErrorClass = PyErr_NewExceptionWithDoc(
      "vmpack.CompileError",
      "vmpack.compile failed; the message holds the compiler's diagnostics "
      "(file:line:col: error: ...). Nothing was written.",
      m.attr("Error").ptr(), nullptr);
  m.add_object("CompileError", py::handle(compileErrorClass));
  invalidArgumentClass = m.attr("InvalidArgumentError").ptr();

  m.def(
      "compile",
      [](const std::string &input, const std::string &output,
         const std::string &encoding, uint32_t alignment, unsigned threads,
         const std::string &moduleName, const std::string &dedup,
         bool zeroFillElided, bool stripDebugInfo, bool allowUnregistered,
         bool fsync) {
        auto invalid = [&](const std::string &message) {
          PyErr_SetString(invalidArgumentClass, message.c_str());
          throw py::error_already_set();
        };
        mlir::vmpack_compiler::SerializeOptions options;
        std::optional<vmpack::Encoding> e = parseEncoding(encoding);
        if (!e)
          invalid("vmpack.compile: encoding='" + encoding +
                  "' is not one of 'packed', 'word', 'byte'");
        std::optional<mlir::vmpack_compiler::Dedup> d = parseDedup(dedup);
        if (!d)
          invalid("vmpack.compile: dedup='" + dedup +
                  "' is not one of 'off', 'resources', 'content'");
        if (alignment < 1 || alignment > 65536 ||
            (alignment & (alignment - 1)) != 0)
          invalid("vmpack.compile: alignment=" + std::to_string(alignment) +
                  " is not a power of two between 1 and 65536");
        options.encoding = *e;
        options.dedup = *d;
        options.alignment = alignment;
        options.threads = threads;
        options.moduleName = moduleName;
        options.collect.zeroFillElided = zeroFillElided;
        options.stripDebugInfo = stripDebugInfo;
        options.fsync = fsync;
        options.producer = "vmpack-compile";
        std::string error;
        {
          py::gil_scoped_release release;
          error = compileFile(input, output, options, allowUnregistered);
        }
        if (!error.empty()) {
          PyErr_SetString(compileErrorClass, error.c_str());
          throw py::error_already_set();
        }
      },
      py::arg("input"), py::arg("output"), py::arg("encoding"),
      py::arg("alignment"), py::arg("threads"), py::arg("module_name"),
      py::arg("dedup"), py::arg("zero_fill_elided"), py::arg("strip_debuginfo"),
      py::arg("allow_unregistered_dialect"), py::arg("fsync"));
}
