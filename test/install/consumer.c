/*===- consumer.c - A program built against an installed vmpack ----------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * usage: vmpack-consumer MODULE SEGMENT
 *
 * Opens MODULE through the installed libvmpack, verifies it, unpacks every
 * element of SEGMENT to float32 and prints the count and the sum.
 *
 *===---------------------------------------------------------------------===*/

#include <vmpack/vmpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: vmpack-consumer MODULE SEGMENT\n");
    return 2;
  }
  vmpack_module_t *module = NULL;
  vmpack_status_t status = vmpack_module_open_file(argv[1], &module);
  if (status == VMPACK_OK)
    status = vmpack_module_verify(module, 0);
  size_t index = 0;
  if (status == VMPACK_OK)
    status =
        vmpack_module_find_segment(module, argv[2], strlen(argv[2]), &index);
  vmpack_segment_info_t info;
  if (status == VMPACK_OK)
    status = vmpack_module_segment_info(module, index, &info);
  float *values = NULL;
  if (status == VMPACK_OK) {
    values =
        malloc(info.element_count ? info.element_count * sizeof *values : 1);
    status = values
                 ? vmpack_segment_unpack(module, index, 0, info.element_count,
                                         VMPACK_DTYPE_FLOAT32, values,
                                         info.element_count * sizeof *values)
                 : VMPACK_ERROR_OUT_OF_MEMORY;
  }
  if (status != VMPACK_OK) {
    fprintf(stderr, "vmpack-consumer: %s: %s\n", vmpack_status_name(status),
            vmpack_last_error());
    free(values);
    vmpack_module_close(module);
    return 1;
  }
  double sum = 0;
  for (uint64_t i = 0; i < info.element_count; ++i)
    sum += values[i];
  printf("%s: %llu elements, sum %g\n", argv[2],
         (unsigned long long)info.element_count, sum);
  free(values);
  vmpack_module_close(module);
  return 0;
}
