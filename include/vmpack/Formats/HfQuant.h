//===- HfQuant.h - Hugging Face quantized checkpoints ---------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// A Hugging Face model directory (config.json with a quantization_config,
// or AutoGPTQ's quantize_config.json / AutoAWQ's quant_config.json, plus one
// .safetensors file or an index set), or one safetensors file read with a
// scheme named on the command line, seen as quantized weights of the Quant
// layer: each quantized linear layer's packed tensors (GPTQ's qweight,
// qzeros, scales, g_idx; AWQ's GEMM qweight, qzeros, scales;
// compressed-tensors' weight_packed, weight_scale, weight_zero_point,
// weight_shape, weight_g_idx; MLX's weight, scales, biases) become one
// quant::QuantizedWeight of logical shape [out_features, in_features] named
// MODULE.weight; every other tensor passes through. docs/quant.md section 8
// gives each scheme's layout, with the reference code it comes from.
//
// Nothing is unpacked when a model is opened beyond what checks the
// tensors' shapes and the zero points' format; unpackHfRows turns a run of
// output rows into codes, scales and zero points, one row-major
// quant::GroupQuantSource, for the repacking and dequantizing writers.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_HFQUANT_H
#define VMPACK_FORMATS_HFQUANT_H

#include "vmpack/Formats/WeightFile.h"
#include "vmpack/Quant/Dequantize.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmpack::formats {

enum class HfQuantMethod : uint8_t {
  Gptq,
  Awq,
  CompressedTensors,
  Mlx,
  Bitsandbytes,
  /// A group planar set (NAME.q, NAME.d and perhaps NAME.m, recorded
  /// vmpack.planar.NAME = "group"; docs/quant.md section 8, "Planar") in a
  /// safetensors, .vmpk or GGUF file.
  Planar
};

/// "gptq", "awq", "compressed-tensors", "mlx", "bitsandbytes", "planar".
const char *hfQuantMethodName(HfQuantMethod method);

/// The weight arguments of one compressed-tensors config group
/// (QuantizationArgs of quant_args.py, with the group's or the config's
/// format).
struct HfCtWeightArgs {
  /// The config_groups key, for messages.
  std::string group;
  /// "pack-quantized", "naive-quantized" (or "int-quantized") or
  /// "float-quantized".
  std::string format;
  /// type "float": FP8 E4M3 codes (float-quantized, num_bits 8).
  bool floatType = false;
  /// strategy "block": block_structure [rows, columns].
  int64_t blockRows = 0, blockCols = 0;
  unsigned bits = 8;
  bool symmetric = true;
  /// "group", "channel" or "tensor".
  std::string strategy;
  /// Elements of `in` per group (strategy "group"), else 0.
  int64_t groupSize = 0;
  /// "actorder" set: weight_g_idx may hold a permutation.
  bool actorder = false;
};

/// MLX: one module's bits and group size, from an entry of "quantization"
/// named after the module.
struct HfMlxLayer {
  unsigned bits = 4;
  int64_t groupSize = 64;
  /// mode "mxfp4": E2M1 codes, E8M0 scales (U8), groups of 32, no biases.
  bool mxfp4 = false;
  /// false: the entry is `false`, the module is not quantized.
  bool quantized = true;
};

/// bitsandbytes' per-weight quantization state: the JSON of
/// MODULE.weight.quant_state.bitsandbytes__nf4|fp4 (QuantState.as_dict,
/// packed: quant_type, blocksize, dtype, shape; with double quantization
/// nested_blocksize, nested_dtype, nested_offset).
struct HfBnbState {
  /// "nf4" or "fp4".
  std::string quantType;
  uint64_t blocksize = 64;
  /// The unquantized weight's dtype: "float16", "bfloat16" or "float32".
  std::string dtype;
  std::vector<int64_t> shape;
  bool nested = false;
  uint64_t nestedBlocksize = 0;
  /// nested_offset rounded to float32, as QuantState.from_dict makes it.
  float nestedOffset = 0;
};

