//===- GgmlLibrary.cpp - llama.cpp's libggml-base.so, loaded at run time --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The declarations follow ggml-org/ggml include/ggml.h (commit d99724f):
// `struct ggml_type_traits`, ggml_get_type_traits, ggml_quantize_chunk,
// ggml_quantize_requires_imatrix, ggml_type_name.
//
//===----------------------------------------------------------------------===//

#include "GgmlLibrary.h"

#include <cstdlib>
#include <dlfcn.h>
#include <sys/stat.h>

using namespace vmpack::testing;

namespace {

/// ggml.h `struct ggml_type_traits`.
struct TypeTraits {
  const char *typeName;
  int64_t blckSize;
  int64_t blckSizeInterleave;
  size_t typeSize;
  bool isQuantized;
  GgmlLibrary::ToFloat toFloat;
  GgmlLibrary::FromFloat fromFloatRef;
};

const char *kPackageDir =
    "/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so";

std::string libraryPath() {
  if (const char *p = std::getenv("VMPACK_GGML_BASE_LIB"); p && *p)
    return p;
  if (const char *p = std::getenv("VMPACK_NPM_DIR"); p && *p)
    return std::string(p) + kPackageDir;
  return std::string(VMPACK_SOURCE_DIR) + "/third_party/npm" + kPackageDir;
}

std::string &missingReason() {
  static std::string reason;
  return reason;
}

} // namespace

const GgmlLibrary *GgmlLibrary::get() {
  static const GgmlLibrary *lib = []() -> const GgmlLibrary * {
    std::string path = libraryPath();
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      missingReason() = "llama.cpp's libggml-base.so is not at " + path +
                        " (run scripts/install-npm-deps.sh, or set "
                        "VMPACK_GGML_BASE_LIB)";
      return nullptr;
    }
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      missingReason() = "dlopen " + path + " failed: " + dlerror();
      return nullptr;
    }
    auto *g = new GgmlLibrary();
    g->handle = h;
    g->libPath = path;
    g->getTraits = reinterpret_cast<const void *(*)(int)>(
        dlsym(h, "ggml_get_type_traits"));
    g->requires_ = reinterpret_cast<bool (*)(int)>(
        dlsym(h, "ggml_quantize_requires_imatrix"));
    g->quantize = reinterpret_cast<size_t (*)(
        int, const float *, void *, int64_t, int64_t, int64_t, const float *)>(
        dlsym(h, "ggml_quantize_chunk"));
    g->name =
        reinterpret_cast<const char *(*)(int)>(dlsym(h, "ggml_type_name"));
    g->validate = reinterpret_cast<bool (*)(int, const void *, size_t)>(
        dlsym(h, "ggml_validate_row_data"));
    if (!g->getTraits || !g->requires_ || !g->quantize || !g->name ||
        !g->validate) {
      missingReason() = path + " lacks ggml_get_type_traits, "
                               "ggml_quantize_chunk or their siblings";
      return nullptr;
    }
    return g;
  }();
  return lib;
}

const std::string &GgmlLibrary::whyMissing() { return missingReason(); }

GgmlLibrary::ToFloat GgmlLibrary::toFloat(uint32_t type) const {
  auto *t = static_cast<const TypeTraits *>(getTraits(int(type)));
  if (t && t->toFloat)
    return t->toFloat;
  // Q8_K's dequantizer is exported but not in its type traits.
  return t && t->typeName ? dequantizeRow(t->typeName) : nullptr;
}

GgmlLibrary::FromFloat GgmlLibrary::fromFloatRef(uint32_t type) const {
  auto *t = static_cast<const TypeTraits *>(getTraits(int(type)));
  if (t && t->fromFloatRef)
    return t->fromFloatRef;
  if (!t || !t->typeName)
    return nullptr;
  std::string sym = std::string("quantize_row_") + t->typeName + "_ref";
  return reinterpret_cast<FromFloat>(dlsym(handle, sym.c_str()));
}

GgmlLibrary::ToFloat GgmlLibrary::dequantizeRow(const char *fn) const {
  std::string sym = std::string("dequantize_row_") + fn;
  return reinterpret_cast<ToFloat>(dlsym(handle, sym.c_str()));
}

bool GgmlLibrary::requiresImatrix(uint32_t type) const {
  return requires_(int(type));
}

size_t GgmlLibrary::quantizeChunk(uint32_t type, const float *src, void *dst,
                                  int64_t rows, int64_t perRow,
                                  const float *imatrix) const {
  return quantize(int(type), src, dst, 0, rows, perRow, imatrix);
}

const char *GgmlLibrary::typeName(uint32_t type) const {
  return name(int(type));
}

bool GgmlLibrary::validateRow(uint32_t type, const void *data,
                              size_t bytes) const {
  return validate(int(type), data, bytes);
}
