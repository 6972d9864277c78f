//===- DumpOutput.cpp - Text and file output shared by vmpack-dump --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpOutput.h"

#include "vmpack/Archive/FileIO.h"
#include "vmpack/Formats/TypeTable.h"
#include "vmpack/Quant/GgmlDecode.h"
#include "vmpack/Quant/QuantizedWeight.h"

#include <cerrno>
#include <cstdio>
#include <optional>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::archive;
using namespace vmpack::archive::detail;
using namespace vmpack::dump;

std::string vmpack::dump::jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        // Names are arbitrary bytes: keep JSON valid ASCII.
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out.push_back(char(c));
      }
    }
  }
  return out + "\"";
}

int vmpack::dump::error(const std::string &message) {
  std::fprintf(stderr, "vmpack-dump: error: %s\n", message.c_str());
  return 1;
}

Status vmpack::dump::writeOutputFile(
    const std::string &path, uint64_t size,
    const std::function<void(uint64_t, uint8_t *, size_t)> &produce) {
  std::vector<uint8_t> buffer(size_t(1) << 20);
  if (path == "-") {
    // Standard output: the bytes in order, never to a terminal.
    if (::isatty(STDOUT_FILENO))
      return Status::invalidArgument(
          "-o -: the tensor's bytes are binary and standard output is a "
          "terminal; redirect it to a file or a pipe");
    std::fflush(stdout);
    for (uint64_t at = 0; at < size;) {
      size_t n = size_t(std::min<uint64_t>(buffer.size(), size - at));
      produce(at, buffer.data(), n);
      for (size_t done = 0; done < n;) {
        ssize_t w = ::write(STDOUT_FILENO, buffer.data() + done, n - done);
        if (w < 0 && errno == EINTR)
          continue;
        if (w < 0)
          return Status::ioError("writing to standard output: " +
                                 errnoText(errno));
        done += size_t(w);
      }
      at += n;
    }
    return Status::ok();
  }
  return writeFileAtomically(
      path, [&](int fd, const std::string &temp) -> Status {
        for (uint64_t at = 0; at < size;) {
          size_t n = size_t(std::min<uint64_t>(buffer.size(), size - at));
          produce(at, buffer.data(), n);
          if (Status st =
                  pwriteAll(fd, buffer.data(), n, at, "writing '" + temp + "'");
              !st)
            return st;
          at += n;
        }
        return Status::ok();
      });
}

std::string vmpack::dump::ggmlTypeText(uint32_t type) {
  const formats::GgmlTypeTraits *traits = formats::ggmlTypeTraits(type);
  return std::string("ggml ") + (traits ? traits->name : "type") + " (" +
         std::to_string(type) + ")";
}

std::string vmpack::dump::quantSchemeText(uint32_t ggmlType) {
  std::optional<quant::QuantScheme> scheme = quant::ggmlScheme(ggmlType);
  return scheme && quant::isGgmlBlockType(ggmlType) ? quant::describe(*scheme)
                                                    : std::string();
}

std::string vmpack::dump::quantSchemeJson(uint32_t ggmlType,
                                          const std::vector<int64_t> &shape) {
  std::optional<quant::QuantScheme> scheme = quant::ggmlScheme(ggmlType);
  if (!scheme || !quant::isGgmlBlockType(ggmlType))
    return "null";
  return quantJson(*scheme, quant::ggmlBlockElements(ggmlType), shape,
                   quant::describe(*scheme));
}

std::string vmpack::dump::quantJson(const quant::QuantScheme &scheme,
                                    uint64_t blockSize,
                                    const std::vector<int64_t> &shape,
                                    const std::string &description,
                                    const std::string &parts) {
  auto levels = [](const std::vector<quant::ScaleLevel> &l) {
    std::string out;
    for (size_t i = 0; i < l.size(); ++i)
      out += (i ? " x " : "") + l[i].type;
    return out;
  };
  const char *offsets = "none";
  switch (scheme.offsetKind) {
  case quant::OffsetKind::None:
    break;
  case quant::OffsetKind::ZeroPoint:
    offsets = "zero points";
    break;
  case quant::OffsetKind::AddMinimum:
    offsets = "minimums added";
    break;
  case quant::OffsetKind::SubMinimum:
    offsets = "minimums subtracted";
    break;
  }
  return "{\"scheme\": " + jsonString(scheme.name) +
         ", \"code_type\": " + jsonString(scheme.codeType) +
         ", \"group_size\": " + std::to_string(scheme.groupSize) +
         ", \"scale_type\": " + jsonString(levels(scheme.scales)) +
         ", \"offsets\": " + jsonString(offsets) +
         ", \"block_size\": " + std::to_string(blockSize) +
         ", \"shape\": " + shapeList(shape) +
         ", \"description\": " + jsonString(description) +
         ", \"parts\": " + parts + "}";
}

