//===- SaveFile.cpp - vmpack.save_file: numpy arrays to a weight file -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Binds tools::writeTensorFile (include/vmpack/Tools/Convert.h), the writer
// half of vmpack-convert, for numpy arrays: each array becomes a
// formats::TensorSource and the output's format (the one format table),
// its writer, the temporary file and the rename are vmpack-convert's.
//
// An array whose bytes are the tensor's stored bytes (int8 as i8, float16
// as f16, bool as i1, ...) is written from its own buffer: the source
// points at it, and nothing is copied. Any other type (sub-byte integers,
// f4/f6/f8, bf16, tf32, integers held in a wider dtype) is given widened,
// and its values are checked first (every one must be a value of the type:
// in range, or a float the type holds exactly), then encoded while the
// writer asks for the bytes, a bounded chunk at a time (the source's
// `produce`), so memory does not grow with the tensor. docs/python.md,
// "Writing files", is the reference. Runs without the GIL.
//
// A planar weight (vmpack.PlanarWeight) arrives as the entries of its parts
// NAME.q, NAME.d, ... and (NAME, its type): the set is checked with
// quant::checkPlanarSet and recorded (vmpack.planar.NAME), and joined into
// ggml blocks by tools::applyQuantTarget, vmpack-convert's own step, where
// `quant` or a GGUF output asks (docs/python.md, "Planar quantized
// weights").
//
//===----------------------------------------------------------------------===//

#include "SaveFile.h"

#include "RaiseStatus.h"
#include "vmpack/Archive/Format.h"
#include "vmpack/Formats/GgmlConvert.h"
#include "vmpack/Formats/GgufValueText.h"
#include "vmpack/Pack/Convert.h"
#include "vmpack/Pack/ElementType.h"
#include "vmpack/Quant/GgmlPlanar.h"
#include "vmpack/Quant/GgmlTypes.h"
#include "vmpack/Tools/Convert.h"
#include "vmpack/Tools/ToolSupport.h"
#ifdef VMPACK_PYTHON_HAS_COMPILER
#include "vmpack/Tools/MlirFiles.h"
#endif

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace vmpack;

namespace {

[[noreturn]] void raise(const py::module_ &m, const archive::Status &status) {
  python::raiseStatus(m, status);
}

/// How the scalars of one array become the stored scalars of its tensor,
/// in the `byte` encoding (each scalar in ceil(W/8) little-endian bytes,
/// zero-extended; docs/packing.md): the writers convert from there.
struct ScalarCodec {
  /// The array's buffer, its numpy kind ('b', 'i', 'u', 'f') and the bytes
  /// of one scalar (a complex array is read as its real and imaginary
  /// floats).
  const uint8_t *data = nullptr;
  char kind = 0;
  unsigned itemBytes = 0;
  /// The tensor's scalar type and its bytes per scalar in `byte`.
  ScalarType type;
  unsigned storedBytes = 0;
  /// Integer targets: the range; float targets: the format.
  int64_t low = 0;
  uint64_t high = 0;
  std::optional<FloatFormat> format;

  /// Scalar i of the array as a signed or unsigned integer; `negative`
  /// says which (only signed dtypes can be).
  void readInteger(uint64_t i, bool &negative, uint64_t &magnitudeBits) const {
    const uint8_t *p = data + i * itemBytes;
    if (kind == 'i') {
      int64_t v = 0;
      switch (itemBytes) {
      case 1:
        v = *reinterpret_cast<const int8_t *>(p);
        break;
      case 2: {
        int16_t x;
        std::memcpy(&x, p, 2);
        v = x;
      } break;
      case 4: {
        int32_t x;
        std::memcpy(&x, p, 4);
        v = x;
      } break;
      default:
        std::memcpy(&v, p, 8);
      }
      negative = v < 0;
      magnitudeBits = uint64_t(v);
      return;
    }
    uint64_t v = 0;
    std::memcpy(&v, p, itemBytes); // little-endian host (checked in Python)
    negative = false;
    magnitudeBits = v;
  }

