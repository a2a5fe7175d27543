/*
 * A write throttle for benchmarks: loaded with LD_PRELOAD into a process,
 * it makes each folder named in BP_THROTTLE_DIRS behave as a drive of its
 * own that writes at BP_THROTTLE_RATE bytes per second.
 *
 *   BP_THROTTLE_RATE=50000000 BP_THROTTLE_DIRS=/tmp/d1:/tmp/d2:/tmp/d3 \
 *     LD_PRELOAD=throttle.so UV_USE_IO_URING=0 brickpost pack …
 *
 * A write, pwrite or pwritev (and their 64-bit names) to a file whose path
 * (from /proc/self/fd) starts with one of the folders takes the time that
 * folder's "drive" needs for those bytes: each drive is busy writing until
 * the end of the writes queued on it before, as a disk writing one stream
 * after another is; writes to different drives overlap freely. Other files
 * are not delayed. The bytes still go to the real file system (all drives
 * share one disk here, which is far faster than the rate set), so what is
 * measured is how well a writer keeps several slow drives busy at once.
 *
 * BP_THROTTLE_LOG=FILE appends one line per throttled write: the drive's
 * number (0-based, in BP_THROTTLE_DIRS order), the monotonic times the
 * write was issued, starts on the drive and ends, in seconds, and its bytes.
 *
 * Calls are made through the next definition (RTLD_NEXT); libuv's io_uring
 * path must be off (UV_USE_IO_URING=0) for file writes to pass here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_DRIVES 64

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double rate = 0;
static int drives = 0;
static char *prefix[MAX_DRIVES];
static size_t prefix_len[MAX_DRIVES];
static double busy_until[MAX_DRIVES];
static FILE *log_file = NULL;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off_t);

static void init(void) {
  real_write = dlsym(RTLD_NEXT, "write");
  real_pwrite = dlsym(RTLD_NEXT, "pwrite");
  real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
  real_writev = dlsym(RTLD_NEXT, "writev");
  real_pwritev = dlsym(RTLD_NEXT, "pwritev");
  real_pwritev64 = dlsym(RTLD_NEXT, "pwritev64");
  const char *r = getenv("BP_THROTTLE_RATE");
  const char *d = getenv("BP_THROTTLE_DIRS");
  if (!r || !d) return;
  rate = strtod(r, NULL);
  const char *l = getenv("BP_THROTTLE_LOG");
  if (l && *l) log_file = fopen(l, "a");
  char *all = strdup(d);
  for (char *save = NULL, *tok = strtok_r(all, ":", &save); tok && drives < MAX_DRIVES; tok = strtok_r(NULL, ":", &save)) {
    size_t n = strlen(tok);
    while (n > 1 && tok[n - 1] == '/') tok[--n] = '\0';
    prefix[drives] = tok;
    prefix_len[drives] = n;
    drives++;
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/** The drive a descriptor's file is on, or -1. */
static int drive_of(int fd) {
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return -1;
  path[n] = '\0';
  for (int i = 0; i < drives; i++) {
    if (strncmp(path, prefix[i], prefix_len[i]) == 0 && (path[prefix_len[i]] == '/' || path[prefix_len[i]] == '\0')) return i;
  }
  return -1;
}

/** Waits until drive `d` has written `bytes` more, after what was queued on it before. */
static void pace(int d, ssize_t bytes) {
  if (d < 0 || bytes <= 0 || rate <= 0) return;
  pthread_mutex_lock(&mu);
  double issued = now();
  double start = issued > busy_until[d] ? issued : busy_until[d];
  double end = start + (double)bytes / rate;
  busy_until[d] = end;
  if (log_file) {
    fprintf(log_file, "%d %.6f %.6f %.6f %zd\n", d, issued, start, end, bytes);
    fflush(log_file);
  }
  pthread_mutex_unlock(&mu);
  double left = end - now();
  if (left <= 0) return;
  struct timespec t = { (time_t)left, (long)((left - (time_t)left) * 1e9) };
  int saved = errno;
  while (nanosleep(&t, &t) == -1 && errno == EINTR) {
  }
  errno = saved;
}

static int target(int fd) {
  pthread_once(&once, init);
  return drives > 0 ? drive_of(fd) : -1;
}

ssize_t write(int fd, const void *buf, size_t n) {
  int d = target(fd);
  ssize_t r = real_write(fd, buf, n);
  pace(d, r);
  return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  int d = target(fd);
  ssize_t r = real_pwrite(fd, buf, n, off);
  pace(d, r);
  return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
  int d = target(fd);
  ssize_t r = real_pwrite64(fd, buf, n, off);
  pace(d, r);
  return r;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  int d = target(fd);
  ssize_t r = real_writev(fd, iov, cnt);
  pace(d, r);
  return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
  int d = target(fd);
  ssize_t r = real_pwritev(fd, iov, cnt, off);
  pace(d, r);
  return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) {
  int d = target(fd);
  ssize_t r = real_pwritev64(fd, iov, cnt, off);
  pace(d, r);
  return r;
}
