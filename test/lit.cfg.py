# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# -*- Python -*-
# lit configuration for vmpack's tool tests.

import os
import shutil

import lit.formats

config.name = "vmpack"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vmpack_obj_root, "test")

# vmpack's tools first, then LLVM 22's FileCheck, not, split-file, count.
path = [config.vmpack_tools_dir, config.llvm_tools_dir,
        config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
for var in ("HOME", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%vmpack_src", config.vmpack_src_root))
config.substitutions.append(("%python", "python3"))
# %exit N CMD: CMD must exit with status N exactly (test/expect_exit.py).
config.substitutions.append(
    ("%exit", "python3 " + os.path.join(config.vmpack_src_root, "test",
                                        "expect_exit.py")))
# vmpack-dump without libMLIR (its start-up dominates tests that run it
# thousands of times): the test-only twin in MLIR builds, else the tool.
plain_dump = os.path.join(config.vmpack_tools_dir, "vmpack-dump-archive-only")
config.substitutions.append(
    ("%vmpack_dump_plain",
     plain_dump if os.path.exists(plain_dump) else "vmpack-dump"))
# Tests that start a tool thousands of times take every Nth case under the
# sanitizers, whose start-up and exit checks cost ~50 ms a process; the
# unit tests cover every case in-process there.
config.substitutions.append(
    ("%damage_stride", "7" if config.vmpack_sanitize else "1"))
# The corpus (test/corpus) compiles each source in one rotated encoding
# there, instead of in all three.
config.substitutions.append(
    ("%corpus_encodings", "rotate" if config.vmpack_sanitize else "all"))
if config.vmpack_sanitize:
    config.available_features.add("sanitizers")
config.substitutions.append(
    ("%fault_inject",
     os.path.join(config.vmpack_lib_dir, "libvmpack-fault-inject.so")))

# A python3 with numpy for the independent safetensors reader
# (test/Formats/read_safetensors.py); Debian's, when another python3 comes
# first on PATH.
import subprocess
for candidate in ("/usr/bin/python3", shutil.which("python3")):
    if candidate and subprocess.run(
            [candidate, "-c", "import numpy"], capture_output=True).returncode == 0:
        config.available_features.add("numpy")
        config.substitutions.append(("%numpy_python", candidate))
        break

# A python3 with jsonschema (Debian's python3-jsonschema) to validate
# vmpack-dump --json against docs/vmpack-dump.schema.json.
for candidate in ("/usr/bin/python3", shutil.which("python3")):
    if candidate and subprocess.run(
            [candidate, "-c", "import jsonschema"],
            capture_output=True).returncode == 0:
        config.available_features.add("jsonschema")
        config.substitutions.append(("%jsonschema_python", candidate))
        break

# A python3 with the onnx package (Debian's python3-onnx) and numpy, to
# build ONNX models for tests (test/vmpack-dump/Inputs/make_onnx.py).
for candidate in ("/usr/bin/python3", shutil.which("python3")):
    if candidate and subprocess.run(
            [candidate, "-c", "import onnx, numpy"],
            capture_output=True).returncode == 0:
        config.available_features.add("onnx")
        config.substitutions.append(("%onnx_python", candidate))
        break
else:
    lit_config.note("no python3 with the onnx package (Debian: python3-onnx): "
                    "tests that build ONNX models are unsupported")

# IREE's tools in ../shared beside the checkout (shared/iree-tools/README.md).
iree_tools = os.path.join(os.path.dirname(config.vmpack_src_root), "shared",
                          "iree-tools")
if os.path.exists(os.path.join(iree_tools, "iree-dump-parameters")):
    config.available_features.add("iree-tools")
    config.substitutions.append(("%iree_tools", iree_tools))

if config.vmpack_has_mlir:
    config.available_features.add("mlir")
# Root ignores file permissions: tests of unwritable directories skip.
if hasattr(os, "geteuid") and os.geteuid() != 0:
    config.available_features.add("non-root")
# Root can give a file any owner, and run a tool as another user (setpriv):
# test/reliability/replace-owner.test.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")
# ... when user 65534 can run the tools and reach the build tree (a
# checkout under /root cannot be).
if shutil.which("setpriv") and subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh",
         "-c", 'test -x "$0" && test -x "$1" && "$0" --version',
         os.path.join(config.vmpack_tools_dir, "vmpack-convert"),
         config.vmpack_obj_root], capture_output=True).returncode == 0:
    config.available_features.add("setpriv")
for tool in ("unzip", "zipinfo"):
    if shutil.which(tool):
        config.available_features.add(tool)

# IREE's own runtime tools (../shared/iree-tools beside the source tree, or
# $VMPACK_IREE_TOOLS): the real client for .irpa interoperability tests.
iree_tools = os.environ.get("VMPACK_IREE_TOOLS") or os.path.join(
    config.vmpack_src_root, "..", "shared", "iree-tools")
iree_tool_names = ("iree-dump-parameters", "iree-convert-parameters",
                   "iree-create-parameters")
if all(os.access(os.path.join(iree_tools, t), os.X_OK)
       for t in iree_tool_names):
    config.available_features.add("iree-tools")
    config.substitutions.append(("%iree_tools", os.path.abspath(iree_tools)))
else:
    lit_config.note("IREE's tools are not in '%s' (set VMPACK_IREE_TOOLS): "
                    "tests that need them are unsupported" % iree_tools)

# llama.cpp's libggml-base.so from npm (scripts/install-npm-deps.sh), or
# $VMPACK_GGML_BASE_LIB: ggml's own quantizer, dequantizers and GGUF code
# as the reference of the quantization tests.
ggml_lib = os.environ.get("VMPACK_GGML_BASE_LIB") or os.path.join(
    config.vmpack_src_root, "third_party", "npm", "node_modules",
    "@node-llama-cpp", "linux-x64", "bins", "linux-x64", "libggml-base.so")
if os.path.exists(ggml_lib):
    config.available_features.add("ggml")
    config.substitutions.append(("%ggml_lib", os.path.abspath(ggml_lib)))
else:
    lit_config.note("llama.cpp's libggml-base.so is not at '%s' (run "
                    "scripts/install-npm-deps.sh or set VMPACK_GGML_BASE_LIB): "
                    "tests that need it are unsupported" % ggml_lib)