std::string vmpack::dump::shapeList(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string vmpack::dump::jsonObject(
    const std::vector<std::pair<const char *, std::string>> &fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i)
    out +=
        (i ? ", " : "") + jsonString(fields[i].first) + ": " + fields[i].second;
  return out + "}";
}

namespace {

std::string orNull(const std::optional<std::string> &s) {
  return s ? jsonString(*s) : "null";
}

std::string orNull(const std::optional<uint64_t> &n) {
  return n ? std::to_string(*n) : "null";
}

std::string orNull(const std::optional<std::vector<int64_t>> &shape) {
  return shape ? dump::shapeList(*shape) : "null";
}

std::string tensorJson(const dump::JsonTensor &t) {
  std::string checksum = "null", ggml = "null", quant = "null";
  if (t.checksum) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "\"%08x\"", *t.checksum);
    checksum = buf;
  }
  if (t.ggmlType) {
    const formats::GgmlTypeTraits *traits =
        formats::ggmlTypeTraits(*t.ggmlType);
    ggml = dump::jsonObject(
        {{"id", std::to_string(*t.ggmlType)},
         {"name", traits ? dump::jsonString(traits->name) : "null"}});
    quant = dump::quantSchemeJson(*t.ggmlType,
                                  t.shape ? *t.shape : std::vector<int64_t>());
  }
  if (t.quant)
    quant = *t.quant;
  return dump::jsonObject({{"name", dump::jsonString(t.name)},
                           {"type", orNull(t.type)},
                           {"element_type", orNull(t.elementType)},
                           {"shape", orNull(t.shape)},
                           {"encoding", orNull(t.encoding)},
                           {"file", std::to_string(t.file)},
                           {"offset", orNull(t.offset)},
                           {"length", std::to_string(t.length)},
                           {"alignment", orNull(t.alignment)},
                           {"checksum", checksum},
                           {"ggml_type", ggml},
                           {"quant", quant},
                           {"extra", t.extra}});
}

/// `items` as a JSON array, one per line.
template <typename T, typename F>
void printArray(const char *name, const std::vector<T> &items, F &&json,
                bool last) {
  std::printf("  \"%s\": [", name);
  for (size_t i = 0; i < items.size(); ++i)
    std::printf("%s\n    %s", i ? "," : "", json(items[i]).c_str());
  std::printf("%s]%s\n", items.empty() ? "" : "\n  ", last ? "" : ",");
}

} // namespace

void vmpack::dump::printJsonDocument(const JsonDocument &doc) {
  std::printf("{\n  \"format\": %s,\n", jsonString(doc.format).c_str());
  printArray(
      "files", doc.files,
      [](const JsonFile &f) {
        return jsonObject({{"path", jsonString(f.path)},
                           {"size", std::to_string(f.size)},
                           {"tensors", std::to_string(f.tensors)},
                           {"extra", f.extra}});
      },
      false);
  printArray("tensors", doc.tensors, tensorJson, false);
  printArray(
      "aliases", doc.aliases,
      [](const JsonAlias &a) {
        return jsonObject({{"name", jsonString(a.name)},
                           {"type", orNull(a.type)},
                           {"element_type", orNull(a.elementType)},
                           {"shape", orNull(a.shape)},
                           {"target", jsonString(a.target)},
                           {"extra", a.extra}});
      },
      false);
  printArray(
      "metadata", doc.metadata,
      [](const std::pair<std::string, std::string> &kv) {
        return jsonObject(
            {{"key", jsonString(kv.first)}, {"value", jsonString(kv.second)}});
      },
      false);
  std::printf("  \"extra\": %s,\n", doc.extra.c_str());
  std::string notes = "[";
  for (size_t i = 0; i < doc.notes.size(); ++i)
    notes += (i ? ", " : "") + jsonString(doc.notes[i]);
  std::printf("  \"notes\": %s]\n}\n", notes.c_str());
}
