# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Locates every third-party dependency. All of them come from Debian packages;
# the README says which package provides what and why vmpack needs it.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)

# Optional CRC-32 libraries with carry-less-multiply kernels (Checksum.cpp);
# zlib's crc32 is the fallback when neither is found.
option(VMPACK_WITH_ISAL "Use ISA-L's CRC-32 when found (libisal-dev)" ON)
option(VMPACK_WITH_LIBDEFLATE
  "Use libdeflate's CRC-32 when found (libdeflate-dev)" ON)
if(VMPACK_WITH_ISAL)
  find_path(VMPACK_ISAL_INCLUDE_DIR isa-l/crc.h)
  find_library(VMPACK_ISAL_LIBRARY NAMES isal)
  if(VMPACK_ISAL_INCLUDE_DIR AND VMPACK_ISAL_LIBRARY)
    add_library(vmpack::isal UNKNOWN IMPORTED)
    set_target_properties(vmpack::isal PROPERTIES
      IMPORTED_LOCATION ${VMPACK_ISAL_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${VMPACK_ISAL_INCLUDE_DIR})
    message(STATUS "CRC-32: ISA-L (${VMPACK_ISAL_LIBRARY})")
  endif()
endif()
if(VMPACK_WITH_LIBDEFLATE)
  find_path(VMPACK_LIBDEFLATE_INCLUDE_DIR libdeflate.h)
  find_library(VMPACK_LIBDEFLATE_LIBRARY NAMES deflate)
  if(VMPACK_LIBDEFLATE_INCLUDE_DIR AND VMPACK_LIBDEFLATE_LIBRARY)
    add_library(vmpack::libdeflate UNKNOWN IMPORTED)
    set_target_properties(vmpack::libdeflate PROPERTIES
      IMPORTED_LOCATION ${VMPACK_LIBDEFLATE_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${VMPACK_LIBDEFLATE_INCLUDE_DIR})
    message(STATUS "CRC-32: libdeflate (${VMPACK_LIBDEFLATE_LIBRARY})")
  endif()
endif()
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
  # add_mlir_doc writes the generated references under
  # ${MLIR_BINARY_DIR}/docs and hangs them on `mlir-doc`
  # (MLIRConfig.cmake defines that target).
  set(MLIR_BINARY_DIR ${PROJECT_BINARY_DIR})
  # Only the MLIR-dependent targets see LLVM/MLIR headers and definitions.
  set(VMPACK_MLIR_INCLUDE_DIRS ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  separate_arguments(VMPACK_LLVM_DEFINITIONS NATIVE_COMMAND
    "${LLVM_DEFINITIONS}")
endif()

find_program(VMPACK_LIT NAMES lit-22 lit HINTS ${VMPACK_LLVM_TOOLS_DIR}
  REQUIRED)
