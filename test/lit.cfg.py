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
for var in ("HOME", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%vmpack_src", config.vmpack_src_root))
config.substitutions.append(("%python", "python3"))

if config.vmpack_has_mlir:
    config.available_features.add("mlir")
for tool in ("unzip", "zipinfo"):
    if shutil.which(tool):
        config.available_features.add(tool)
