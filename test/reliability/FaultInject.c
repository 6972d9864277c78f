/*===- FaultInject.c - LD_PRELOAD shim: write faults on demand, for tests -===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Test-only. Preloaded into a tool, it makes the writer's file system calls
 * fail the way a full disk or a broken device does, without root, mounts
 * or real disk space. Controlled by environment variables:
 *
 *   VMPACK_FAULT_LIMIT=N      the "disk" holds N bytes: posix_fallocate and
 *                             fallocate beyond N fail, pwrite writes up to
 *                             N bytes in total (a short write), then fails
 *   VMPACK_FAULT_ERRNO=NAME   ENOSPC (default), EIO or EFBIG
 *   VMPACK_FAULT_FALLOCATE=unsupported
 *                             posix_fallocate/fallocate report EOPNOTSUPP,
 *                             as on file systems without it, so the limit
 *                             is only met by pwrite
 *   VMPACK_FAULT_PAUSE_FILE=P instead of failing at the limit, create P and
 *                             wait until SIGINT or SIGTERM has been handled
 *                             by the program's own handler, then go on:
 *                             a deterministic "signal during a long
 *                             write" for interruption tests
 *
 * Only pwrite and the two fallocate calls are affected; reading the input
 * and everything else work normally.
 *
 *===---------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static atomic_ullong written;
static atomic_int handledSignal;
static void (*appHandlers[65])(int);

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static int limited(unsigned long long *limit) {
  const char *v = env("VMPACK_FAULT_LIMIT");
  if (!v)
    return 0;
  *limit = strtoull(v, NULL, 10);
  return 1;
}

static int faultErrno(void) {
  const char *v = env("VMPACK_FAULT_ERRNO");
  if (v && strcmp(v, "EIO") == 0)
    return EIO;
  if (v && strcmp(v, "EFBIG") == 0)
    return EFBIG;
  return ENOSPC;
}

static int fallocateUnsupported(void) {
  const char *v = env("VMPACK_FAULT_FALLOCATE");
  return v && strcmp(v, "unsupported") == 0;
}

/* Runs the program's handler, then records that a signal was handled. */
static void wrapper(int sig) {
  if (sig > 0 && sig < 65 && appHandlers[sig])
    appHandlers[sig](sig);
  atomic_store(&handledSignal, 1);
}

typedef void (*Handler)(int);

Handler signal(int sig, Handler handler) {
  static Handler (*real)(int, Handler);
  if (!real)
    real = (Handler (*)(int, Handler))dlsym(RTLD_NEXT, "signal");
  if ((sig == SIGINT || sig == SIGTERM) && handler != SIG_IGN &&
      handler != SIG_DFL && handler != SIG_ERR) {
    Handler previous = appHandlers[sig];
    appHandlers[sig] = handler;
    real(sig, wrapper);
    return previous ? previous : SIG_DFL;
  }
  return real(sig, handler);
}

/* Waits (without failing) until a signal has gone through the program's
 * handler; the marker file tells the test when to send it. */
static void pauseForSignal(const char *marker) {
  static atomic_int paused;
  if (atomic_exchange(&paused, 1))
    return;
  int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0)
    close(fd);
  struct timespec tick = {0, 5 * 1000 * 1000};
  while (!atomic_load(&handledSignal))
    nanosleep(&tick, NULL);
}

static ssize_t realPwrite(int fd, const void *buf, size_t count, off_t off) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real)
    real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT,
                                                                "pwrite");
  return real(fd, buf, count, off);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  unsigned long long limit;
  if (!limited(&limit))
    return realPwrite(fd, buf, count, offset);
  unsigned long long before = atomic_load(&written);
  if (before + count > limit) {
    const char *marker = env("VMPACK_FAULT_PAUSE_FILE");
    if (marker) {
      pauseForSignal(marker);
    } else {
      size_t room = before < limit ? (size_t)(limit - before) : 0;
      if (room == 0) {
        errno = faultErrno();
        return -1;
      }
      count = room; /* a short write, then the error on the next call */
    }
  }
  ssize_t n = realPwrite(fd, buf, count, offset);
  if (n > 0)
    atomic_fetch_add(&written, (unsigned long long)n);
  return n;
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  return pwrite(fd, buf, count, offset);
}

/* The fallocate-style error for [offset, offset + len), or 0 to go on. */
static int reservationError(off_t offset, off_t len) {
  unsigned long long limit;
  if (!limited(&limit))
    return 0;
  if (fallocateUnsupported())
    return EOPNOTSUPP;
  if (env("VMPACK_FAULT_PAUSE_FILE"))
    return 0;
  if ((unsigned long long)offset + (unsigned long long)len > limit)
    return faultErrno();
  return 0;
}

int posix_fallocate(int fd, off_t offset, off_t len) {
  int err = reservationError(offset, len);
  if (err)
    return err;
  static int (*real)(int, off_t, off_t);
  if (!real)
    real = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
  return real(fd, offset, len);
}

int posix_fallocate64(int fd, off_t offset, off_t len) {
  return posix_fallocate(fd, offset, len);
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
  int err = reservationError(offset, len);
  if (err) {
    errno = err;
    return -1;
  }
  static int (*real)(int, int, off_t, off_t);
  if (!real)
    real = (int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, "fallocate");
  return real(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off_t offset, off_t len) {
  return fallocate(fd, mode, offset, len);
}