/// Parses a quant_state JSON tensor's bytes. Errors name `where` and the
/// field: quant_type other than nf4/fp4, a blocksize bitsandbytes does not
/// dequantize (32, 64, ..., 4096), a dtype other than the three, a shape
/// that is not 2-D and positive, nested fields missing or nested_dtype
/// other than float32, keys QuantState does not know.
StatusOr<HfBnbState> parseBnbQuantState(const uint8_t *data, size_t size,
                                        const std::string &where);

/// The 16 float32 values of bitsandbytes' NF4 or FP4 codes, as its kernels
/// dequantize them (csrc/kernels.cu, csrc/cpu_ops.cpp: FP4's code 8 is
/// -0.0); null for another name.
const float *bnbCodeValues(std::string_view quantType);

/// The facts of a quantization_config that the layout depends on.
struct HfQuantConfig {
  HfQuantMethod method = HfQuantMethod::Gptq;
  unsigned bits = 4;
  /// Elements of `in` per group; -1: one group per output row (GPTQ's
  /// group_size -1).
  int64_t groupSize = 128;
  /// GPTQ: symmetric (zero points all 2^(bits-1)). AWQ: !zero_point.
  bool sym = true;
  /// GPTQ act-order: g_idx is not i / groupSize.
  bool descAct = false;
  /// GPTQ: "gptq" (zero points stored minus one) or "gptq_v2"; empty when
  /// the config does not say (then the data decides).
  std::string checkpointFormat;
  /// compressed-tensors: every config group's weight arguments.
  std::vector<HfCtWeightArgs> ctGroups;
  /// bitsandbytes: bnb_4bit_quant_type ("nf4", "fp4") and
  /// bnb_4bit_use_double_quant.
  std::string bnbQuantType;
  bool bnbDoubleQuant = false;
  /// MLX: "quantization"'s own bits, group_size and mode.
  HfMlxLayer mlxDefault;
  /// MLX: the modules with their own entry in "quantization".
  std::vector<std::pair<std::string, HfMlxLayer>> mlxLayers;
  /// The quantization object as the file has it (JSON text), written back
  /// when the weights are kept as stored.
  std::string sourceJson;
  /// Where the config came from, for messages.
  std::string where;
};

/// Parses a config.json (its "quantization_config" object, or MLX's
/// "quantization"), a quantize_config.json (AutoGPTQ, GPTQModel) or a
/// quant_config.json (AutoAWQ: w_bit, q_group_size, zero_point, version).
/// compressed-tensors: "format" and every config group's "weights"
/// (num_bits, type int or float, symmetric, strategy, group_size,
/// block_structure, actorder; a preset name W4A16, W4A16_ASYM or W8A16 as
/// the group's key); formats other than pack-quantized, naive-quantized,
/// int-quantized and float-quantized (8-bit symmetric float, FP8 E4M3) are
/// refused. MLX: "group_size",
/// "bits", "mode" affine, and per-module entries. Format errors name
/// `where` and the field; an unknown quant_method, checkpoint_format or AWQ
/// version, bits other than 2, 3, 4, 8 (4 for AWQ; 2..8 for
/// compressed-tensors, 8 for naive-quantized; 2, 3, 4, 5, 6, 8 for MLX) or
/// a group size that is neither -1 nor positive (32, 64, 128 for MLX) are
/// refused. Returns nullopt when the JSON is valid and has no quantization
/// config at all.
StatusOr<std::optional<HfQuantConfig>>
parseHfQuantConfig(const uint8_t *data, size_t size, const std::string &where);

/// The config --scheme=NAME stands for, for a safetensors file without
/// one: "gptq" (v1 zero points), "gptq_v2" or "awq"; bits and group size
/// are then read from the tensors' shapes. Nullopt for another name
/// (compressed-tensors and MLX need their config: the shapes do not tell
/// the bits).
std::optional<HfQuantConfig> hfQuantConfigForScheme(std::string_view name);

