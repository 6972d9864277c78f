//===- Onnx.h - ONNX models: their tensors read and written --------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// An .onnx file is a protobuf ModelProto (onnx/onnx.proto). vmpack reads its
// tensors without a generated message class: protobuf's wire-format reader
// (google::protobuf::io::CodedInputStream) walks the mapped file, and each
// tensor's bytes stay where they are, in `raw_data` inside the model or in
// an external data file beside it, both mapped. Only the typed fields
// (`float_data`, `int32_data`, ...), which hold varints or need repacking,
// are decoded into memory. docs/interop.md ("ONNX") specifies what is read
// and written.
//
// The tensors are the initializers of the main graph, those of every nested
// graph (If, Loop, Scan bodies: graph attributes of nodes) and the `value`
// tensors of Constant nodes, named as docs/interop.md says.
//
// Writing replaces a template model's tensors by others of the same name,
// type and shape, their bytes in an external data file at aligned offsets
// or inline; everything else of the template is copied byte for byte.
// Without a template the model is a graph of initializers only.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_ONNX_H
#define VMPACK_FORMATS_ONNX_H

#include "vmpack/Formats/Safetensors.h"
#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <map>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vmpack::formats {

/// Bounds on what a model may declare, checked before anything is
/// allocated from its numbers.
struct OnnxLimits {
  uint64_t maxTensors = 1u << 20;
  size_t maxRank = 64;
  /// Graphs inside graphs (If/Loop/Scan bodies).
  unsigned maxGraphDepth = 32;
};

/// Where an ONNX tensor's bytes are.
enum class OnnxStorage {
  /// `raw_data` inside the model: info.offset/length in the model file.
  Raw,
  /// An external data file: `location`, info.offset/length in it.
  External,
  /// A typed field (`float_data`, `int32_data`, ...), decoded into
  /// `decoded` in the layout of raw_data.
  Typed,
};

struct OnnxTensor {
  TensorInfo info;
  int32_t dataType = 0;
  OnnxStorage storage = OnnxStorage::Raw;
  std::string location;
  std::vector<uint8_t> decoded;
  /// The TensorProto's bytes in the model file (the writer replaces them).
  uint64_t protoOffset = 0, protoLength = 0;
  /// An initializer (of any graph), not a Constant node's value.
  bool initializer = true;
};

/// A node of the main graph that quantized weights are recognised from
/// (MatMulNBits, DequantizeLinear): its inputs and integer attributes.
struct OnnxNode {
  std::string opType, domain;
  std::vector<std::string> inputs;
  std::map<std::string, int64_t> ints;
};

struct OnnxModel {
  std::vector<OnnxTensor> tensors;
  std::vector<OnnxNode> nodes;
  /// ModelProto.metadata_props, in file order.
  StringMetadata metadata;
  int64_t irVersion = 0;
};

/// Parses a serialized ModelProto. Every length is checked against the
/// buffer; external data is only described (openOnnx maps and checks it).
StatusOr<OnnxModel> parseOnnx(const uint8_t *data, size_t size,
                              const OnnxLimits &limits = {});

/// Maps `path` and each external data file it names (relative to the
/// model's directory, which none may leave), and checks every tensor's
/// range against its file and the ranges against each other.
/// `model`, when given, receives the parsed model (its tensors' decoded
/// bytes moved into the WeightFile).
StatusOr<std::unique_ptr<WeightFile>> openOnnx(const std::string &path,
                                               const OnnxLimits &limits = {},
                                               OnnxModel *model = nullptr);

/// A quantized weight of a model's main graph: the codes of a
/// com.microsoft MatMulNBits node's B (2, 4 or 8 bits; value [N, K] =
/// (code - zero point) * scale per block of block_size along K), or an
/// INT4/UINT4 initializer a DequantizeLinear takes (per tensor, per axis or
/// blocked). Indices are into WeightFile::tensors; -1 for none.
struct OnnxQuantizedWeight {
  quant::QuantizedWeight weight;
  int64_t codes = -1, scales = -1, zeroPoints = -1;
  unsigned bits = 4;
  bool matMulNBits = true;
  /// MatMulNBits: zero points packed like the codes (uint8), else of the
  /// scales' type. Absent: 2^(bits-1) (MatMulNBits) or 0.
  bool packedZeroPoints = true;
  int64_t blockSize = 0;
};

/// The quantized weights of `model` (opened as `file`); errors name the
/// node and tensor whose types or shapes disagree with the operator's.
StatusOr<std::vector<OnnxQuantizedWeight>>
onnxQuantizedWeights(const OnnxModel &model, const WeightFile &file);

/// The weight as floats of `type`, [N, K] for MatMulNBits, the codes'
/// shape for DequantizeLinear, computed (in f32) as the writer asks for
/// them from `file`'s mapped bytes (which must outlive the source).
/// `threads` (0: all cores) decode each range a writer asks for, split into
/// pieces of at least 2^14 elements (quant::splitRange); the bytes are the
/// same for any number.
TensorSource onnxDequantizedSource(const OnnxQuantizedWeight &w,
                                   const WeightFile &file,
                                   quant::FloatType type, unsigned threads = 1);

struct OnnxWriteOptions {
  /// The model whose graph is written, its tensors replaced by the same-named
  /// ones given; empty: a model of initializers only.
  std::string templatePath;
  /// All tensor bytes inside the model (which must stay under 2 GiB).
  bool inlineData = false;
  /// The external data file; empty: the model's path + ".data". Written
  /// beside the model and named by its file name.
  std::string dataPath;
  /// Offsets of tensors in the external data file.
  uint32_t alignment = 4096;
  /// Without a template: ModelProto.metadata_props.
  StringMetadata metadata;
};

/// Writes `path` (and its external data file) as one OutputGroup: both
/// files appear, or neither.
Status writeOnnx(const std::string &path,
                 const std::vector<TensorSource> &tensors,
                 const OnnxWriteOptions &options);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_ONNX_H
