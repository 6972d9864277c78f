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

struct OnnxModel {
  std::vector<OnnxTensor> tensors;
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
StatusOr<std::unique_ptr<WeightFile>> openOnnx(const std::string &path,
                                               const OnnxLimits &limits = {});

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
