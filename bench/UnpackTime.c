/*===- UnpackTime.c - Time one segment's unpack through the C runtime ----===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: vmpack-unpack-time MODULE SEGMENT [int8|int16|int32|float32] [RUNS]
 *
 * Opens MODULE, unpacks the whole of SEGMENT into one buffer RUNS times
 * (default 10; the first run, which also faults the buffer in, is not
 * counted) and prints the best and median wall time and the output rate.
 * The reference bench/python_unpack.py compares the Python package with.
 *
 *===---------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 199309L
#include "vmpack/vmpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: %s MODULE SEGMENT [int8|int16|int32|float32] "
            "[RUNS]\n",
            argv[0]);
    return 1;
  }
  const char *names[] = {"int8", "int16", "int32", "float32"};
  const size_t sizes[] = {1, 2, 4, 4};
  int dtype = 0;
  if (argc > 3) {
    for (dtype = 0; dtype < 4 && strcmp(argv[3], names[dtype]); ++dtype)
      ;
    if (dtype == 4) {
      fprintf(stderr, "unknown dtype '%s'\n", argv[3]);
      return 1;
    }
  }
  int runs = argc > 4 ? atoi(argv[4]) : 10;
  if (runs < 1 || runs > 1000)
    runs = 10;
  vmpack_module_t *module;
  size_t index;
  vmpack_segment_info_t info;
  if (vmpack_module_open_file(argv[1], &module) != VMPACK_OK ||
      vmpack_module_find_segment(module, argv[2], strlen(argv[2]), &index) !=
          VMPACK_OK ||
      vmpack_module_segment_info(module, index, &info) != VMPACK_OK) {
    fprintf(stderr, "%s\n", vmpack_last_error());
    return 1;
  }
  size_t values = (size_t)info.element_count * (info.is_complex ? 2 : 1);
  size_t bytes = values * sizes[dtype];
  void *out = malloc(bytes ? bytes : 1);
  double *times = malloc(sizeof(double) * (size_t)(runs + 1));
  if (!out || !times) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (int r = 0; r <= runs; ++r) {
    double start = now();
    if (vmpack_segment_unpack(module, index, 0, info.element_count,
                              (vmpack_dtype_t)dtype, out, bytes) != VMPACK_OK) {
      fprintf(stderr, "%s\n", vmpack_last_error());
      return 1;
    }
    times[r] = now() - start;
  }
  qsort(times + 1, (size_t)runs, sizeof(double), compareDoubles);
  double best = times[1], median = times[1 + runs / 2];
  printf("%s %s -> %s: %zu bytes stored, %zu bytes out; best %.4f s "
         "(%.2f GB/s out), median %.4f s (%.2f GB/s out), %d runs\n",
         argv[2], info.element_type, names[dtype], (size_t)info.length, bytes,
         best, (double)bytes / best / 1e9, median, (double)bytes / median / 1e9,
         runs);
  free(times);
  free(out);
  vmpack_module_close(module);
  return 0;
}
