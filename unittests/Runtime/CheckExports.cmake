# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Checks that a shared library's defined dynamic symbols are exactly the
# functions a header declares with VMPACK_API.
#   cmake -DNM=nm -DLIBRARY=libvmpack.so -DHEADER=vmpack.h -P CheckExports.cmake
execute_process(COMMAND ${NM} -D --defined-only --format=posix ${LIBRARY}
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE nm_result)
if(NOT nm_result EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" nm_lines "${nm_out}")
set(exported)
foreach(line IN LISTS nm_lines)
  if(line MATCHES "^([^ ]+) ")
    list(APPEND exported ${CMAKE_MATCH_1})
  endif()
endforeach()
list(SORT exported)

file(READ ${HEADER} header)
# Declarations: "VMPACK_API <return type> vmpack_name(", possibly over lines.
string(REGEX MATCHALL "VMPACK_API[^;(]*[ \n*](vmpack_[a-z0-9_]+)\\(" decls
  "${header}")
set(declared)
foreach(d IN LISTS decls)
  string(REGEX REPLACE ".*[ \n*](vmpack_[a-z0-9_]+)\\($" "\\1" name "${d}")
  list(APPEND declared ${name})
endforeach()
list(SORT declared)
list(LENGTH declared n_declared)
if(n_declared LESS 10)
  message(FATAL_ERROR "found only ${n_declared} VMPACK_API functions in "
    "${HEADER}: the pattern no longer matches the header")
endif()

if(NOT exported STREQUAL declared)
  set(extra ${exported})
  list(REMOVE_ITEM extra ${declared})
  set(missing ${declared})
  list(REMOVE_ITEM missing ${exported})
  message(FATAL_ERROR "${LIBRARY} exports what vmpack.h does not declare: "
    "[${extra}]; declared but not exported: [${missing}]")
endif()
message(STATUS "${n_declared} exported symbols, all declared in vmpack.h")
