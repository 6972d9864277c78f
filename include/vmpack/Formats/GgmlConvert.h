//===- GgmlConvert.h - ggml block tensors to planar sets and other types -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// What `vmpack-convert --quant=SCHEME` does to tensors (docs/quant.md,
// section 9), as lazy TensorSources whose bytes are computed while a writer
// asks for them:
//
// - planarSplit: a ggml block tensor NAME becomes its planar form NAME.q,
//   NAME.d, ... (quant/GgmlPlanar.h), recorded in the metadata as
//   `vmpack.planar.NAME` = the ggml type's name;
// - joinPlanar: a planar set becomes the ggml blocks it was split from,
//   byte for byte;
// - convertGgmlTensor: ggml blocks (or float32 values) become blocks of
//   another ggml type, exactly (every float32 value the same bits) or, when
//   allowed, rounded by ggml's reference quantizer, with the errors
//   measured.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_GGMLCONVERT_H
#define VMPACK_FORMATS_GGMLCONVERT_H

#include "vmpack/Formats/Tensor.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmpack::formats {

/// What --quant asks for.
struct QuantTarget {
  enum Kind {
    /// gptq, gptq_v2, awq, compressed-tensors, mlx, bnb-nf4: a Hugging Face
    /// scheme
    /// (Formats/HfQuant.h).
    HfScheme,
    /// planar: every ggml block tensor with a planar form split.
    Planar,
    /// ggml: every planar set joined into the type it records.
    Recorded,
    /// A ggml type name: every quantized tensor becomes that type.
    Ggml,
  };
  Kind kind = Ggml;
  /// The ggml type, for Ggml.
  uint32_t ggmlType = 0;
};

/// Parses --quant's value: gptq, gptq_v2, awq, planar, ggml, or the name of
/// a ggml block type with a planar form (any case: q4_0, Q4_K, iq4_nl,
/// mxfp4, ...). nullopt for anything else.
std::optional<QuantTarget> parseQuantTarget(std::string_view name);

/// The metadata key that records the planar set NAME.*: "vmpack.planar.NAME".
std::string planarRecordKey(const std::string &name);
/// The ggml type a record's value names ("Q4_K"; any case), when that type
/// has a planar form; nullopt otherwise.
std::optional<uint32_t> parsePlanarRecord(std::string_view value);

/// The value of the vmpack.planar.NAME record of a group planar set: a
/// Hugging Face checkpoint's weight as NAME.q, NAME.d and NAME.m
/// (formats::hfLinearAsPlanar; docs/quant.md section 8, "Planar"), which
/// is not a ggml type's planar form.
inline constexpr const char *kHfPlanarRecord = "group";

/// Checks that `blocks` (a ggml block tensor) is a whole number of blocks
/// along its last dimension, with the byte length its shape needs; the
/// error names the tensor.
Status checkGgmlBlockTensor(const TensorInfo &blocks);

/// The planar parts that replace `blocks` (checked with
/// checkGgmlBlockTensor; its type has a planar form), codes first, named
/// NAME.q, NAME.d, ..., in the `packed` layout. `signlessCodes` spells
/// Q4_0's and Q8_0's codes i4 and i8, as --dequant-split always has (the
/// same bits as si4 and si8). The parts read `blocks`' bytes (data or
/// produce), which must outlive them.
std::vector<TensorSource> planarSplit(const TensorSource &blocks,
                                      bool signlessCodes = false);

/// The ggml blocks of type `ggmlType` that the planar parts `parts` (in
/// quant::ggmlPlanarParts order, each in the `packed` layout, already
/// checked with quant::checkPlanarSet) join into, named `name`, of the
/// codes' shape.
TensorSource joinPlanar(uint32_t ggmlType, const std::string &name,
                        std::vector<TensorSource> parts);

/// The largest changes a rounding conversion made to one tensor.
struct RoundingReport {
  uint64_t blocks = 0;        ///< target blocks
  uint64_t roundedBlocks = 0; ///< blocks whose values changed
  double maxAbsError = 0;     ///< largest |new - old| over finite values
  uint64_t maxAbsAt = 0;      ///< its flat element index
  double maxRelError = 0;     ///< largest |new - old| / |old|, old != 0
  uint64_t maxRelAt = 0;
  uint64_t nonFinite = 0; ///< changed elements where either is not finite
};

/// `source` (ggml blocks of any type vmpack decodes, or a plain f32 tensor)
/// as blocks of `ggmlType`. Every block is first built exactly: the codes,
/// scales and minimums moved from one of Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 into
/// another (quant::repackToGgml), ggml's reference quantizer's block when
/// it decodes to the same float32 bits, or, for Q4_0, Q5_0 and Q8_0, the
/// block a complete search for its scale finds. Where none is exact, the
/// conversion is refused (a Format error naming the tensor, the first
/// element that would change and the value it would become), unless
/// `allowRounding`: then the quantizer's block is kept and `report`
/// measures the change. Every block is checked before this returns; the
/// writer's bytes are computed again, the same way, while it asks for them.
/// Unsupported when `ggmlType` has no quantizer and the blocks cannot be
/// moved exactly.
StatusOr<TensorSource> convertGgmlTensor(const TensorSource &source,
                                         uint32_t ggmlType, bool allowRounding,
                                         RoundingReport *report = nullptr);

/// The line vmpack-convert reports for a rounded tensor (docs/quant.md,
/// section 9): "tensor 'w': Q4_K -> Q4_0 rounded 12 of 16 blocks: largest
/// absolute error 0.0123 at [0, 17] (0.5 -> 0.4877), largest relative
/// error ...". `from` describes the source ("ggml Q4_K", "gptq 4-bit").
std::string roundingReportText(const std::string &name, const std::string &from,
                               uint32_t to, const std::vector<int64_t> &shape,
                               const RoundingReport &report);

struct HfQuantLinear;

/// A Hugging Face quantized linear as ggml blocks, as vmpack-convert and
/// the llama.cpp GGUF writer both write it: of `requested` (by default
/// hfGgmlTarget's choice) when every value fits exactly (hfLinearAsGgml);
/// else, with `allowRounding` and a requested type, its float32 values
/// requantized by ggml's reference quantizer (convertGgmlTensor), the
/// rounding report in `rounding` (roundingReportText); else the refusal,
/// prefixed with "'`where`': " and, for a value that would change, ending
/// with how --allow-rounding requantizes it.
struct HfGgmlBlocks {
  TensorSource blocks;
  uint32_t ggmlType = 0;
  /// Empty when exact.
  std::string rounding;
};
StatusOr<HfGgmlBlocks> hfLinearToGgml(const HfQuantLinear &linear,
                                      std::optional<uint32_t> requested,
                                      bool allowRounding,
                                      const std::string &where);

/// "[2, 17]": the index of flat element `flat` in `shape`.
std::string elementIndexText(const std::vector<int64_t> &shape, uint64_t flat);

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_GGMLCONVERT_H
