//===- Convert.h - vmpack-convert as a library function -----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Everything vmpack-convert does, behind one options struct, so that the
// tool and Python's vmpack.convert run the same code and write the same
// bytes. The inputs are mapped (never copied into memory as a whole), their
// tensors transformed (--dequant-split, --dequantize, the .vmpk encoding)
// and written, in input order, by the output format's writer, in place
// through a temporary file and a rename. docs/interop.md says what each
// format keeps.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_CONVERT_H
#define VMPACK_TOOLS_CONVERT_H

#include "vmpack/Formats/Gguf.h"
#include "vmpack/Formats/Tensor.h"
#include "vmpack/Pack/Encoding.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Tools/FormatTable.h"
#include "vmpack/Tools/MlirFiles.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace vmpack::tools {

struct ConvertOptions {
  /// Files or sets (a set by its first file or its index).
  std::vector<std::string> inputs;
  /// The output file; "-" for standard output.
  std::string output;
  /// --from: read every input as this format instead of by content.
  std::optional<std::string> from;
  /// --to / --format: the output's format instead of by extension.
  std::optional<std::string> to;
  /// .vmpk segment alignment (default 64), GGUF general.alignment (default:
  /// the input's, else 32), MLIR blob alignment (default 16).
  std::optional<uint32_t> alignment;
  /// Write numbered shards of at most this many bytes of tensor data.
  std::optional<uint64_t> maxShardSize;
  /// .vmpk and MLIR: the module name (default: the output's stem).
  std::optional<std::string> moduleName;
  /// .vmpk: how sub-byte elements are stored (default packed, as
  /// vmpack-compile).
  std::optional<Encoding> encoding;
  /// MLIR outputs: dense<...> instead of dense_resource blobs.
  bool dense = false;
  /// --dequant-split: --quant=planar, with Q4_0's and Q8_0's codes spelled
  /// i4 and i8 as this option always wrote them.
  bool dequantSplit = false;
  /// --dequantize: replace every ggml block tensor by a float tensor of
  /// this type (formats/DequantizeTensor.h).
  std::optional<quant::FloatType> dequantize;
  /// --threads: the threads that decode each chunk of --dequantize's
  /// floats (ggml blocks, onnxDequantizedSource, hfLinearAsFloats), 0 (all
  /// cores) to kMaxThreads; unset, one (DequantizeTensor.h says why). The
  /// output is the same for any number. Without
  /// --dequantize nothing is threaded, and it is refused.
  std::optional<unsigned> threads;
  /// --scheme: read safetensors inputs as this Hugging Face quantization
  /// scheme (gptq, gptq_v2, awq); a model directory says its own.
  std::optional<std::string> scheme;
  /// --quant (formats::parseQuantTarget): "planar" splits every ggml block
  /// tensor with a planar form into NAME.q, NAME.d, ... and records its
  /// type; "ggml" joins every planar set into the type it records; a ggml
  /// type name joins planar sets and converts every ggml block tensor into
  /// that type, exactly or refused (docs/quant.md, section 9). For Hugging
  /// Face quantized weights: a ggml type (q4_0, q4_1, q5_0, q5_1, q8_0;
  /// exact or refused), or gptq, gptq_v2, awq (their own scheme). Default
  /// for those: the ggml type hfGgmlTarget chooses for GGUF outputs, the
  /// stored tensors otherwise.
  std::optional<std::string> quant;
  /// --allow-rounding: with --quant=TYPE, a tensor that TYPE cannot hold
  /// exactly is requantized from its float32 values by ggml's reference
  /// quantizer (quant/GgmlQuantize.h) instead of refused; a warning per
  /// tensor gives the largest absolute and relative errors.
  bool allowRounding = false;
  /// A Hugging Face model folder as the input (Formats/LlamaGguf.h, GGUF
  /// output only): tokenizer.ggml.pre instead of the one its
  /// tokenizer.json implies, or no vocabulary at all.
  std::optional<std::string> tokenizerPre;
  bool noVocab = false;
  /// ONNX outputs: the model whose graph is written with its initializers
  /// replaced by the inputs' same-named tensors (--onnx-template); without
  /// it, a graph of initializers only.
  std::optional<std::string> onnxTemplate;
  /// ONNX outputs: tensor data inside the model (--onnx-inline) instead of
  /// in OUT.data beside it.
  bool onnxInline = false;
  /// MLIR's reader and writer; nullptr: MLIR files are refused.
  const MlirFiles *mlir = nullptr;
  /// Where warnings and (-v) progress go; may be empty.
  std::function<void(const std::string &)> warning;
  std::function<void(const std::string &)> progress;
};

struct ConvertResult {
  Format format = Format::Vmpk;
  /// The files written: one, or a set's in order; "<stdout>" for -o -.
  std::vector<std::string> files;
  size_t tensors = 0;
  size_t inputFiles = 0;
  /// One line per Hugging Face quantization scheme read: "gptq: 7 weights
  /// repacked exactly to Q4_0, 3 tensors passed through".
  std::vector<std::string> summary;
};

/// Checks the options alone, without touching a file: InvalidArgument (a
/// usage error) for an option that does not apply to the output format,
/// an unknown format, a missing input or output. Returns the output
/// format.
StatusOr<Format> checkConvertOptions(const ConvertOptions &options);

/// The part of checkConvertOptions about the output: its format (by
/// extension or `to`, from the one format table) and the options that
/// apply to it (alignment, maxShardSize, moduleName, encoding, dense, the
/// ONNX options). The input options are not looked at.
StatusOr<Format> checkOutputOptions(const ConvertOptions &options);

/// Writes `tensors` (in order) and `metadata` (typed pairs: GGUF keeps
/// them, the string-keyed formats hold values that are not strings under
/// "vmpack.gguf." keys) to options.output, as convertFiles writes what it
/// read: the output's format and options as checkOutputOptions checks
/// them, .vmpk tensors re-encoded to options.encoding, the format's
/// writer, a temporary file renamed into place (a set's files all at once),
/// never over a file this process has open as an input. Returns the files
/// written. Python's vmpack.save_file writes through this.
StatusOr<std::vector<std::string>>
writeTensorFile(const ConvertOptions &options,
                std::vector<formats::TensorSource> tensors,
                const formats::GgufMetadata &metadata);

/// What convertFiles does to the tensors it read, before writing them:
/// options.quant (formats::parseQuantTarget; an InvalidArgument error for a
/// value that names no target) or options.dequantSplit, with
/// options.allowRounding. "planar" splits every ggml block tensor with a
/// planar form into NAME.q, NAME.d, ... (the parts read the blocks' source
/// while the writer asks) and adds its `vmpack.planar.NAME` record to
/// `metadata`; "ggml" joins every planar set into blocks of the type its
/// record names (checked with quant::checkPlanarSet; an unrecorded set of
/// the one type it fits) and drops the record; a ggml type name joins and
/// then converts every other ggml block tensor into that type, exactly or
/// refused. Nothing else changes; a Hugging Face scheme (gptq, awq) is the
/// readers' business and changes nothing here. docs/quant.md, section 9.
/// Python's vmpack.save_file joins planar weights through this.
Status applyQuantTarget(const ConvertOptions &options,
                        std::vector<formats::TensorSource> &tensors,
                        formats::GgufMetadata &metadata);

/// Runs the conversion (checkConvertOptions first). On an error nothing is
/// written.
StatusOr<ConvertResult> convertFiles(const ConvertOptions &options);

} // namespace vmpack::tools

#endif // VMPACK_TOOLS_CONVERT_H
