//===- MlirToolSupport.cpp - The shared command line of the MLIR tools ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Tools/MlirToolSupport.h"

#include "vmpack/Tools/MlirFiles.h"
#include "vmpack/Tools/ToolSupport.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

using namespace vmpack;
using namespace vmpack::tools;

namespace {
const char *versionTool = "vmpack";
} // namespace

std::optional<int>
vmpack::tools::parseMlirToolCommandLine(int argc, char **argv, const char *tool,
                                        llvm::StringRef overview) {
  versionTool = tool;
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << versionText(versionTool, mlirVersion());
  });
  // LLVM prints some errors (a bad option value) to stderr directly, not
  // to the stream it is given: stderr goes to a temporary file meanwhile.
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  llvm::errs().flush();
  std::FILE *captured = std::tmpfile();
  int savedStderr = captured ? ::dup(STDERR_FILENO) : -1;
  if (savedStderr >= 0)
    ::dup2(::fileno(captured), STDERR_FILENO);
  bool parsed =
      llvm::cl::ParseCommandLineOptions(argc, argv, overview, &errorStream);
  llvm::errs().flush();
  if (savedStderr >= 0) {
    ::dup2(savedStderr, STDERR_FILENO);
    ::close(savedStderr);
    std::rewind(captured);
    char buffer[4096];
    size_t n;
    std::string direct;
    while ((n = std::fread(buffer, 1, sizeof(buffer), captured)) > 0)
      direct.append(buffer, n);
    errors = direct + errors;
  }
  if (captured)
    std::fclose(captured);
  if (parsed) {
    llvm::errs() << errors;
    return std::nullopt;
  }
  // LLVM prefixes each line with the program name as typed; say it as the
  // other tools do.
  llvm::StringRef program = llvm::sys::path::filename(argv[0]);
  llvm::StringRef rest = errors;
  bool first = true;
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    line = line.trim();
    if (line.consume_front(program))
      line.consume_front(":");
    // "Try: 'PATH --help'" is said below, the same in every tool.
    line = line.split("  Try: ").first.trim();
    line.consume_back("!");
    if (line.empty())
      continue;
    llvm::errs() << tool << (first ? ": error: " : ": ") << line << "\n";
    first = false;
  }
  llvm::errs() << "(" << tool << " --help shows the usage)\n";
  return kExitUsage;
}

ToolDiagnostics::ToolDiagnostics(mlir::MLIRContext *context, const char *tool,
                                 bool quiet, llvm::raw_ostream *stream)
    : context(context) {
  id = context->getDiagEngine().registerHandler(
      [tool, quiet, stream](mlir::Diagnostic &diag) -> mlir::LogicalResult {
        llvm::raw_ostream &os = stream ? *stream : llvm::errs();
        mlir::DiagnosticSeverity severity = diag.getSeverity();
        if (quiet && severity != mlir::DiagnosticSeverity::Error)
          return mlir::success();
        if (!mlir::isa<mlir::UnknownLoc>(diag.getLocation()))
          return mlir::failure();
        const char *kind =
            severity == mlir::DiagnosticSeverity::Error     ? "error"
            : severity == mlir::DiagnosticSeverity::Warning ? "warning"
            : severity == mlir::DiagnosticSeverity::Note    ? "note"
                                                            : "remark";
        os << tool << ": " << kind << ": " << diag.str() << "\n";
        for (mlir::Diagnostic &note : diag.getNotes())
          os << tool << ": note: " << note.str() << "\n";
        return mlir::success();
      });
}

ToolDiagnostics::~ToolDiagnostics() {
  context->getDiagEngine().eraseHandler(id);
}
