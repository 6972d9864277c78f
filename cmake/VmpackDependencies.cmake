# Locates every third-party dependency. All of them come from Debian packages;
# the README says which package provides what and why vmpack needs it.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(GTest REQUIRED)
if(VMPACK_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
find_package(FlatBuffers REQUIRED CONFIG)
find_program(FLATC_EXECUTABLE NAMES flatc REQUIRED)

# LLVM 22's tools (lit, FileCheck, not) live under its own prefix on Debian;
# `llvm-config-22` tells where without the user passing paths.
find_program(VMPACK_LLVM_CONFIG NAMES llvm-config-22 llvm-config
  HINTS /usr/lib/llvm-22/bin)
if(VMPACK_LLVM_CONFIG)
  execute_process(COMMAND ${VMPACK_LLVM_CONFIG} --prefix
    OUTPUT_VARIABLE VMPACK_LLVM_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE)
else()
  set(VMPACK_LLVM_PREFIX /usr/lib/llvm-22)
endif()
set(VMPACK_LLVM_TOOLS_DIR ${VMPACK_LLVM_PREFIX}/bin)

if(VMPACK_ENABLE_MLIR)
  # MLIR's package version file only accepts exact versions; check the
  # major version ourselves instead.
  find_package(MLIR REQUIRED CONFIG
    HINTS ${VMPACK_LLVM_PREFIX}/lib/cmake/mlir)
  if(NOT LLVM_VERSION_MAJOR EQUAL 22)
    message(FATAL_ERROR "vmpack needs MLIR/LLVM 22, found ${LLVM_VERSION}")
  endif()
  message(STATUS "Using MLIRConfig.cmake in: ${MLIR_DIR}")
  message(STATUS "Using LLVMConfig.cmake in: ${LLVM_DIR}")
  list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
  include(TableGen)
  include(AddLLVM)
  include(AddMLIR)
  # Only the MLIR-dependent targets see LLVM/MLIR headers and definitions.
  set(VMPACK_MLIR_INCLUDE_DIRS ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  separate_arguments(VMPACK_LLVM_DEFINITIONS NATIVE_COMMAND
    "${LLVM_DEFINITIONS}")
endif()

find_program(VMPACK_LIT NAMES lit-22 lit HINTS ${VMPACK_LLVM_TOOLS_DIR}
  REQUIRED)
