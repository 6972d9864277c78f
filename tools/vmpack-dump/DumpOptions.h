//===- DumpOptions.h - vmpack-dump's command line ------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// All of vmpack-dump's options are declared and parsed here, in one table,
// so that adding one (e.g. --mlir, implemented in its own file) means one
// field, one table row and one branch in main.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_VMPACK_DUMP_DUMPOPTIONS_H
#define VMPACK_TOOLS_VMPACK_DUMP_DUMPOPTIONS_H

#include <string>

namespace vmpack::dump {

enum class Action { Table, Json, Verify, Extract, Mlir };

struct DumpOptions {
  std::string modulePath;
  Action action = Action::Table;
  std::string extractName;
  std::string outputPath;
  unsigned threads = 0;
  /// --load: how the module gets into memory ("auto", "mmap", "read").
  std::string load = "auto";
  /// --mlir: accept ops of dialects vmpack does not have (default on).
  bool allowUnregistered = true;
  /// --mlir output form, as MLIR's tools name it.
  bool printGeneric = false;
  bool printDebugInfo = false;
  bool emitBytecode = false;
  /// -q: --verify prints nothing on success.
  bool quiet = false;
  /// --version: print the versions and stop.
  bool version = false;
};

/// Parses argv. On a usage error returns false with `error` set; on
/// --help or --version returns false with `error` empty.
bool parseDumpOptions(int argc, char **argv, DumpOptions &options,
                      std::string &error);

/// The usage text.
const char *dumpUsage();

} // namespace vmpack::dump

#endif // VMPACK_TOOLS_VMPACK_DUMP_DUMPOPTIONS_H
