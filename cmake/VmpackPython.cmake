# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The Python package (python/): decides VMPACK_ENABLE_PYTHON and finds its
# dependencies, all Debian packages (the README says which): python3-dev
# (the interpreter and headers), pybind11-dev / python3-pybind11 and
# python3-numpy; pytest (python3-pytest) runs the tests.
#
# -DVMPACK_ENABLE_PYTHON=ON requires them; unset, the package is built when
# they are found. In sanitizer builds (VMPACK_SANITIZE, VMPACK_FUZZ) the
# extension is instrumented and the tests run with the compiler's shared
# ASan (and, for GCC, UBSan) runtime preloaded into the uninstrumented
# python3 (python/tests/CMakeLists.txt).

macro(vmpack_find_python required)
  find_package(Python3 3.8 COMPONENTS Interpreter Development.Module NumPy
    QUIET)
  # The first python3 on PATH may be one without numpy (a pyenv or a venv
  # shim); Debian's own interpreter is the one python3-numpy serves.
  if(NOT Python3_NumPy_FOUND AND NOT DEFINED CACHE{VMPACK_PYTHON_RETRIED}
     AND EXISTS /usr/bin/python3)
    set(VMPACK_PYTHON_RETRIED TRUE CACHE INTERNAL "")
    unset(Python3_EXECUTABLE CACHE)
    unset(_Python3_EXECUTABLE CACHE)
    unset(_Python3_INTERPRETER_SIGNATURE CACHE)
    unset(_Python3_NumPy_INCLUDE_DIR CACHE)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH
      "The Python interpreter" FORCE)
    find_package(Python3 3.8 COMPONENTS Interpreter Development.Module NumPy
      QUIET)
  endif()
  if(Python3_FOUND AND Python3_NumPy_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
  set(VMPACK_PYTHON_FOUND FALSE)
  if(Python3_FOUND AND Python3_NumPy_FOUND AND pybind11_FOUND)
    set(VMPACK_PYTHON_FOUND TRUE)
  elseif(${required})
    message(FATAL_ERROR "VMPACK_ENABLE_PYTHON=ON needs a Python 3 with its "
      "headers and numpy, and pybind11 (Debian: python3-dev python3-numpy "
      "pybind11-dev python3-pybind11). Interpreter: '${Python3_EXECUTABLE}', "
      "numpy found: '${Python3_NumPy_FOUND}', pybind11 found: "
      "'${pybind11_FOUND}'. -DPython3_EXECUTABLE=... picks another.")
  endif()
endmacro()

if(NOT DEFINED VMPACK_ENABLE_PYTHON)
  vmpack_find_python(OFF)
  set(vmpack_python_default ${VMPACK_PYTHON_FOUND})
  option(VMPACK_ENABLE_PYTHON
    "Build the Python package (python3-dev, pybind11, numpy)"
    ${vmpack_python_default})
  if(NOT VMPACK_PYTHON_FOUND)
    message(STATUS "Python package: off (needs python3-dev, pybind11-dev "
      "and python3-numpy; scripts/install-deps.sh installs them)")
  endif()
endif()

if(VMPACK_ENABLE_PYTHON)
  if(NOT VMPACK_PYTHON_FOUND)
    vmpack_find_python(ON)
  endif()
endif()
