# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `cmake --install BUILD --prefix P`: the tools, the C API header, libvmpack
# (shared and static, lib/Runtime/CMakeLists.txt), a CMake package
# (find_package(vmpack) gives vmpack::runtime and vmpack::runtime_static,
# and with COMPONENTS compiler vmpack::compiler) and vmpack.pc for
# pkg-config. With MLIR, also the compiler library libvmpack_compiler.a
# (lib/CMakeLists.txt) and the C++ headers of every layer.
# scripts/check-install.sh builds the consumers of test/install/ against it.
include(CMakePackageConfigHelpers)

set(tools vmpack-dump vmpack-convert)
if(VMPACK_ENABLE_MLIR)
  list(APPEND tools vmpack-opt vmpack-compile vmpack-gen)
endif()
install(TARGETS ${tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/vmpack/vmpack.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vmpack)
if(VMPACK_ENABLE_MLIR)
  # The C++ API: headers, TableGen sources (for dialects that build on
  # vmpack's) and the .inc files generated from them.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/vmpack
    ${PROJECT_BINARY_DIR}/include/vmpack
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE
    # The index schema's FlatBuffers code is the archive layer's own.
    PATTERN "module_generated.h" EXCLUDE)
endif()

set(VMPACK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vmpack)
install(EXPORT vmpackTargets NAMESPACE vmpack::
  DESTINATION ${VMPACK_CMAKE_DIR})
if(VMPACK_ENABLE_MLIR)
  install(EXPORT vmpackCompilerTargets NAMESPACE vmpack::
    DESTINATION ${VMPACK_CMAKE_DIR})
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vmpackConfig.cmake.in
  ${PROJECT_BINARY_DIR}/vmpackConfig.cmake
  INSTALL_DESTINATION ${VMPACK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vmpackConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vmpackConfig.cmake
  ${PROJECT_BINARY_DIR}/vmpackConfigVersion.cmake
  DESTINATION ${VMPACK_CMAKE_DIR})

# pkg-config: `pkg-config --libs vmpack` links the shared library; with
# --static the archive's own dependencies follow.
set(VMPACK_PC_LIBS_PRIVATE "-lz -lpthread -lstdc++ -lm")
if(TARGET vmpack::isal)
  string(PREPEND VMPACK_PC_LIBS_PRIVATE "-lisal ")
endif()
if(TARGET vmpack::libdeflate)
  string(PREPEND VMPACK_PC_LIBS_PRIVATE "-ldeflate ")
endif()
# The prefix is found from the .pc file's own place, so that
# `cmake --install --prefix P` gives a correct file for any P.
file(RELATIVE_PATH VMPACK_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/vmpack.pc.in
  ${PROJECT_BINARY_DIR}/vmpack.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vmpack.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
