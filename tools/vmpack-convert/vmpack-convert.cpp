//===- vmpack-convert.cpp - Convert between weight file formats -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// vmpack-convert IN... -o OUT [options]
//
// The command line of tools::convertFiles (include/vmpack/Tools/Convert.h),
// which does the work, as Python's vmpack.convert does: this file parses
// the options into a ConvertOptions and reports.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/Shards.h"
#include "vmpack/Tools/Convert.h"
#include "vmpack/Tools/ToolSupport.h"

#include <cstdio>
#include <string>

#ifdef VMPACK_CONVERT_WITH_MLIR
#include "vmpack/Tools/MlirFiles.h"
#endif

using namespace vmpack;
using namespace vmpack::tools;

namespace {

const char *kUsage =
    "usage: vmpack-convert [options] IN... -o OUT\n"
    "\n"
    "Converts weight files between .vmpk, .safetensors, .gguf, .irpa, .onnx\n"
    "and MLIR (.mlir, .mlirbc). The tensors of all inputs are written to OUT "
    "in\n"
    "input order; names must be unique. Each input's format is read from\n"
    "its first bytes (MLIR text, which has none, from its .mlir name).\n"
    "A sharded input is named by its first file or its index\n"
    "(NAME-00001-of-0000N.EXT or NAME.safetensors.index.json).\n"
    "A Hugging Face model folder (config.json, safetensors, tokenizer.json)\n"
    "of LlamaForCausalLM, MistralForCausalLM or Qwen2ForCausalLM becomes a\n"
    "GGUF model llama.cpp runs: vmpack-convert MODEL_DIR -o MODEL.gguf\n"
    "(docs/llama.md).\n"
    "\n"
    "options:\n"
    "  -o OUT              the output file (written via a temporary file);\n"
    "                      - for standard output (with --to)\n"
    "  --to=FORMAT, --format=FORMAT\n"
    "                      write OUT as FORMAT (vmpk, irpa, safetensors,\n"
    "                      gguf, onnx, mlir, mlirbc) instead of by its\n"
    "                      extension\n"
    "  --from=FORMAT       read every input as FORMAT instead of by content\n"
    "  --alignment=N       .vmpk segment alignment (default 64), GGUF\n"
    "                      general.alignment (a multiple of 8; default: the\n"
    "                      input's, else 32) or MLIR blob alignment (default\n"
    "                      16); a power of two from 1 to 65536\n"
    "  --encoding=E        .vmpk: how sub-byte elements are stored: packed\n"
    "                      (default, as vmpack-compile), word or byte\n"
    "  --dense             MLIR: dense<...> values instead of dense_resource\n"
    "                      blobs\n"
    "  --module-name=NAME  the .vmpk module name (default: OUT's stem) or\n"
    "                      the MLIR module's symbol name (default: none)\n"
    "  --max-shard-size=SIZE\n"
    "                      write OUT as numbered shards of at most SIZE bytes\n"
    "                      of tensor data each (K/M/G: powers of 1000,\n"
    "                      KiB/MiB/GiB: of 1024; a larger tensor goes alone):\n"
    "                      NAME-00001-of-0000N.safetensors + NAME.safetensors\n"
    "                      .index.json, NAME-00001-of-0000N.gguf with\n"
    "                      gguf-split's split.* keys, or NAME-0000K-of-0000N\n"
    "                      .vmpk modules with vmpack.shard.* metadata\n"
    "  --dequant-split     --quant=planar, with Q4_0's and Q8_0's codes\n"
    "                      spelled i4 and i8 (as it always wrote them)\n"
    "  --dequantize[=TYPE] replace every ggml block tensor by a float tensor\n"
    "                      of TYPE (f32, the default, f16 or bf16) with its\n"
    "                      name and logical shape, rounded to nearest even;\n"
    "                      and an ONNX model's MatMulNBits and 4-bit\n"
    "                      DequantizeLinear weights, by their codes' name\n"
    "  --threads=N         threads that decode --dequantize's floats (ggml\n"
    "                      blocks, ONNX MatMulNBits and 4-bit\n"
    "                      DequantizeLinear weights, Hugging Face\n"
    "                      checkpoints' linears), 0 (all cores) to 1024\n"
    "                      (default 1); the output is the same for any N\n"
    "                      (an error without --dequantize: nothing else is\n"
    "                      threaded)\n"
    "  --scheme=NAME       read safetensors inputs as the Hugging Face\n"
    "                      quantized scheme NAME (gptq, gptq_v2, awq); a\n"
    "                      model directory (config.json) says its own\n"
    "  --quant=TARGET      planar: split every ggml block tensor NAME with\n"
    "                      a planar form into NAME.q (codes), NAME.d\n"
    "                      (scales) and, where it has them, NAME.m, NAME.sd,\n"
    "                      NAME.sm, recording its type (vmpack.planar.NAME);\n"
    "                      ggml: join every planar set back into the type it\n"
    "                      records, byte for byte; a ggml type (q4_0, q4_1,\n"
    "                      q5_0, q5_1, q8_0, iq4_nl, mxfp4, nvfp4, q2_k,\n"
    "                      q3_k, q4_k, q5_k, q6_k): join planar sets and make\n"
    "                      every quantized tensor that type, exactly, else\n"
    "                      refused naming the tensor and element\n"
    "                      (docs/quant.md). A Hugging Face checkpoint's\n"
    "                      weights become q4_0, q4_1, q5_0, q5_1 or q8_0\n"
    "                      blocks, or gptq, gptq_v2, awq,\n"
    "                      compressed-tensors, mlx or bnb-nf4 tensors (exact\n"
    "                      or refused), or with planar NAME.q (codes), NAME.d\n"
    "                      (scales), NAME.m (zero points or MLX's biases),\n"
    "                      recorded as vmpack.planar.NAME = \"group\", which\n"
    "                      a file of them is read back as (ggml: the GGUF\n"
    "                      default type). Default for those: Q4_0/Q8_0/Q4_1\n"
    "                      for GGUF outputs, as stored otherwise\n"
    "  --allow-rounding    with --quant=q4_0|q4_1|q5_0|q5_1|q8_0: requantize\n"
    "                      what is not exact with ggml's reference quantizer\n"
    "                      instead of refusing; a warning per tensor gives\n"
    "                      the largest absolute and relative errors\n"
    "  --tokenizer-pre=NAME\n"
    "                      model folder: tokenizer.ggml.pre (llama.cpp's\n"
    "                      pre-tokenizer name) instead of the one vmpack\n"
    "                      reads from tokenizer.json's pre_tokenizer\n"
    "  --no-vocab          model folder: write no vocabulary\n"
    "  --onnx-template=T   .onnx: write T's graph with its initializers (and\n"
    "                      Constants) replaced by the inputs' same-named\n"
    "                      tensors of the same type and shape; without it,\n"
    "                      a graph of initializers only\n"
    "  --onnx-inline       .onnx: tensor data inside the model (under 2 GiB)\n"
    "                      instead of in OUT.data beside it, where tensors\n"
    "                      start at multiples of --alignment (default 4096)\n"
    "  -q, --quiet         print nothing but errors\n"
    "  -v, --verbose       say what is read and written\n"
    "  --version           vmpack's version (and MLIR's)\n"
    "  -h, --help          this text\n"
    "\n"
    "An option that does not apply to OUT's format is an error.\n"
    "Exit status: 0 success, 1 an error in the work, 2 a usage error.\n";

const char *linkedMlirVersion() {
#ifdef VMPACK_CONVERT_WITH_MLIR
  return mlirVersion();
#else
  return nullptr;
#endif
}

} // namespace