  /// Scalar i of the array as a float32, or nullopt when it is a float64
  /// that no float32 holds exactly (no target of at most 32 bits does).
  std::optional<float> readFloat(uint64_t i) const {
    const uint8_t *p = data + i * itemBytes;
    if (itemBytes == 2) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return decodeFloat(*floatFormat(ScalarKind::F16), h);
    }
    if (itemBytes == 4) {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    double d;
    std::memcpy(&d, p, 8);
    float f = float(d);
    if (!std::isnan(d) && double(f) != d)
      return std::nullopt;
    return f;
  }

  /// Encodes scalars [first, first + count) into `out` (count *
  /// storedBytes bytes). Returns the index of the first scalar that is not
  /// a value of the type, or nullopt when all are.
  std::optional<uint64_t> encode(uint64_t first, uint64_t count,
                                 uint8_t *out) const {
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t i = first + k;
      uint64_t bits = 0;
      if (format) {
        std::optional<float> v = readFloat(i);
        std::optional<uint32_t> code =
            v ? encodeFloat(*format, *v) : std::nullopt;
        if (!code)
          return i;
        bits = *code;
      } else {
        bool negative;
        uint64_t raw;
        readInteger(i, negative, raw);
        if (negative ? int64_t(raw) < low : raw > high)
          return i;
        bits = type.width >= 64 ? raw : raw & ((uint64_t(1) << type.width) - 1);
      }
      for (unsigned b = 0; b < storedBytes; ++b)
        out[k * storedBytes + b] = uint8_t(bits >> (8 * b));
    }
    return std::nullopt;
  }

  /// The value of scalar i, for a message.
  std::string valueText(uint64_t i) const {
    char buffer[64];
    if (kind == 'f') {
      const uint8_t *p = data + i * itemBytes;
      double d;
      if (itemBytes == 8)
        std::memcpy(&d, p, 8);
      else
        d = double(*readFloat(i));
      // As many digits as tell the dtype's values apart.
      std::snprintf(buffer, sizeof buffer, "%.*g",
                    itemBytes == 8   ? 17
                    : itemBytes == 4 ? 9
                                     : 5,
                    d);
      return buffer;
    }
    bool negative;
    uint64_t raw;
    readInteger(i, negative, raw);
    return negative ? std::to_string(int64_t(raw)) : std::to_string(raw);
  }
};

