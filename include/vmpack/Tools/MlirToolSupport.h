//===- MlirToolSupport.h - The shared command line of the MLIR tools -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// vmpack-compile, vmpack-opt and vmpack-gen use LLVM's cl:: options and
// MLIR's diagnostics. This header makes them behave as the other tools
// (ToolSupport.h): usage errors exit 2 as "TOOL: error: ...", --version
// gives vmpack's and MLIR's versions, diagnostics without a location print
// "TOOL: error: ..." (never "<unknown>:0:"), and -q drops warnings. Part of
// VmpackToolsMlir.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TOOLS_MLIRTOOLSUPPORT_H
#define VMPACK_TOOLS_MLIRTOOLSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace vmpack::tools {

/// Sets the --version printer and parses the command line. Returns an exit
/// code to end with (kExitUsage after printing the errors), or nullopt to
/// go on.
std::optional<int> parseMlirToolCommandLine(int argc, char **argv,
                                            const char *tool,
                                            llvm::StringRef overview);

/// While alive: diagnostics whose location is unknown print as
/// "TOOL: error: MESSAGE" (notes as "TOOL: note: ...") to `os` (stderr by
/// default; Python's vmpack.compile collects them for its exception); with
/// `quiet`, warnings and remarks are dropped. Other diagnostics go on to
/// the handlers registered before (MLIR's located ones).
class ToolDiagnostics {
public:
  ToolDiagnostics(mlir::MLIRContext *context, const char *tool, bool quiet,
                  llvm::raw_ostream *os = nullptr);
  ~ToolDiagnostics();
  ToolDiagnostics(const ToolDiagnostics &) = delete;
  ToolDiagnostics &operator=(const ToolDiagnostics &) = delete;

private:
  mlir::MLIRContext *context;
  mlir::DiagnosticEngine::HandlerID id;
};

} // namespace vmpack::tools

#endif // VMPACK_TOOLS_MLIRTOOLSUPPORT_H
