//===- DumpOptions.cpp - vmpack-dump's command line
//-------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "DumpOptions.h"

#include "vmpack/Tools/ToolSupport.h"

#include <cstdlib>
#include <cstring>
#include <optional>

using namespace vmpack::dump;

const char *vmpack::dump::dumpUsage() {
  return "usage: vmpack-dump [options] MODULE\n"
         "\n"
         "Shows the segments of a vmpack module archive, or the entries of\n"
         "an IREE parameter archive (.irpa, recognised by its first bytes;\n"
         "it has no types, checksums or program: the type column is \"-\",\n"
         "--verify checks the layout only, --extract expands splats),\n"
         "or the tensors of a safetensors or GGUF file or set (by name or\n"
         "first bytes; a set by its index or first file; no checksums:\n"
         "--verify checks the structure only; here and in .vmpk, a planar\n"
         "set also as the one weight it stands for), or the tensors of an\n"
         "ONNX model and its external data files (MatMulNBits and\n"
         "DequantizeLinear weights with their scheme; no checksums), or\n"
         "the quantized weights and other tensors of a Hugging Face model\n"
         "directory (GPTQ, AWQ, compressed-tensors, MLX)\n"
         "as a table or --json.\n"
         "\n"
         "  (default)             a table: name, type, encoding, bytes,\n"
         "                        alignment, offset\n"
         "  --json                the same as JSON, one shape for every\n"
         "                        format (docs/dump-json.md)\n"
         "  --verify              full verification (every CRC, all padding,\n"
         "                        every byte); exit 0 only if all holds\n"
         "  --extract NAME -o FILE\n"
         "                        write segment NAME's stored bytes to FILE\n"
         "                        (- for standard output)\n"
         "  --mlir                the program as MLIR text, every constant\n"
         "                        rebuilt as the attribute it was compiled\n"
         "                        from (after a full verification), to\n"
         "                        stdout or -o FILE (.mlir text, .mlirbc\n"
         "                        bytecode); with:\n"
         "    --mlir-print-op-generic   every op in generic form\n"
         "    --mlir-print-debuginfo    with locations\n"
         "    --emit-bytecode           MLIR bytecode (needs -o)\n"
         "    --no-allow-unregistered-dialect\n"
         "                        reject ops of dialects vmpack does not\n"
         "                        have (accepted by default;\n"
         "                        --allow-unregistered-dialect is a no-op)\n"
         "  --threads N           threads for --verify and --load=read, 0 to\n"
         "                        1024 (default 0: all cores)\n"
         "  --load auto|mmap|read how to get the module into memory: map it,\n"
         "                        or read it (computing CRCs while reading);\n"
         "                        auto reads from network and FUSE file\n"
         "                        systems and maps elsewhere, unless\n"
         "                        VMPACK_LOAD_MODE says otherwise\n"
         "  -q, --quiet           --verify: print nothing but errors\n"
         "  --version             vmpack's version (and MLIR's)\n"
         "  -h, --help            this text\n"
         "\n"
         "A file is read as what its first bytes show, whatever its name;\n"
         "MLIR files are named with the tools that take them.\n"
         "Exit status: 0 success, 1 an error in the work, 2 a usage error.\n";
}

