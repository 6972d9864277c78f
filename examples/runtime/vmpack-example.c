/*===- vmpack-example.c - Open a module, list it, unpack a segment --------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * usage: vmpack-example FILE [SEGMENT]
 *
 * FILE is a .vmpk module, an .irpa, a safetensors or a GGUF file. Prints
 * every segment (with its ggml type if it holds ggml blocks) and the
 * file's metadata, verifies the whole file, then unpacks SEGMENT (or the
 * first segment) to int32 or float32 and prints its first values.
 *
 *===---------------------------------------------------------------------===*/

#include "vmpack/vmpack.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int report(vmpack_status_t status, const char *what) {
  fprintf(stderr, "vmpack-example: %s: %s: %s\n", what,
          vmpack_status_name(status), vmpack_last_error());
  return 1;
}

static int isFloatKind(vmpack_scalar_kind_t kind) {
  return kind >= VMPACK_SCALAR_F4E2M1FN;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: vmpack-example FILE [SEGMENT]\n");
    return 2;
  }
  vmpack_module_t *module = NULL;
  vmpack_status_t status = vmpack_module_open_file(argv[1], &module);
  if (status != VMPACK_OK)
    return report(status, "open");

  static const char *const containers[] = {"module", "irpa", "safetensors",
                                           "gguf"};
  size_t count = vmpack_module_segment_count(module);
  vmpack_container_t container = vmpack_module_container(module);
  printf("%s '%s': %zu segments\n",
         (size_t)container < sizeof(containers) / sizeof(containers[0])
             ? containers[container]
             : "file",
         vmpack_module_name(module), count);
  for (size_t i = 0; i < count; ++i) {
    vmpack_segment_info_t info;
    vmpack_foreign_info_t foreign;
    vmpack_module_segment_info(module, i, &info);
    vmpack_segment_foreign_info(module, i, &foreign);
    printf("  %-16s %-24s %8" PRIu64 " bytes at %" PRIu64 "%s%s\n", info.name,
           info.mlir_type, info.length, info.offset, foreign.type[0] ? " " : "",
           foreign.type);
  }
  for (size_t i = 0; i < vmpack_module_metadata_count(module); ++i) {
    vmpack_metadata_entry_t entry;
    vmpack_module_metadata_entry(module, i, &entry);
    printf("  metadata %s = %.60s (%s)\n", entry.key, entry.value,
           entry.value_type);
  }

  status = vmpack_module_verify(module, 0);
  if (status != VMPACK_OK) {
    report(status, "verify");
    vmpack_module_close(module);
    return 1;
  }
  printf("verified\n");

  size_t index = 0;
  if (argc == 3) {
    status =
        vmpack_module_find_segment(module, argv[2], strlen(argv[2]), &index);
    if (status != VMPACK_OK) {
      report(status, "find");
      vmpack_module_close(module);
      return 1;
    }
  }
  if (count == 0) {
    vmpack_module_close(module);
    return 0;
  }
  vmpack_segment_info_t info;
  vmpack_module_segment_info(module, index, &info);
  uint64_t n = info.element_count < 8 ? info.element_count : 8;
  size_t values = (size_t)n * (info.is_complex ? 2 : 1);
  int asFloat = isFloatKind(info.scalar_kind);
  void *buffer = malloc(values * 4 + 1);
  status = vmpack_segment_unpack(
      module, index, 0, n, asFloat ? VMPACK_DTYPE_FLOAT32 : VMPACK_DTYPE_INT32,
      buffer, values * 4);
  if (status != VMPACK_OK) {
    report(status, "unpack");
    free(buffer);
    vmpack_module_close(module);
    return 1;
  }
  printf("%s[0:%" PRIu64 "] =", info.name, n);
  for (size_t i = 0; i < values; ++i) {
    if (asFloat)
      printf(" %g", (double)((float *)buffer)[i]);
    else
      printf(" %" PRId32, ((int32_t *)buffer)[i]);
  }
  printf("\n");
  free(buffer);
  vmpack_module_close(module);
  return 0;
}