int main(int argc, char **argv) {
  Reporter report("vmpack-convert");
  ConvertOptions options;
  Args args(argc, argv);
  while (args.next()) {
    std::string arg = args.current();
    std::optional<std::string> v;
    std::string missing;
    if (args.flag("-h") || args.flag("--help")) {
      std::fputs(kUsage, stdout);
      return kExitSuccess;
    } else if (args.flag("--version")) {
      std::fputs(versionText("vmpack-convert", linkedMlirVersion()).c_str(),
                 stdout);
      return kExitSuccess;
    } else if (args.flag("-q") || args.flag("--quiet")) {
      report.quiet = true;
    } else if (args.flag("-v") || args.flag("--verbose")) {
      report.verbose = true;
    } else if (args.flag("--dense")) {
      options.dense = true;
    } else if (args.flag("--dequant-split")) {
      options.dequantSplit = true;
    } else if (args.flag("--allow-rounding")) {
      options.allowRounding = true;
    } else if (args.flag("--dequantize")) {
      options.dequantize = quant::FloatType::F32;
    } else if (arg.rfind("--dequantize=", 0) == 0) {
      options.dequantize = quant::parseFloatType(arg.substr(13));
      if (!options.dequantize)
        return report.usageError("--dequantize takes f32, f16 or bf16, not '" +
                                 arg.substr(13) + "'");
    } else if (args.option("-o", v, missing)) {
      if (!v)
        return report.usageError("-o needs a file name");
      options.output = *v;
    } else if (args.option("--from", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.from = *v;
    } else if (args.option("--to", v, missing) ||
               args.option("--format", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.to = *v;
    } else if (args.option("--alignment", v, missing)) {
      std::optional<uint32_t> n = v ? parseAlignment(*v) : std::nullopt;
      if (!n)
        return report.usageError("--alignment needs " + alignmentRange() +
                                 (v ? ", got '" + *v + "'" : std::string()));
      options.alignment = *n;
    } else if (args.option("--threads", v, missing)) {
      std::optional<unsigned> n = v ? parseThreads(*v) : std::nullopt;
      if (!n)
        return report.usageError("--threads needs a number from 0 (all "
                                 "cores) to " +
                                 std::to_string(kMaxThreads) +
                                 (v ? ", got '" + *v + "'" : std::string()));
      options.threads = *n;
    } else if (args.option("--encoding", v, missing)) {
      std::optional<Encoding> e = v ? parseEncoding(*v) : std::nullopt;
      if (!e)
        return report.usageError("--encoding needs packed, word or byte" +
                                 (v ? ", got '" + *v + "'" : std::string()));
      options.encoding = *e;
    } else if (args.option("--max-shard-size", v, missing)) {
      options.maxShardSize = v ? formats::parseShardSize(*v) : std::nullopt;
      if (!options.maxShardSize)
        return report.usageError(
            "--max-shard-size needs a positive size such as 5G, 500MB, 2GiB "
            "or 1000000");
    } else if (args.option("--scheme", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.scheme = *v;
    } else if (args.option("--quant", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.quant = *v;
    } else if (args.flag("--no-vocab")) {
      options.noVocab = true;
    } else if (args.option("--tokenizer-pre", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.tokenizerPre = *v;
    } else if (args.flag("--onnx-inline")) {
      options.onnxInline = true;
    } else if (args.option("--onnx-template", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.onnxTemplate = *v;
    } else if (args.option("--module-name", v, missing)) {
      if (!v)
        return report.usageError(missing);
      options.moduleName = *v;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return report.usageError("unknown option '" + arg + "'");
    } else {
      options.inputs.push_back(arg);
    }
  }
#ifdef VMPACK_CONVERT_WITH_MLIR
  options.mlir = &mlirFiles();
#endif
  options.warning = [&](const std::string &m) { report.warning(m); };
  options.progress = [&](const std::string &m) { report.progress(m); };
  report.resultsToStderr = isStdout(options.output);

  StatusOr<Format> to = checkConvertOptions(options);
  if (!to)
    return report.usageError(to.status().message());
  StatusOr<ConvertResult> result = convertFiles(options);
  if (!result)
    return report.error(result.status().message());
  std::string what = std::to_string(result->tensors) + " tensors from " +
                     std::to_string(result->inputFiles) + " file(s), " +
                     formatName(result->format);
  for (const std::string &line : result->summary)
    report.result(line);
  if (options.maxShardSize) {
    std::string text =
        "wrote " + std::to_string(result->files.size()) + " file(s): " + what;
    for (const std::string &file : result->files)
      text += "\n  " + file;
    report.result(text);
  } else {
    report.result("wrote " + result->files.front() + ": " + what);
  }
  return kExitSuccess;
}
