//===- Convert.cpp - vmpack.convert: vmpack-convert as a function ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Binds tools::convertFiles (include/vmpack/Tools/Convert.h), the function
// vmpack-convert's command line calls, so that Python's vmpack.convert
// writes the bytes the tool writes. In builds with MLIR it reads and writes
// .mlir / .mlirbc through the tools layer's MLIR files, as the tool does.
// Options that do not apply are refused by checkConvertOptions
// (vmpack.InvalidArgumentError); a failed conversion raises the class of
// its status with its message and writes nothing. Runs without the GIL.
//
//===----------------------------------------------------------------------===//

#include "Convert.h"

#include "RaiseStatus.h"
#include "vmpack/Formats/Shards.h"
#include "vmpack/Pack/Encoding.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Tools/Convert.h"
#include "vmpack/Tools/ToolSupport.h"
#ifdef VMPACK_PYTHON_HAS_COMPILER
#include "vmpack/Tools/MlirFiles.h"
#endif

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace vmpack;

namespace {

[[noreturn]] void raise(const py::module_ &m, const archive::Status &status) {
  python::raiseStatus(m, status);
}

[[noreturn]] void invalid(const py::module_ &m, const std::string &message) {
  raise(m, archive::Status::invalidArgument(message));
}

} // namespace

void vmpack::python::registerConvert(py::module_ &m) {
  m.def(
      "convert",
      [m](const std::vector<std::string> &inputs, const std::string &output,
          const py::dict &kw) {
        tools::ConvertOptions options;
        options.inputs = inputs;
        options.output = output;
        auto text = [&](const char *key) -> std::optional<std::string> {
          if (!kw.contains(key) || kw[key].is_none())
            return std::nullopt;
          return py::cast<std::string>(kw[key]);
        };
        auto flag = [&](const char *key) {
          return kw.contains(key) && py::cast<bool>(kw[key]);
        };
        options.from = text("from_format");
        options.to = text("format");
        if (kw.contains("alignment") && !kw["alignment"].is_none()) {
          int64_t a = py::cast<int64_t>(kw["alignment"]);
          if (a < 1 || a > (int64_t(1) << 30) || (a & (a - 1)))
            invalid(m, "vmpack.convert: alignment=" + std::to_string(a) +
                           " is not a power of two up to 2^30");
          options.alignment = uint32_t(a);
        }
        if (kw.contains("threads") && !kw["threads"].is_none()) {
          int64_t n = py::cast<int64_t>(kw["threads"]);
          if (n < 0 || n > int64_t(tools::kMaxThreads))
            invalid(m, "vmpack.convert: threads=" + std::to_string(n) +
                           " is not from 0 (all cores) to " +
                           std::to_string(tools::kMaxThreads));
          options.threads = unsigned(n);
        }
        if (kw.contains("max_shard_size") && !kw["max_shard_size"].is_none()) {
          py::object v = kw["max_shard_size"];
          if (py::isinstance<py::int_>(v)) {
            int64_t n = py::cast<int64_t>(v);
            if (n <= 0)
              invalid(m, "vmpack.convert: max_shard_size must be positive");
            options.maxShardSize = uint64_t(n);
          } else {
            options.maxShardSize =
                formats::parseShardSize(py::cast<std::string>(v));
            if (!options.maxShardSize)
              invalid(m, "vmpack.convert: max_shard_size needs a positive "
                         "size such as 5G, 500MB, 2GiB or 1000000");
          }
        }
        options.moduleName = text("module_name");
        if (std::optional<std::string> e = text("encoding")) {
          options.encoding = parseEncoding(*e);
          if (!options.encoding)
            invalid(m, "vmpack.convert: encoding='" + *e +
                           "' is not one of 'packed', 'word', 'byte'");
        }
        options.dense = flag("dense");
        options.dequantSplit = flag("dequant_split");
        if (std::optional<std::string> d = text("dequantize")) {
          options.dequantize = quant::parseFloatType(*d);
          if (!options.dequantize)
            invalid(m, "vmpack.convert: dequantize takes f32, f16 or bf16, "
                       "not '" +
                           *d + "'");
        }
        options.scheme = text("scheme");
        options.quant = text("quant");
        options.allowRounding = flag("allow_rounding");
        options.tokenizerPre = text("tokenizer_pre");
        options.noVocab = flag("no_vocab");
        options.onnxTemplate = text("onnx_template");
        options.onnxInline = flag("onnx_inline");
#ifdef VMPACK_PYTHON_HAS_COMPILER
        options.mlir = &tools::mlirFiles();
#endif
        std::vector<std::string> warnings;
        options.warning = [&](const std::string &w) { warnings.push_back(w); };
        if (archive::StatusOr<tools::Format> to =
                tools::checkConvertOptions(options);
            !to)
          raise(m, to.status());
        std::optional<archive::StatusOr<tools::ConvertResult>> converted;
        {
          py::gil_scoped_release release;
          converted.emplace(tools::convertFiles(options));
        }
        if (!*converted)
          raise(m, converted->status());
        const tools::ConvertResult &result = **converted;
        py::dict out;
        out["format"] = tools::formatName(result.format);
        out["files"] = result.files;
        out["tensors"] = result.tensors;
        out["input_files"] = result.inputFiles;
        out["summary"] = result.summary;
        out["warnings"] = warnings;
        return out;
      },
      py::arg("inputs"), py::arg("output"), py::arg("options"));
}
