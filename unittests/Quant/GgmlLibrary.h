//===- GgmlLibrary.h - llama.cpp's libggml-base.so, loaded at run time -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The reference the quantization tests compare against: ggml's own
// quantizers and dequantizers from the prebuilt libggml-base.so that npm's
// @node-llama-cpp/linux-x64 ships (scripts/install-npm-deps.sh puts it in
// third_party/npm). Loaded with dlopen; the path is
// $VMPACK_GGML_BASE_LIB, else $VMPACK_NPM_DIR/node_modules/..., else the
// checkout's third_party/npm. Tests GTEST_SKIP with whyMissing() when it
// cannot be loaded.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_UNITTESTS_QUANT_GGMLLIBRARY_H
#define VMPACK_UNITTESTS_QUANT_GGMLLIBRARY_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace vmpack::testing {

class GgmlLibrary {
public:
  using ToFloat = void (*)(const void *, float *, int64_t);
  using FromFloat = void (*)(const float *, void *, int64_t);

  /// The loaded library, or nullptr (then whyMissing() says why).
  static const GgmlLibrary *get();
  static const std::string &whyMissing();

  /// ggml's dequantizer of `type` (type_traits.to_float, else the exported
  /// dequantize_row_<ggml's name>), or nullptr.
  ToFloat toFloat(uint32_t type) const;
  /// ggml's reference quantizer of `type` (type_traits.from_float_ref, else
  /// the exported quantize_row_<ggml's name>_ref).
  FromFloat fromFloatRef(uint32_t type) const;
  /// dequantize_row_<name>, by symbol.
  ToFloat dequantizeRow(const char *name) const;
  bool requiresImatrix(uint32_t type) const;
  /// ggml_quantize_chunk over `rows` rows of `perRow` floats; returns the
  /// bytes written.
  size_t quantizeChunk(uint32_t type, const float *src, void *dst, int64_t rows,
                       int64_t perRow, const float *imatrix) const;
  /// ggml_validate_row_data (prints to stderr when it refuses).
  bool validateRow(uint32_t type, const void *data, size_t bytes) const;
  /// ggml's own name of `type` ("q4_0", ...).
  const char *typeName(uint32_t type) const;
  const std::string &path() const { return libPath; }

private:
  GgmlLibrary() = default;
  void *handle = nullptr;
  std::string libPath;
  const void *(*getTraits)(int) = nullptr;
  bool (*requires_)(int) = nullptr;
  size_t (*quantize)(int, const float *, void *, int64_t, int64_t, int64_t,
                     const float *) = nullptr;
  const char *(*name)(int) = nullptr;
  bool (*validate)(int, const void *, size_t) = nullptr;
};

} // namespace vmpack::testing

#endif // VMPACK_UNITTESTS_QUANT_GGMLLIBRARY_H