bool vmpack::dump::parseDumpOptions(int argc, char **argv, DumpOptions &options,
                                    std::string &error) {
  bool actionSet = false;
  auto setAction = [&](Action action, const std::string &flag) {
    if (actionSet) {
      error = "only one of --json, --verify, --extract, --mlir may be "
              "given (" +
              flag + ")";
      return false;
    }
    actionSet = true;
    options.action = action;
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // --name=VALUE is --name VALUE, as in every tool.
    std::optional<std::string> inlineValue;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos &&
        arg.rfind("--load=", 0) != 0 && arg.rfind("--threads=", 0) != 0) {
      inlineValue = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    bool valueUsed = false;
    auto value = [&](std::string &out) {
      valueUsed = true;
      if (inlineValue) {
        out = *inlineValue;
        return true;
      }
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    if (arg == "-h" || arg == "--help") {
      error.clear();
      return false;
    } else if (arg == "--json") {
      if (!setAction(Action::Json, arg))
        return false;
    } else if (arg == "--mlir") {
      if (!setAction(Action::Mlir, arg))
        return false;
    } else if (arg == "--verify") {
      if (!setAction(Action::Verify, arg))
        return false;
    } else if (arg == "--extract") {
      if (!setAction(Action::Extract, arg) || !value(options.extractName))
        return false;
    } else if (arg == "--mlir-print-op-generic") {
      options.printGeneric = true;
    } else if (arg == "--mlir-print-debuginfo") {
      options.printDebugInfo = true;
    } else if (arg == "--emit-bytecode") {
      options.emitBytecode = true;
    } else if (arg == "--allow-unregistered-dialect") {
      options.allowUnregistered = true;
    } else if (arg == "--no-allow-unregistered-dialect") {
      options.allowUnregistered = false;
    } else if (arg == "-o") {
      if (!value(options.outputPath))
        return false;
    } else if (arg == "--version") {
      options.version = true;
      return false;
    } else if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--load" || arg.rfind("--load=", 0) == 0 ||
               arg == "--threads" || arg.rfind("--threads=", 0) == 0) {
      bool load = arg.rfind("--load", 0) == 0;
      std::string name = load ? "--load" : "--threads";
      std::string text;
      if (arg == name) {
        if (!value(text))
          return false;
      } else {
        text = arg.substr(name.size() + 1);
      }
      if (load) {
        if (!tools::parseLoadMode(text)) {
          error = "--load needs auto, mmap or read, got '" + text + "'";
          return false;
        }
        options.load = text;
      } else {
        std::optional<unsigned> n = tools::parseThreads(text);
        if (!n) {
          error = "--threads needs a number from 0 (all cores) to " +
                  std::to_string(tools::kMaxThreads) + ", got '" + text + "'";
          return false;
        }
        options.threads = *n;
      }
    } else if (arg.size() > 1 && arg[0] == '-') {
      error = "unknown option '" + arg + "'";
      return false;
    } else if (options.modulePath.empty()) {
      options.modulePath = arg;
    } else {
      error = "more than one module given ('" + options.modulePath + "' and '" +
              arg + "')";
      return false;
    }
    if (inlineValue && !valueUsed) {
      error = arg + " takes no value (got '" + arg + "=" + *inlineValue + "')";
      return false;
    }
  }
  if (options.modulePath.empty()) {
    error = "no module given";
    return false;
  }
  if (options.action == Action::Extract && options.outputPath.empty()) {
    error = "--extract needs -o FILE";
    return false;
  }
  if (options.action != Action::Extract && options.action != Action::Mlir &&
      !options.outputPath.empty()) {
    error = "-o is only meaningful with --extract and --mlir";
    return false;
  }
  if (options.action != Action::Mlir &&
      (options.printGeneric || options.printDebugInfo ||
       options.emitBytecode)) {
    error = "--mlir-print-op-generic, --mlir-print-debuginfo and "
            "--emit-bytecode are options of --mlir";
    return false;
  }
  if (options.action == Action::Mlir && !options.outputPath.empty() &&
      options.outputPath != "-") {
    // The output is what it is named: .mlir text, .mlirbc bytecode.
    std::optional<tools::Format> named =
        tools::formatFromExtension(options.outputPath);
    if (named != tools::Format::Mlir && named != tools::Format::Mlirbc) {
      error = "'" + options.outputPath +
              "': --mlir writes MLIR, named .mlir (text) or .mlirbc "
              "(bytecode), or - for standard output";
      return false;
    }
    if (named == tools::Format::Mlir && options.emitBytecode) {
      error = "--emit-bytecode writes MLIR bytecode, and '" +
              options.outputPath + "' names MLIR text; name it .mlirbc";
      return false;
    }
    options.emitBytecode = named == tools::Format::Mlirbc;
  }
  if (options.emitBytecode && options.outputPath.empty()) {
    error = "--emit-bytecode needs -o FILE (or -o - for standard output)";
    return false;
  }
  return true;
}