/// One quantized linear layer.
struct HfQuantLinear {
  /// MODULE.weight, [out, in], axis 1; groupIndex holds g_idx when it is
  /// not i / groupSize.
  quant::QuantizedWeight weight;
  HfQuantMethod method = HfQuantMethod::Gptq;
  unsigned bits = 4;
  /// Elements per group along `in` (in, for GPTQ's -1).
  uint64_t groupSize = 0;
  int64_t out = 0, in = 0;
  /// GPTQ v1: a stored zero point is the zero point minus one.
  bool zerosMinusOne = false;
  /// compressed-tensors naive-quantized: one int8 per code (qweight is
  /// MODULE.weight, I8 [out, in]).
  bool naive = false;
  /// compressed-tensors strategy "tensor": one scale for the whole weight.
  bool oneScale = false;
  /// MLX mxfp4: scales are E8M0 bytes, value = e2m1(q) * 2^(e - 127);
  /// there are no biases.
  bool mxfp4 = false;
  /// compressed-tensors float-quantized: qweight is MODULE.weight,
  /// F8_E4M3 [out, in]; value = e4m3(q) * s. blockRows/blockCols > 0:
  /// strategy "block", scales [ceil(out / blockRows), ceil(in / blockCols)].
  bool fp8 = false;
  int64_t blockRows = 0, blockCols = 0;
  /// compressed-tensors: the config group the weight belongs to.
  std::string ctGroup;
  /// bitsandbytes: the quant state, and MODULE.weight.quant_map,
  /// .nested_absmax, .nested_quant_map and .quant_state.bitsandbytes__TYPE
  /// (qweight is MODULE.weight, U8 codes two per byte, the first in the
  /// high nibble; scales is MODULE.weight.absmax, F32, or U8 when nested).
  HfBnbState bnb;
  TensorSource quantMap, nestedAbsmax, nestedQuantMap, quantState;
  /// Every zero point is 2^(bits-1) (or there are none: AWQ without zero
  /// points), found from the data.
  bool symmetric = false;
  /// Values q * s + b with a float bias b per group (MLX affine, and a
  /// planar set whose NAME.m is of the scales' type); qzeros holds b.
  bool affine = false;
  /// The stored tensors (MODULE.qweight, ...); gIdx.data is null when
  /// there is no g_idx. compressed-tensors: weight_packed (or the int8
  /// weight), weight_zero_point (null when symmetric), weight_scale,
  /// weight_g_idx, and weight_shape in `shapeTensor`. MLX: weight, biases
  /// (as qzeros), scales. Planar: NAME.q, NAME.m (as qzeros; null when
  /// symmetric), NAME.d (as scales), each in the `packed` layout.
  TensorSource qweight, qzeros, scales, gIdx, shapeTensor;
  /// "f16", "bf16" or "f32": the scales' type.
  std::string scaleType;

  /// The largest run of consecutive `in` positions that always shares one
  /// group and divides both `in` and `multipleOf`'s multiples: groupSize
  /// without act-order; with it, `multipleOf` if g_idx is constant on
  /// every aligned run of that many, else 1.
  uint64_t uniformRun(uint64_t multipleOf) const;
};

/// An opened checkpoint: the quantized linears and the other tensors, in
/// the order of the files (a linear where its qweight is).
struct HfQuantModel {
  HfQuantConfig config;
  /// The model directory, or empty for a lone file.
  std::string directory;
  std::vector<std::unique_ptr<WeightFile>> files;
  struct Entry {
    /// Index into linears, or -1: others[otherIndex].
    int64_t linear = -1;
    size_t other = 0;
  };
  std::vector<Entry> order;
  std::vector<HfQuantLinear> linears;
  std::vector<TensorSource> others;
  /// Metadata of the files, merged as they are.
  StringMetadata metadata;
  /// What the reader noticed and the caller should show (a zero-point
  /// format found from the data).
  std::vector<std::string> warnings;
  /// Bytes the linears point into that no file holds (planar parts
  /// re-encoded to `packed`).
  std::vector<std::unique_ptr<std::vector<uint8_t>>> owned;
};

/// Whether `path` is a directory holding config.json,
/// quantize_config.json or quant_config.json.
bool isHfModelDirectory(const std::string &path);