/// The MLIR element type of an array's dtype when none is given.
std::optional<std::string> defaultType(char kind, size_t itemBytes) {
  switch (kind) {
  case 'b':
    return std::string("i1");
  case 'i':
    return "i" + std::to_string(8 * itemBytes);
  case 'u':
    return "ui" + std::to_string(8 * itemBytes);
  case 'f':
    if (itemBytes == 2)
      return std::string("f16");
    if (itemBytes == 4)
      return std::string("f32");
    if (itemBytes == 8)
      return std::string("f64");
    return std::nullopt;
  case 'c':
    if (itemBytes == 8)
      return std::string("complex<f32>");
    if (itemBytes == 16)
      return std::string("complex<f64>");
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Whether the array's bytes are the tensor's stored bytes as they are.
bool isNative(char kind, size_t itemBytes, const ElementType &type) {
  const ScalarType &s = type.scalar;
  if (type.isComplex)
    return kind == 'c' && ((s.kind == ScalarKind::F32 && itemBytes == 8) ||
                           (s.kind == ScalarKind::F64 && itemBytes == 16));
  switch (kind) {
  case 'b':
    return false; // checked to be 0 or 1 first, then written as it is
  case 'i':
    return (s.kind == ScalarKind::SignlessInt ||
            s.kind == ScalarKind::SignedInt || s.kind == ScalarKind::Index) &&
           s.width == 8 * itemBytes;
  case 'u':
    return s.kind == ScalarKind::UnsignedInt && s.width == 8 * itemBytes;
  case 'f':
    return (s.kind == ScalarKind::F16 && itemBytes == 2) ||
           (s.kind == ScalarKind::F32 && itemBytes == 4) ||
           (s.kind == ScalarKind::F64 && itemBytes == 8);
  default:
    return false;
  }
}

/// "[1, 2]": the position of flat element `index` in `shape`.
std::string positionText(uint64_t index, const std::vector<int64_t> &shape) {
  std::vector<uint64_t> position(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t n = uint64_t(shape[d]);
    position[d] = n ? index % n : 0;
    index = n ? index / n : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < position.size(); ++d)
    text += (d ? ", " : "") + std::to_string(position[d]);
  return text + "]";
}

/// One tensor to write: the array it reads (kept alive while writing) and
/// its source; converted tensors also keep their codec.
struct Planned {
  py::array array;
  formats::TensorSource source;
  std::shared_ptr<ScalarCodec> codec;
  uint64_t scalars = 0;
  unsigned scalarsPerElement = 1;
  bool boolArray = false;
};

} // namespace

void vmpack::python::registerSaveFile(py::module_ &m) {
  m.def(
      "save_file",
      [m](const py::list &entries, const std::string &path,
          const std::vector<std::pair<std::string, std::string>> &metadata,
          const std::optional<std::string> &format,
          const std::optional<int64_t> &alignment,
          const std::vector<std::pair<std::string, std::string>> &planar,
          const std::optional<std::string> &quant) {
        auto invalid = [&](const std::string &message) {
          raise(m, archive::Status::invalidArgument(message));
        };
        auto unsupported = [&](const std::string &message) {
          raise(m, archive::Status::unsupported(message));
        };
        tools::ConvertOptions options;
        options.output = path;
        options.to = format;
        if (alignment) {
          if (!archive::isValidAlignment(uint64_t(*alignment)) ||
              *alignment < 1)
            invalid(
                "vmpack.save_file: alignment=" + std::to_string(*alignment) +
                " is not " + tools::alignmentRange());
          options.alignment = uint32_t(*alignment);
        }
#ifdef VMPACK_PYTHON_HAS_COMPILER
        options.mlir = &tools::mlirFiles();
#endif
        std::vector<std::string> warnings;
        options.warning = [&](const std::string &w) { warnings.push_back(w); };
        archive::StatusOr<tools::Format> to =
            tools::checkOutputOptions(options);
        if (!to)
          raise(m, to.status());

        // Metadata: string pairs; typed GGUF values in the "vmpack.gguf."
        // spelling; a format that keeps none refuses any.
        formats::StringMetadata strings(metadata.begin(), metadata.end());
        if (*to == tools::Format::Irpa && !strings.empty())
          invalid("metadata key " + formats::quoteName(strings[0].first) +
                  ": IREE's .irpa keeps no metadata, only named entries; "
                  "save without metadata, or write .vmpk, .safetensors, "
                  ".gguf or MLIR");
        archive::StatusOr<formats::GgufMetadata> typed =
            formats::stringMetadataToGguf(strings);
        if (!typed)
          raise(m, typed.status());

        std::vector<Planned> planned;
        planned.reserve(entries.size());
        for (const py::handle &entry : entries) {
          py::tuple t = py::reinterpret_borrow<py::tuple>(entry);
          Planned p;
          const std::string name = py::cast<std::string>(t[0]);
          p.array = py::reinterpret_borrow<py::array>(t[1]);
          const std::string quoted = formats::quoteName(name);
          const py::dtype dtype = p.array.dtype();
          const char kind = dtype.kind();
          const size_t itemBytes = size_t(dtype.itemsize());
          const std::string dtypeName =
              py::cast<std::string>(py::str(py::handle(dtype)));
          if (!(p.array.flags() & py::array::c_style))
            invalid("tensor " + quoted + ": the array is not C-contiguous");
          std::optional<std::string> typeName =
              t[2].is_none()
                  ? defaultType(kind, itemBytes)
                  : std::optional<std::string>(py::cast<std::string>(t[2]));
          if (!typeName)
            unsupported("tensor " + quoted + ": numpy dtype " + dtypeName +
                        " has no vmpack element type; give one: (array, "
                        "\"TYPE\")");
          std::optional<ElementType> type = parseElementType(*typeName);
          if (!type)
            invalid("tensor " + quoted + ": '" + *typeName +
                    "' is not an MLIR element type (i4, si3, ui2, "
                    "f4E2M1FN, f8E4M3FN, bf16, complex<f32>, ...)");
          formats::TensorInfo &info = p.source.info;
          info.name = name;
          info.elementType = *type;
          info.encoding = Encoding::Byte;
          for (py::ssize_t d = 0; d < p.array.ndim(); ++d)
            info.shape.push_back(int64_t(p.array.shape(d)));
          const uint64_t elements = uint64_t(p.array.size());
          p.scalarsPerElement = type->scalarsPerElement();
          const ScalarType &scalar = type->scalar;
          const std::string typeText = toString(*type);
          if (isNative(kind, itemBytes, *type) ||
              (kind == 'b' && !type->isComplex &&
               scalar.kind == ScalarKind::SignlessInt && scalar.width == 1)) {
            // The array's own bytes; a bool array's are checked to be 0
            // or 1 below.
            p.boolArray = kind == 'b';
            p.scalars = elements;
            info.length = uint64_t(p.array.nbytes());
            p.source.data = static_cast<const uint8_t *>(p.array.data());
            planned.push_back(std::move(p));
            continue;
          }
          auto codec = std::make_shared<ScalarCodec>();
          codec->data = static_cast<const uint8_t *>(p.array.data());
          codec->type = scalar;
          codec->storedBytes = (scalar.width + 7) / 8;
          codec->kind = kind == 'c' ? 'f' : kind;
          codec->itemBytes = unsigned(kind == 'c' ? itemBytes / 2 : itemBytes);
          const bool complexArray = kind == 'c';
          if (complexArray != type->isComplex)
            invalid("tensor " + quoted + ": a " + dtypeName +
                    " array cannot hold " + typeText + " values" +
                    (complexArray ? "; give a complex type"
                                  : "; give a complex64 or complex128 array"));
          if (scalar.isInteger()) {
            if (type->isComplex || scalar.width > 64 ||
                !(kind == 'b' || kind == 'i' || kind == 'u'))
              unsupported("tensor " + quoted + ": " + typeText +
                          " takes an integer or bool array of its values" +
                          (scalar.width > 64 ? ", and numpy has no integers "
                                               "wider than 64 bits"
                                             : ""));
            const bool isSigned = scalar.kind != ScalarKind::UnsignedInt;
            const uint32_t w = scalar.width;
            if (isSigned) {
              codec->low = w >= 64 ? std::numeric_limits<int64_t>::min()
                                   : -(int64_t(1) << (w - 1));
              codec->high =
                  w >= 64 ? uint64_t(INT64_MAX) : (uint64_t(1) << (w - 1)) - 1;
              // i1: true is 1 (as numpy writes it) or -1 (its value
              // widened with sign, numpy(dtype="int8")).
              if (w == 1 && scalar.kind == ScalarKind::SignlessInt)
                codec->high = 1;
            } else {
              codec->low = 0;
              codec->high = w >= 64 ? UINT64_MAX : (uint64_t(1) << w) - 1;
            }
          } else {
            std::optional<FloatFormat> f = floatFormat(scalar.kind);
            if (!f || scalar.width > 32)
              unsupported(
                  "tensor " + quoted + ": " + typeText +
                  " values are written from a " +
                  (scalar.kind == ScalarKind::F64 ? "float64" : "matching") +
                  " array only");
            if (codec->kind != 'f')
              invalid("tensor " + quoted + ": " + typeText +
                      " takes a float array (float16, float32 or float64) "
                      "of its values, not " +
                      dtypeName);
            codec->format = f;
          }
          p.scalars = elements * p.scalarsPerElement;
          if (p.scalars > UINT64_MAX / codec->storedBytes)
            invalid("tensor " + quoted + " is too large");
          info.length = p.scalars * codec->storedBytes;
          p.codec = codec;
          std::shared_ptr<const ScalarCodec> c = codec;
          const uint64_t scalars = p.scalars;
          p.source.produce = [c, scalars](uint64_t first, uint64_t n,
                                          uint8_t *out) {
            const uint64_t b = c->storedBytes;
            if (first % b == 0 && n % b == 0) {
              // Whole scalars (what the writers ask for): straight into
              // the writer's buffer.
              c->encode(first / b, n / b, out);
              return;
            }
            const uint64_t s0 = first / b;
            const uint64_t s1 = std::min(scalars, (first + n + b - 1) / b);
            std::vector<uint8_t> encoded((s1 - s0) * b);
            c->encode(s0, s1 - s0, encoded.data());
            std::memcpy(out, encoded.data() + (first - s0 * b), n);
          };
          planned.push_back(std::move(p));
        }

        // Planar weights (NAME, its ggml type): their parts NAME.q, NAME.d,
        // ... are entries above; each set is checked and recorded, and
        // joined into ggml blocks where `quant` (or, by default, a GGUF
        // output) asks. docs/python.md, "Planar quantized weights".
        formats::GgufMetadata meta = *typed;
        std::optional<formats::QuantTarget> target;
        if (quant) {
          target = formats::parseQuantTarget(*quant);
          if (!target || target->kind == formats::QuantTarget::HfScheme)
            invalid("vmpack.save_file: quant=" + formats::quoteName(*quant) +
                    " is not \"planar\", \"ggml\" or a ggml type with a "
                    "planar form (q4_0, q4_k, mxfp4, ...; docs/quant.md, "
                    "section 4)");
        }
        // Every array joined, as vmpack-convert --quant=ggml|TYPE joins
        // every planar set it reads; by default only the planar weights,
        // and only into GGUF.
        const bool joinAll =
            target && target->kind != formats::QuantTarget::Planar;
        const bool joinPlanar =
            !planar.empty() && (target ? joinAll : *to == tools::Format::Gguf);
        std::set<std::string> partNames;
        formats::GgufMetadata records;
        for (const auto &[name, typeName] : planar) {
          std::optional<uint32_t> type = formats::parsePlanarRecord(typeName);
          if (!type)
            invalid("tensor " + formats::quoteName(name) + ": ggml " +
                    typeName + " has no planar form");
          std::vector<quant::PlanarTensorInfo> infos;
          for (const Planned &p : planned) {
            const formats::TensorInfo &t = p.source.info;
            if (t.name.compare(0, name.size() + 1, name + ".") != 0)
              continue;
            std::optional<uint64_t> packed =
                formats::storedSize(t.elementType, t.shape, Encoding::Packed);
            infos.push_back({t.name, toString(t.elementType), t.shape,
                             packed ? *packed : t.length});
            partNames.insert(t.name);
          }
          if (archive::Status s = quant::checkPlanarSet(*type, name, infos); !s)
            raise(m, archive::Status::invalidArgument(s.message()));
          const std::string key = formats::planarRecordKey(name);
          for (const auto &kv : strings)
            if (kv.first == key)
              invalid("metadata key " + formats::quoteName(key) +
                      " is the record save_file writes for the planar "
                      "weight " +
                      formats::quoteName(name) + "; leave it out");
          records.push_back({key, formats::GgufValue::string(
                                      quant::ggmlTypeTraits(*type)->name)});
        }
        // Joined alone, the planar weights' records go with their parts;
        // otherwise they are the file's (and joinAll drops them again).
        if (!joinPlanar || joinAll)
          meta.insert(meta.end(), records.begin(), records.end());

        // Every value is checked before anything is written.
        std::optional<std::string> bad;
        archive::StatusOr<std::vector<std::string>> written =
            std::vector<std::string>();
        {
          py::gil_scoped_release release;
          std::vector<uint8_t> scratch;
          for (const Planned &p : planned) {
            const std::string quoted = formats::quoteName(p.source.info.name);
            if (p.boolArray) {
              const uint8_t *d = p.source.data;
              for (uint64_t i = 0; i < p.scalars; ++i)
                if (d[i] > 1) {
                  bad = "tensor " + quoted + ": element " +
                        positionText(i, p.source.info.shape) +
                        " of the bool array holds the byte " +
                        std::to_string(d[i]) + ", which is not a bool";
                  break;
                }
            }
            if (!p.codec || bad)
              continue;
            const uint64_t chunk = 65536;
            scratch.resize(chunk * p.codec->storedBytes);
            for (uint64_t first = 0; first < p.scalars && !bad;
                 first += chunk) {
              std::optional<uint64_t> i = p.codec->encode(
                  first, std::min(chunk, p.scalars - first), scratch.data());
              if (!i)
                continue;
              const std::string typeText = toString(p.source.info.elementType);
              std::string what;
              if (p.codec->format)
                what = "is not a value of " + typeText +
                       " (each value must be one the type holds exactly)";
              else
                what = "is outside " + typeText + "'s range " +
                       std::to_string(p.codec->low) + " to " +
                       std::to_string(p.codec->high);
              const uint64_t element = *i / p.scalarsPerElement;
              bad = "tensor " + quoted + ": the value " +
                    p.codec->valueText(*i) + " at index " +
                    positionText(element, p.source.info.shape) +
                    (p.scalarsPerElement == 2
                         ? (*i % 2 ? " (imaginary part)" : " (real part)")
                         : "") +
                    " " + what;
            }
          }
          std::vector<formats::TensorSource> sources;
          archive::Status joined = archive::Status::ok();
          if (!bad) {
            sources.reserve(planned.size());
            for (const Planned &p : planned)
              sources.push_back(p.source);
            if (joinAll) {
              // vmpack-convert's own step, on every tensor.
              options.quant = quant;
              joined = tools::applyQuantTarget(options, sources, meta);
            } else if (joinPlanar) {
              // The planar weights' parts and records alone, each set
              // joined into one tensor at its codes' place.
              std::vector<formats::TensorSource> parts;
              for (const formats::TensorSource &t : sources)
                if (partNames.count(t.info.name))
                  parts.push_back(t);
              tools::ConvertOptions join = options;
              join.quant = "ggml";
              joined = tools::applyQuantTarget(join, parts, records);
              std::map<std::string, formats::TensorSource> byName;
              for (formats::TensorSource &t : parts)
                byName.emplace(t.info.name, std::move(t));
              std::vector<formats::TensorSource> out;
              for (formats::TensorSource &t : sources) {
                if (!partNames.count(t.info.name)) {
                  out.push_back(std::move(t));
                  continue;
                }
                const std::string &n = t.info.name;
                auto it = n.size() > 2 && n.compare(n.size() - 2, 2, ".q") == 0
                              ? byName.find(n.substr(0, n.size() - 2))
                              : byName.end();
                if (it != byName.end())
                  out.push_back(std::move(it->second));
              }
              sources = std::move(out);
            }
          }
          if (!bad && joined)
            written = tools::writeTensorFile(options, std::move(sources), meta);
          else if (!bad)
            written = joined;
        }
        if (bad)
          raise(m, archive::Status::invalidArgument(*bad));
        if (!written)
          raise(m, written.status());
        py::dict out;
        out["format"] = tools::formatName(*to);
        out["files"] = *written;
        out["warnings"] = warnings;
        return out;
      },
      py::arg("entries"), py::arg("path"), py::arg("metadata"),
      py::arg("format"), py::arg("alignment"), py::arg("planar"),
      py::arg("quant"));
}
