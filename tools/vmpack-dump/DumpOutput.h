//===- DumpOutput.h - Text and file output of vmpack-dump -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H

#include "vmpack/Archive/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vmpack::dump {

/// `s` as a JSON string literal in ASCII: names are arbitrary bytes.
std::string jsonString(const std::string &s);

/// Prints "vmpack-dump: error: MESSAGE" to stderr; returns 1.
int error(const std::string &message);

/// Writes `size` bytes to `path` through a temporary file beside it that
/// is renamed over `path` only when complete. `produce(offset, buffer, n)`
/// fills `n` bytes of the output starting at `offset`.
archive::Status writeOutputFile(
    const std::string &path, uint64_t size,
    const std::function<void(uint64_t, uint8_t *, size_t)> &produce);

/// A ggml type: "ggml Q4_0 (2)", "ggml type (99)" when this build does
/// not know it.
std::string ggmlTypeText(uint32_t type);

/// A quantized ggml type's scheme, as a line (quant::describe: "ggml.q4_K:
/// ui4 codes, groups of 32, scales f16 x ui6 (super-block 256), ..."), or
/// "" for a plain or unknown type.
std::string quantSchemeText(uint32_t ggmlType);

/// The same as a JSON object: {"scheme", "code_type", "group_size",
/// "scale_type" (the stored levels, outermost first, " x "-joined),
/// "offsets", "block_size", "shape" (logical), "description"}, or "null".
std::string quantSchemeJson(uint32_t ggmlType,
                            const std::vector<int64_t> &shape);

/// "[3, 128]".
std::string shapeList(const std::vector<int64_t> &shape);

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPOUTPUT_H