/// A group planar set's facts, from its parts' types and shapes.
struct HfPlanarSet {
  /// NAME: the weight the set stands for.
  std::string name;
  unsigned bits = 4;
  /// siN codes without NAME.m: value f(q) * d.
  bool symmetric = false;
  /// NAME.m of the scales' type: value f(q) * d + m; else uiN zero points,
  /// (f(q) - f(m)) * d.
  bool affine = false;
  int64_t out = 0, in = 0;
  uint64_t groupSize = 0;
  /// "f16", "bf16" or "f32".
  std::string scaleType;
  /// The scheme vmpack-dump shows ("planar.group": the codes, the scales
  /// in groups of groupSize, the zero points or added minimums).
  quant::QuantScheme scheme;
};

/// Checks the group planar set `name` among `parts` (every tensor named
/// NAME.*: name, MLIR element type, shape, stored length in the `packed`
/// layout): NAME.q siN or uiN (N 2..8; signless iN counts as siN) of
/// shape [out, in]; NAME.d f16, bf16 or f32 [out, in / G]; NAME.m absent
/// for siN codes, and for uiN codes uiN zero points or biases of NAME.d's
/// type, of NAME.d's shape; no other part. A Format error names the part
/// and what it should be.
StatusOr<HfPlanarSet>
checkHfPlanarSet(const std::string &name,
                 const std::vector<quant::PlanarTensorInfo> &parts);

/// The names NAME recorded as group planar sets (vmpack.planar.NAME =
/// "group") in `files`' metadata (safetensors and .vmpk string metadata,
/// GGUF string pairs), in the files' order.
std::vector<std::string>
hfPlanarRecords(const std::vector<std::unique_ptr<WeightFile>> &files);
/// The same for one input's string metadata (an MLIR file's).
std::vector<std::string> hfPlanarRecords(const StringMetadata &metadata);

/// `files` (a safetensors, .vmpk or GGUF file or set, opened) seen as a
/// checkpoint whose quantized linears are the group planar sets
/// hfPlanarRecords names (method Planar; checked with checkHfPlanarSet,
/// parts in another .vmpk encoding re-encoded to `packed`), every other
/// tensor passing through. The files' metadata is not copied into the
/// model's (the caller merges it, and drops the records of what it
/// converts). Errors name `where` and the part; a record without its
/// NAME.q is an error.
StatusOr<std::unique_ptr<HfQuantModel>>
openHfPlanarModel(std::vector<std::unique_ptr<WeightFile>> files,
                  const std::string &where);
/// The same for `tensors` recorded by `metadata` (an MLIR file's
/// constants), whose bytes the caller keeps alive.
StatusOr<std::unique_ptr<HfQuantModel>>
openHfPlanarModel(std::vector<TensorSource> tensors,
                  const StringMetadata &metadata, const std::string &where);

/// Opens a model directory (its model.safetensors.index.json set, or its
/// one .safetensors file), or one safetensors file or index with
/// `scheme` (hfQuantConfigForScheme). Checks every quantized linear: each
/// tensor present with its dtype and shape, the group size dividing `in`,
/// g_idx in range, the zero points' format (v1 or v2, from the data when
/// the config does not say, with a warning when it contradicts the data).
/// Errors name the file and the tensor.
StatusOr<std::unique_ptr<HfQuantModel>>
openHfQuantModel(const std::string &path,
                 const std::optional<std::string> &scheme = std::nullopt);

/// Rows [first, first + count) of `linear`, unpacked: one code per byte,
/// one true zero point per byte, scales as stored, `run` positions of `in`
/// per group (run from uniformRun; in % run == 0). Without `withCodes`,
/// the scales and zero points only (codes empty).
struct HfRows {
  std::vector<uint8_t> codes, zeros, scales;
  quant::GroupQuantSource source;
};
Status unpackHfRows(const HfQuantLinear &linear, int64_t first, int64_t count,
                    uint64_t run, HfRows &rows, bool withCodes = true);

/// The ggml block type `linear` is written as: `requested`, or by default
/// Q4_0 for symmetric 4-bit codes, Q8_0 for symmetric 8-bit codes, Q4_1
/// for asymmetric 4-bit codes. Every block is built and compared with the
/// checkpoint's values (quant::repackToGgml, in chunks of rows) first; a
/// Format error names the tensor and the reason when a value would change:
/// a zero point that is not 2^(bits-1) for a symmetric type, act-order
/// groups that are not runs of 32, a minimum -s*z that float16 cannot
/// hold, no ggml type for the width.
StatusOr<uint32_t> hfGgmlTarget(const HfQuantLinear &linear,
                                std::optional<uint32_t> requested);

