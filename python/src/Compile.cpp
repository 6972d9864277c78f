//===- Compile.cpp - vmpack.compile: MLIR in, module archive out ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What tools/vmpack-compile does, as a function: parse the input (bytecode
// used in place), then write the output in the format its extension (or
// `format`) names, through the same lib/Target functions as the tool, so
// that the bytes are the tool's: a module archive (serializeModule), an
// IREE parameter archive after hoisting the constants (exportParameters),
// or a safetensors or GGUF file of the constants (exportWeightFile); with
// `emit_program`, the program that remains too. Runs without the GIL.
// Diagnostics are collected and raised as vmpack.CompileError; on any error
// nothing is written.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include <pybind11/stl.h>

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/InputFile.h"
#include "vmpack/Target/IrpaExport.h"
#include "vmpack/Target/ModuleSerializer.h"
#include "vmpack/Target/WeightsModule.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/MlirToolSupport.h"
#include "vmpack/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <unistd.h>

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

/// The options of vmpack-compile that are not SerializeOptions.
struct OutputRequest {
  std::string format; // vmpk, irpa, safetensors or gguf
  std::string emitProgram;
  std::string parameterScope;
  uint64_t parameterMinimumSize = 0;
};

/// Returns "" on success, else the diagnostics (or the I/O error).
std::string compileFile(const std::string &input, const std::string &output,
                        mlir::vmpack_compiler::SerializeOptions options,
                        const OutputRequest &request, bool allowUnregistered) {
  using namespace mlir;
  DialectRegistry registry;
  registerAllDialects(registry);
  registry.insert<mlir::vmpack_compiler::VMPackDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects(allowUnregistered);
  context.printOpOnDiagnostic(false); // as vmpack-compile

  std::string diagnosticText;
  llvm::raw_string_ostream os(diagnosticText);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  mlir::vmpack_compiler::InputDiagnosticHandler diagnostics(*sourceMgr,
                                                            &context, os);
  // As vmpack-compile: a diagnostic without a location is
  // "vmpack.compile: error: ...", never "<unknown>:0: error: ...".
  vmpack::tools::ToolDiagnostics toolDiagnostics(&context, "vmpack.compile",
                                                 /*quiet=*/false, &os);
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
  // As vmpack-compile: no output may be the input (guarded while the
  // source manager holds it) or the other output; refused before anything
  // is written, without a location.
  {
    namespace fileio = vmpack::archive::detail;
    if (vmpack::archive::Status s = fileio::checkNotAnInput(output); !s)
      return "vmpack.compile: error: " + s.message();
    if (!request.emitProgram.empty()) {
      if (vmpack::archive::Status s =
              fileio::checkNotAnInput(request.emitProgram, "emit_program file");
          !s)
        return "vmpack.compile: error: " + s.message();
      if (fileio::sameDestination(request.emitProgram, output))
        return "vmpack.compile: error: emit_program '" + request.emitProgram +
               "' names the output '" + output +
               "'; write the program to another file";
    }
  }
  if (options.moduleName.empty())
    if (std::optional<StringRef> name = module->getSymName())
      options.moduleName = name->str();
  if (options.moduleName.empty())
    options.moduleName = llvm::sys::path::stem(input).str();
  options.zeroCopy = &zeroCopy;

  DefaultTimingManager timingManager;
  TimingScope timing = timingManager.getRootScope();
  auto failure = [&](const std::string &path) {
    os.flush();
    return diagnosticText.empty() ? "cannot write " + path : diagnosticText;
  };
  if (request.format == "safetensors" || request.format == "gguf") {
    mlir::vmpack_compiler::WeightFileExportOptions weights;
    weights.format = request.format == "gguf"
                         ? mlir::vmpack_compiler::WeightFileFormat::Gguf
                         : mlir::vmpack_compiler::WeightFileFormat::Safetensors;
    weights.zeroCopy = &zeroCopy;
    weights.collect = options.collect;
    weights.input = sourceMgr->getMemoryBuffer(1)->getBuffer();
    int fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
    weights.inputFd = fd;
    LogicalResult exported =
        mlir::vmpack_compiler::exportWeightFile(*module, output, weights);
    if (fd >= 0)
      ::close(fd);
    return failed(exported) ? failure(output) : "";
  }
  LogicalResult written = success();
  if (request.format == "irpa") {
    // As vmpack-compile: tensor constants become globals first.
    PassManager hoist(&context);
    mlir::vmpack_compiler::HoistConstantsPassOptions hoistOptions;
    hoistOptions.minElements = 1;
    hoist.addPass(
        mlir::vmpack_compiler::createHoistConstantsPass(hoistOptions));
    if (failed(hoist.run(*module)))
      return failure(output);
    mlir::vmpack_compiler::IrpaExportOptions irpa;
    irpa.scope = request.parameterScope;
    irpa.minimumSize = request.parameterMinimumSize;
    irpa.threads = options.threads;
    irpa.fsync = options.fsync;
    irpa.zeroCopy = options.zeroCopy;
    irpa.collect = options.collect;
    written =
        mlir::vmpack_compiler::exportParameters(*module, output, irpa, timing);
  } else {
    written = mlir::vmpack_compiler::serializeModule(*module, output, options,
                                                     timing);
  }
  if (failed(written))
    return failure(output);
  if (!request.emitProgram.empty() &&
      failed(mlir::vmpack_compiler::writeProgramFile(*module,
                                                     request.emitProgram)))
    return failure(request.emitProgram);
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
         const std::string &encoding, std::optional<int64_t> alignment,
         unsigned threads, const std::string &moduleName,
         const std::string &dedup, bool zeroFillElided, bool stripDebugInfo,
         bool allowUnregistered, bool fsync, const std::string &format,
         const std::string &emitProgram, const std::string &parameterScope,
         uint64_t parameterMinimumSize) {
        auto invalid = [&](const std::string &message) {
          PyErr_SetString(invalidArgumentClass, message.c_str());
          throw py::error_already_set();
        };
        // "" and None: not given (vmpack-compile's defaults: packed, 64,
        // resources); given for an output they do not apply to, an error.
        mlir::vmpack_compiler::SerializeOptions options;
        std::optional<vmpack::Encoding> e =
            parseEncoding(encoding.empty() ? "packed" : encoding);
        if (!e)
          invalid("vmpack.compile: encoding='" + encoding +
                  "' is not one of 'packed', 'word', 'byte'");
        std::optional<mlir::vmpack_compiler::Dedup> d =
            parseDedup(dedup.empty() ? "resources" : dedup);
        if (!d)
          invalid("vmpack.compile: dedup='" + dedup +
                  "' is not one of 'off', 'resources', 'content'");
        if (alignment && (*alignment < 1 || !vmpack::archive::isValidAlignment(
                                                uint64_t(*alignment))))
          invalid("vmpack.compile: alignment=" + std::to_string(*alignment) +
                  " is not a power of two from 1 to 65536");
        OutputRequest request;
        // The format from the tools' one table, as vmpack-compile chooses
        // it: `format`, else the output's extension; one that names nothing
        // vmpack-compile writes is an error listing what it writes.
        vmpack::archive::StatusOr<vmpack::tools::Format> chosen =
            vmpack::tools::outputFormat(
                output,
                format.empty() ? std::nullopt
                               : std::optional<std::string>(format),
                "format", vmpack::tools::Tool::Compile);
        if (!chosen)
          invalid("vmpack.compile: " + chosen.status().message());
        request.format = vmpack::tools::formatName(*chosen);
        bool weightFile =
            request.format == "safetensors" || request.format == "gguf";
        if (weightFile && !emitProgram.empty())
          invalid("vmpack.compile: emit_program is for .vmpk and .irpa "
                  "outputs; a " +
                  request.format + " file holds no program to refer to");
        if (request.format != "irpa" &&
            (!parameterScope.empty() || parameterMinimumSize != 0))
          invalid("vmpack.compile: parameter_scope and "
                  "parameter_minimum_size apply to .irpa outputs only");
        // As vmpack-compile: the archive's options are for .vmpk outputs.
        const char *vmpkOnly = !moduleName.empty() ? "module_name"
                               : !encoding.empty() ? "encoding"
                               : alignment         ? "alignment"
                               : !dedup.empty()    ? "dedup"
                                                   : nullptr;
        if (request.format != "vmpk" && vmpkOnly)
          invalid(std::string("vmpack.compile: ") + vmpkOnly +
                  " does not apply to " +
                  vmpack::tools::formatInfo(*chosen).description + " (" +
                  request.format + "): it is for vmpk outputs");
        if (weightFile && fsync)
          invalid("vmpack.compile: fsync does not apply to " +
                  std::string(vmpack::tools::formatInfo(*chosen).description) +
                  " (" + request.format + "): it is for vmpk and irpa outputs");
        request.emitProgram = emitProgram;
        request.parameterScope = parameterScope;
        request.parameterMinimumSize = parameterMinimumSize;
        options.encoding = *e;
        options.dedup = *d;
        options.alignment = alignment ? uint32_t(*alignment) : 64;
        options.threads = threads;
        options.moduleName = moduleName;
        options.collect.zeroFillElided = zeroFillElided;
        options.stripDebugInfo = stripDebugInfo;
        options.fsync = fsync;
        options.producer = "vmpack-compile";
        std::string error;
        {
          py::gil_scoped_release release;
          error =
              compileFile(input, output, options, request, allowUnregistered);
        }
        while (!error.empty() && error.back() == '\n')
          error.pop_back();
        if (!error.empty()) {
          // Diagnostics quote the input, which may not be UTF-8 (a binary
          // file given as MLIR text): escape such bytes, so that the
          // exception always carries the message (PyErr_SetString would
          // raise it without arguments).
          PyObject *message = PyUnicode_DecodeUTF8(
              error.data(), py::ssize_t(error.size()), "backslashreplace");
          if (!message)
            throw py::error_already_set();
          PyErr_SetObject(compileErrorClass, message);
          Py_DECREF(message);
          throw py::error_already_set();
        }
      },
      py::arg("input"), py::arg("output"), py::arg("encoding"),
      py::arg("alignment"), py::arg("threads"), py::arg("module_name"),
      py::arg("dedup"), py::arg("zero_fill_elided"), py::arg("strip_debuginfo"),
      py::arg("allow_unregistered_dialect"), py::arg("fsync"),
      py::arg("format"), py::arg("emit_program"), py::arg("parameter_scope"),
      py::arg("parameter_minimum_size"));
}
