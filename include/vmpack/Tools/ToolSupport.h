//===- ToolSupport.h - What every vmpack tool does alike ----------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Exit codes, the "TOOL: error: ..." prefix, --version, -q/-v, the shared
// flags with one spelling and one range (--threads, --alignment, --load),
// and -o - (standard output). No MLIR here: the MLIR tools add MLIR's
// version (MlirToolSupport.h) and keep MLIR's located diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_TOOLSUPPORT_H
#define VMPACK_TOOLS_TOOLSUPPORT_H

#include "vmpack/Archive/LoadedFile.h"
#include "vmpack/Tools/FormatTable.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vmpack::tools {

/// Every tool: 0 success, 1 an error in the work, 2 a usage error.
enum ExitCode : int { kExitSuccess = 0, kExitFailure = 1, kExitUsage = 2 };

/// vmpack's version, CMake's project version ("0.1.0").
const char *vmpackVersion();
/// "vmpack-dump (vmpack) 0.1.0\n", plus "MLIR VERSION\n" when the tool
/// links MLIR (`mlirVersion` non-null).
std::string versionText(const char *tool, const char *mlirVersion);

/// Messages of one tool: errors and warnings to stderr with the tool's
/// name, progress (-v) to stderr, results to stdout unless -q.
class Reporter {
public:
  explicit Reporter(const char *tool) : tool(tool) {}
  const char *name() const { return tool; }
  bool quiet = false;
  bool verbose = false;
  /// Results go to stderr while the output itself goes to stdout (-o -).
  bool resultsToStderr = false;

  /// "TOOL: error: MESSAGE"; returns kExitFailure.
  int error(const std::string &message) const;
  /// "TOOL: error: MESSAGE" and where the usage is; returns kExitUsage.
  int usageError(const std::string &message) const;
  /// The code a Status maps to: kExitUsage for InvalidArgument from option
  /// checks (`usage`), else kExitFailure.
  int fail(const Status &status, bool usage = false) const;
  /// "TOOL: warning: MESSAGE", unless quiet.
  void warning(const std::string &message) const;
  /// MESSAGE to stdout (stderr with resultsToStderr), unless quiet.
  void result(const std::string &message) const;
  /// "TOOL: MESSAGE" to stderr, with -v only.
  void progress(const std::string &message) const;

private:
  const char *tool;
};

/// --alignment: a power of two in [1, archive::kMaxAlignment], the same
/// range in every tool.
std::optional<uint32_t> parseAlignment(std::string_view text);
/// "a power of two from 1 to 65536".
std::string alignmentRange();
/// --threads: 0 (all cores) to kMaxThreads.
inline constexpr unsigned kMaxThreads = 1024;
std::optional<unsigned> parseThreads(std::string_view text);
/// --load: auto, mmap or read.
std::optional<archive::LoadMode> parseLoadMode(std::string_view text);

/// Command-line scanning for the tools that do not use LLVM's cl: options
/// are spelled `--name=VALUE` or `--name VALUE`, flags `--name`.
class Args {
public:
  Args(int argc, char **argv) : argc(argc), argv(argv) {}
  bool next() { return ++i < argc; }
  std::string current() const { return argv[i]; }
  /// True when the current argument is `name` (a flag without a value).
  bool flag(const char *name) const { return current() == name; }
  /// True when the current argument is `name` or `name=...`; then `value`
  /// is set, or `error` when the value is missing.
  bool option(const char *name, std::optional<std::string> &value,
              std::string &error);

private:
  int argc;
  char **argv;
  int i = 0;
};

/// An output file, or for "-" standard output: the writers fill a file
/// (out of order and in parallel), so standard output gets a file written
/// in a private temporary directory ($TMPDIR, else /tmp), copied out when
/// complete and removed. Binary formats are never written to a terminal.
class OutputPath {
public:
  /// InvalidArgument for a binary format to a terminal.
  static StatusOr<OutputPath> create(const std::string &path, Format format);
  OutputPath(OutputPath &&other) noexcept;
  OutputPath &operator=(OutputPath &&) = delete;
  ~OutputPath();
  /// Where the writer writes.
  const std::string &path() const { return writePath; }
  /// The name for messages: "<stdout>" or the path.
  std::string display() const;
  bool toStdout() const { return !tempDir.empty(); }
  /// For standard output: copies the written file there. Call once the
  /// writer succeeded.
  Status finish();

private:
  OutputPath() = default;
  std::string writePath;
  std::string tempDir;
};

} // namespace vmpack::tools

#endif // VMPACK_TOOLS_TOOLSUPPORT_H