/// `linear` as a tensor of ggml blocks of `ggmlType` (checked with
/// hfGgmlTarget), built row by row while a writer asks for its bytes.
/// `linear` must outlive the result.
StatusOr<TensorSource> hfLinearAsGgml(const HfQuantLinear &linear,
                                      uint32_t ggmlType);

/// `linear`'s values, (q - z) * s in float32 (exact: an f16 scale times an
/// integer of at most 9 bits; MLX: q * s, then + b; bitsandbytes:
/// table[q] * absmax, absmax = nested_table[qa] * nested_absmax, then
/// + nested_offset, when double-quantized), as f32, f16 or bf16 (rounded
/// once from float32), computed while a writer asks for them: each range
/// of rows a writer asks for on `threads` (0: all cores), in pieces of
/// whole rows of at least 2^14 values (quant::splitRange); the bytes are
/// the same for any number.
StatusOr<TensorSource> hfLinearAsFloats(const HfQuantLinear &linear,
                                        quant::FloatType to,
                                        unsigned threads = 1);

/// The tensors `linear` is stored as, unchanged (qweight, qzeros, scales,
/// g_idx when present).
std::vector<TensorSource> hfLinearStored(const HfQuantLinear &linear);

/// `linear` stored as the Hugging Face scheme `target`: "compressed-tensors"
/// (pack-quantized weight_packed, weight_shape, weight_scale and, when
/// asymmetric, weight_zero_point, weight_g_idx with act-order; from GPTQ,
/// AWQ, MLX and planar sets, compressed-tensors kept as stored), "mlx"
/// (affine weight, scales, biases = -z * s, every code's value checked;
/// from GPTQ, AWQ, compressed-tensors and planar sets without act-order,
/// MLX kept as stored), GPTQ and AWQ from compressed-tensors, MLX and
/// planar sets (qweight, qzeros, scales [groups, out], GPTQ's g_idx; AWQ:
/// 4-bit codes without act-order), "bnb-nf4" (bitsandbytes NF4 as stored;
/// everything else refused). From q * s + b (MLX, planar sets with
/// biases) the (q - z) * s schemes need b = -(z * s) for an integer z of
/// `bits` bits, every code of every group checked; the first group that
/// is not is refused, naming it. GPTQ and AWQ from each other, as
/// follows: "gptq" with v1 zero
/// points, "gptq_v2" or "awq" (bitsandbytes, FP8 and mxfp4
/// weights are refused, naming the tensor): MODULE.qweight, MODULE.qzeros,
/// MODULE.scales and, for GPTQ, MODULE.g_idx, built word by word while a
/// writer asks for them (quant/HfRepack.h). Its own scheme (and GPTQ v1 <->
/// v2) keeps qweight, scales and g_idx as stored; AWQ <-> GPTQ needs 4-bit
/// codes without act-order. A zero point with no form in the target (0 in
/// v1) is refused, naming the tensor. `linear` must outlive the result.
StatusOr<std::vector<TensorSource>>
hfLinearAsScheme(const HfQuantLinear &linear, std::string_view target);

/// `linear` in the group planar form (docs/quant.md section 8, "Planar"):
/// MODULE.weight.q, the codes [out, in] (siN, q - 2^(bits-1), when every
/// zero point is 2^(bits-1); else uiN, q as stored), MODULE.weight.d, the
/// scales [out, in / run] as stored (f16, bf16 or f32), and
/// MODULE.weight.m, the zero points [out, in / run] (uiN, the true zero)
/// or MLX's biases (the scales' type), absent when symmetric; codes and
/// zero points in the `packed` layout, built while a writer asks for them.
/// The values are f(q) * d, (f(q) - f(m)) * d or f(q) * d + m, the
/// reader's own float32 operations on the same numbers. run is the group
/// size, or 32 for act-order groups that are aligned runs of 32 (their
/// scales and zero points repeated per run). Refused, naming the tensor:
/// act-order groups that are not such runs (the planar form holds no
/// permutation), a zero point that `bits` bits cannot hold (GPTQ v1's
/// 2^bits), bitsandbytes, FP8 and mxfp4 codes (mxfp4 is written as ggml
/// MXFP4 blocks' planar form instead). A planar set is kept as stored.
/// `linear` must outlive the result.
StatusOr<std::vector<TensorSource>>
hfLinearAsPlanar(const HfQuantLinear &linear);

/// The "quantization_config" object (JSON text) of `target` for weights of
/// `bits` bits in groups of `groupSize` (-1: one group per row), as
/// AutoGPTQ/GPTQModel (quant_method, bits, group_size, desc_act, sym,
/// checkpoint_format) or AutoAWQ / transformers (quant_method, bits,
/// group_size, zero_point, version) read it; desc_act is `descAct`.
std::string hfQuantConfigJson(std::string_view target, unsigned bits,
                              int64_t groupSize, bool sym,
                              bool descAct = false);

/// Whether every zero point of `linear`'s (q - z) * s form is
/// 2^(bits-1): its `symmetric`, or for an affine weight (q * s + b) whether
/// every bias is exactly -2^(bits-1) * s with every code's value the same.
bool hfZerosSymmetric(const HfQuantLinear &linear);

/// `configJson` (a config.json) with its "quantization_config" replaced by
/// `quantization` (JSON text), or removed when that is empty; MLX's
/// "quantization" kept (or, when absent, written as `quantization`) when
/// `mlx`, else removed; every other key kept in order. A config that is not
/// a JSON object is an error naming `where`.
StatusOr<std::string> rewriteHfConfig(const uint8_t *configJson, size_t size,
                                      const std::string &quantization,
                                      const std::string &where,
                                      bool mlx = false);

/// The quantization object (JSON text) of `linears` written as `target`:
/// "compressed-tensors" (quant_method, format pack-quantized,
/// quantization_status compressed, one config group whose targets are the
/// modules by name and whose weights give num_bits, type int, symmetric,
/// strategy group or channel, group_size, actorder, dynamic; ignore []) as
/// compressed-tensors' QuantizationConfig and transformers'
/// CompressedTensorsConfig read it, or "mlx" (group_size, bits) as mlx-lm's
/// load_model reads config.json's "quantization". Linears of other widths
/// or group sizes are an error naming the tensor.
StatusOr<std::string>
hfTargetConfigJson(std::string_view target,
                   const std::vector<const HfQuantLinear *> &linears);

/// The initializers of one com.microsoft MatMulNBits node of an ONNX
/// template (docs/interop.md, "MatMulNBits and DequantizeLinear") that a
/// quantized linear is written into.
struct MatMulNBitsTarget {
  /// The node's attributes.
  unsigned bits = 4;
  uint64_t blockSize = 0;
  /// B, scales and, when the node has them, zero_points: names, types
  /// and shapes as the template has them.
  TensorInfo codes, scales;
  std::optional<TensorInfo> zeroPoints;
  /// zero_points packed like B (uint8), else of the scales' type.
  bool packedZeroPoints = true;
};
/// `linear` as the B, scales and zero_points of `target`, built row by
/// row while a writer asks for them: value (code - zero point) * scale is
/// (q - z) * s, so the codes, zero points and scales are the checkpoint's.
/// Exact or refused, naming the tensor and the reason: another width, a
/// block that is not inside one group (a group size or act-order run that
/// the block size does not divide), a K that is not whole blocks, shapes
/// that disagree with the linear, a scale the template's scale type cannot
/// hold exactly, zero points where the node has none (2^(bits-1)) or one
/// that does not fit in `bits`, MLX's q * s + b. Every row is checked
/// before a byte is written. `linear` must outlive the result.
StatusOr<std::vector<TensorSource>>
hfLinearAsMatMulNBits(const HfQuantLinear &linear,
                      const MatMulNBitsTarget &target);
/// A line for tools: "gptq 4-bit, groups of 128, v1 zero points,
/// symmetric, act-order".
std::string describeHfLinear(const HfQuantLinear &linear);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_HFQUANT_H
