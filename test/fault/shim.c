/*
 * A fault shim for tests: loaded with LD_PRELOAD into a brickpost process,
 * it makes one system call fail with a chosen errno, as a failing disk, a
 * full or read-only file system or a busy file would.
 *
 *   BP_FAULT="op:ERRNO:nth[+][:path-part]"
 *
 * op is open, read, write, fsync, rename, mkdir, unlink, link, symlink,
 * truncate or copy. The nth call of that kind (counted from 1) whose path
 * contains path-part (ends with it, when path-part ends with `$`; matches
 * it whole as an fnmatch(3) pattern, when path-part holds a `*`) fails
 * with ERRNO (EIO, ENOSPC, EROFS, EACCES, EBUSY, ENOTDIR, EDQUOT, EPERM,
 * ENOENT); with `+`, every later one fails too. For calls on a descriptor
 * the path is the one the descriptor was opened at (from /proc/self/fd).
 *
 * BP_FAULT_COUNT=FILE keeps the count in that file (locked while it is
 * updated), so the calls of the processes a run starts (`sync -f`, which
 * inherits the shim) count with its own.
 *
 * BP_FAULT_LOG=FILE appends one line "op path" per matching call, so a test
 * can count the calls of a phase and then fail each of them in turn. When
 * the fault fires, "FIRED op path" is appended too.
 *
 * Calls are made through the next definition (RTLD_NEXT); libuv's io_uring
 * path must be off (UV_USE_IO_URING=0) for file reads and writes to pass here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum op { OP_OPEN, OP_READ, OP_WRITE, OP_FSYNC, OP_RENAME, OP_MKDIR, OP_UNLINK, OP_LINK, OP_SYMLINK, OP_TRUNCATE, OP_COPY, OP_NONE };
static const char *const OP_NAMES[] = { "open", "read", "write", "fsync", "rename", "mkdir", "unlink", "link", "symlink", "truncate", "copy" };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static enum op want = OP_NONE;
static int fault_errno = EIO;
static long nth = 1;
static int sticky = 0;
static char part[1024];
static char log_path[1024];
static char count_path[1024];
static int anchored = 0;
static long seen = 0;
static __thread int inside = 0;

static int errno_named(const char *s) {
  static const struct { const char *n; int v; } T[] = {
    { "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EROFS", EROFS }, { "EACCES", EACCES }, { "EBUSY", EBUSY },
    { "ENOTDIR", ENOTDIR }, { "EDQUOT", EDQUOT }, { "EPERM", EPERM }, { "ENOENT", ENOENT }, { "EAGAIN", EAGAIN },
    { "EFBIG", EFBIG }, { "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENAMETOOLONG", ENAMETOOLONG }, { "ESTALE", ESTALE },
  };
  for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) if (strcmp(T[i].n, s) == 0) return T[i].v;
  return atoi(s) > 0 ? atoi(s) : EIO;
}

/* A child forked while another thread held the lock would wait on it forever: it starts unlocked. */
static void after_fork_child(void) {
  pthread_mutex_init(&mu, NULL);
  inside = 0;
}

static void setup(void) {
  pthread_atfork(NULL, NULL, after_fork_child);
  const char *spec = getenv("BP_FAULT");
  const char *lp = getenv("BP_FAULT_LOG");
  const char *cp = getenv("BP_FAULT_COUNT");
  if (lp) snprintf(log_path, sizeof log_path, "%s", lp);
  if (cp) snprintf(count_path, sizeof count_path, "%s", cp);
  if (!spec || !*spec) return;
  char buf[1200];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  char *o = strtok_r(buf, ":", &save);
  char *e = strtok_r(NULL, ":", &save);
  char *n = strtok_r(NULL, ":", &save);
  char *p = save && *save ? save : NULL;
  for (int i = 0; o && i < OP_NONE; i++) if (strcmp(o, OP_NAMES[i]) == 0) want = (enum op)i;
  if (e) fault_errno = errno_named(e);
  if (n) {
    nth = atol(n);
    sticky = strchr(n, '+') != NULL;
  }
  if (p) snprintf(part, sizeof part, "%s", p);
  size_t n_part = strlen(part);
  if (n_part > 0 && part[n_part - 1] == '$') {
    part[n_part - 1] = 0;
    anchored = 1;
  }
}

static int matches(const char *path) {
  if (!*part) return 1;
  if (!path) return 0;
  if (strchr(part, '*')) return fnmatch(part, path, 0) == 0;
  if (!anchored) return strstr(path, part) != NULL;
  size_t a = strlen(path), b = strlen(part);
  return a >= b && strcmp(path + a - b, part) == 0;
}

/* The next count of matching calls: this process's, or the shared one of BP_FAULT_COUNT. */
static long next_seen(void) {
  if (!*count_path) return ++seen;
  int fd = open(count_path, O_RDWR | O_CREAT, 0600);
  if (fd < 0) return ++seen;
  struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  fcntl(fd, F_SETLKW, &l);
  char buf[32] = { 0 };
  ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
  long v = (k > 0 ? atol(buf) : 0) + 1;
  int len = snprintf(buf, sizeof buf, "%ld\n", v);
  pwrite(fd, buf, (size_t)len, 0);
  l.l_type = F_UNLCK;
  fcntl(fd, F_SETLK, &l);
  close(fd);
  return v;
}

static void fd_path(int fd, char *out, size_t len) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = readlink(link, out, len - 1);
  out[k > 0 ? k : 0] = 0;
}

/* Whether a call of kind o needs looking at: the fault's kind, or any kind when logging. */
static int watched(enum op o) {
  pthread_once(&once, setup);
  if (inside) return 0;
  return o == want || (*log_path && want == OP_NONE);
}

/* Counts a watched call on `path`; returns the errno to fail it with, or 0. */
static int decide(enum op o, const char *path) {
  if (!matches(path)) return 0;
  inside = 1;
  int fire = 0;
  pthread_mutex_lock(&mu);
  if (o == want) {
    long s = next_seen();
    fire = s == nth || (sticky && s > nth);
  }
  if (*log_path) {
    /* Raw system calls and a stack buffer: a watched call can come from inside malloc (which holds
       its arena lock) or a signal handler, where stdio would wait on that lock forever. */
    char line[8400];
    int len = snprintf(line, sizeof line, "%s%s %s\n", fire ? "FIRED " : "", OP_NAMES[o], path ? path : "");
    if (len > (int)sizeof line - 1) len = (int)sizeof line - 1;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      syscall(SYS_write, fd, line, (size_t)len);
      syscall(SYS_close, fd);
    }
  }
  pthread_mutex_unlock(&mu);
  inside = 0;
  return fire ? fault_errno : 0;
}

static int on_path(enum op o, const char *path) {
  return watched(o) ? decide(o, path) : 0;
}

static int on_fd(enum op o, int fd) {
  if (fd <= 2 || !watched(o)) return 0;
  char p[4096];
  fd_path(fd, p, sizeof p);
  return decide(o, p);
}

static int on_two(enum op o, const char *a, const char *b) {
  if (!watched(o)) return 0;
  char p[8200];
  snprintf(p, sizeof p, "%s -> %s", a ? a : "", b ? b : "");
  return decide(o, p);
}

#define REAL(ret, name, ...) \
  static ret (*real_##name)(__VA_ARGS__); \
  if (!real_##name) real_##name = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

#define FAIL_IF(check, retval) do { int e_ = (check); if (e_) { errno = e_; return retval; } } while (0)

static mode_t mode_arg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_FN(name) \
  int name(const char *path, int flags, ...) { \
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap); \
    REAL(int, name, const char *, int, ...); \
    FAIL_IF(on_path(OP_OPEN, path), -1); \
    return real_##name(path, flags, m); \
  }
OPEN_FN(open)
OPEN_FN(open64)

#define OPENAT_FN(name) \
  int name(int dirfd, const char *path, int flags, ...) { \
    va_list ap; va_start(ap, flags); mode_t m = mode_arg(flags, ap); va_end(ap); \
    REAL(int, name, int, const char *, int, ...); \
    FAIL_IF(on_path(OP_OPEN, path), -1); \
    return real_##name(dirfd, path, flags, m); \
  }
OPENAT_FN(openat)
OPENAT_FN(openat64)

int creat(const char *path, mode_t m) { REAL(int, creat, const char *, mode_t); FAIL_IF(on_path(OP_OPEN, path), -1); return real_creat(path, m); }
int creat64(const char *path, mode_t m) { REAL(int, creat64, const char *, mode_t); FAIL_IF(on_path(OP_OPEN, path), -1); return real_creat64(path, m); }

ssize_t read(int fd, void *b, size_t n) { REAL(ssize_t, read, int, void *, size_t); FAIL_IF(on_fd(OP_READ, fd), -1); return real_read(fd, b, n); }
ssize_t pread(int fd, void *b, size_t n, off_t o) { REAL(ssize_t, pread, int, void *, size_t, off_t); FAIL_IF(on_fd(OP_READ, fd), -1); return real_pread(fd, b, n, o); }
ssize_t pread64(int fd, void *b, size_t n, off_t o) { REAL(ssize_t, pread64, int, void *, size_t, off_t); FAIL_IF(on_fd(OP_READ, fd), -1); return real_pread64(fd, b, n, o); }
ssize_t readv(int fd, const struct iovec *v, int c) { REAL(ssize_t, readv, int, const struct iovec *, int); FAIL_IF(on_fd(OP_READ, fd), -1); return real_readv(fd, v, c); }
ssize_t preadv(int fd, const struct iovec *v, int c, off_t o) { REAL(ssize_t, preadv, int, const struct iovec *, int, off_t); FAIL_IF(on_fd(OP_READ, fd), -1); return real_preadv(fd, v, c, o); }
ssize_t preadv64(int fd, const struct iovec *v, int c, off_t o) { REAL(ssize_t, preadv64, int, const struct iovec *, int, off_t); FAIL_IF(on_fd(OP_READ, fd), -1); return real_preadv64(fd, v, c, o); }
ssize_t preadv2(int fd, const struct iovec *v, int c, off_t o, int fl) { REAL(ssize_t, preadv2, int, const struct iovec *, int, off_t, int); FAIL_IF(on_fd(OP_READ, fd), -1); return real_preadv2(fd, v, c, o, fl); }

ssize_t write(int fd, const void *b, size_t n) { REAL(ssize_t, write, int, const void *, size_t); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_write(fd, b, n); }
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) { REAL(ssize_t, pwrite, int, const void *, size_t, off_t); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_pwrite(fd, b, n, o); }
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { REAL(ssize_t, pwrite64, int, const void *, size_t, off_t); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_pwrite64(fd, b, n, o); }
ssize_t writev(int fd, const struct iovec *v, int c) { REAL(ssize_t, writev, int, const struct iovec *, int); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_writev(fd, v, c); }
ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o) { REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_pwritev(fd, v, c, o); }
ssize_t pwritev64(int fd, const struct iovec *v, int c, off_t o) { REAL(ssize_t, pwritev64, int, const struct iovec *, int, off_t); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_pwritev64(fd, v, c, o); }
ssize_t pwritev2(int fd, const struct iovec *v, int c, off_t o, int fl) { REAL(ssize_t, pwritev2, int, const struct iovec *, int, off_t, int); FAIL_IF(on_fd(OP_WRITE, fd), -1); return real_pwritev2(fd, v, c, o, fl); }

int fsync(int fd) { REAL(int, fsync, int); FAIL_IF(on_fd(OP_FSYNC, fd), -1); return real_fsync(fd); }
int fdatasync(int fd) { REAL(int, fdatasync, int); FAIL_IF(on_fd(OP_FSYNC, fd), -1); return real_fdatasync(fd); }
int syncfs(int fd) { REAL(int, syncfs, int); FAIL_IF(on_fd(OP_FSYNC, fd), -1); return real_syncfs(fd); }

int rename(const char *a, const char *b) { REAL(int, rename, const char *, const char *); FAIL_IF(on_two(OP_RENAME, a, b), -1); return real_rename(a, b); }
int renameat(int da, const char *a, int db, const char *b) { REAL(int, renameat, int, const char *, int, const char *); FAIL_IF(on_two(OP_RENAME, a, b), -1); return real_renameat(da, a, db, b); }
int renameat2(int da, const char *a, int db, const char *b, unsigned fl) { REAL(int, renameat2, int, const char *, int, const char *, unsigned); FAIL_IF(on_two(OP_RENAME, a, b), -1); return real_renameat2(da, a, db, b, fl); }

int mkdir(const char *p, mode_t m) { REAL(int, mkdir, const char *, mode_t); FAIL_IF(on_path(OP_MKDIR, p), -1); return real_mkdir(p, m); }
int mkdirat(int d, const char *p, mode_t m) { REAL(int, mkdirat, int, const char *, mode_t); FAIL_IF(on_path(OP_MKDIR, p), -1); return real_mkdirat(d, p, m); }

int unlink(const char *p) { REAL(int, unlink, const char *); FAIL_IF(on_path(OP_UNLINK, p), -1); return real_unlink(p); }
int unlinkat(int d, const char *p, int fl) { REAL(int, unlinkat, int, const char *, int); FAIL_IF(on_path(OP_UNLINK, p), -1); return real_unlinkat(d, p, fl); }
int rmdir(const char *p) { REAL(int, rmdir, const char *); FAIL_IF(on_path(OP_UNLINK, p), -1); return real_rmdir(p); }

int link(const char *a, const char *b) { REAL(int, link, const char *, const char *); FAIL_IF(on_two(OP_LINK, a, b), -1); return real_link(a, b); }
int linkat(int da, const char *a, int db, const char *b, int fl) { REAL(int, linkat, int, const char *, int, const char *, int); FAIL_IF(on_two(OP_LINK, a, b), -1); return real_linkat(da, a, db, b, fl); }
int symlink(const char *a, const char *b) { REAL(int, symlink, const char *, const char *); FAIL_IF(on_two(OP_SYMLINK, a, b), -1); return real_symlink(a, b); }
int symlinkat(const char *a, int d, const char *b) { REAL(int, symlinkat, const char *, int, const char *); FAIL_IF(on_two(OP_SYMLINK, a, b), -1); return real_symlinkat(a, d, b); }

int ftruncate(int fd, off_t n) { REAL(int, ftruncate, int, off_t); FAIL_IF(on_fd(OP_TRUNCATE, fd), -1); return real_ftruncate(fd, n); }
int ftruncate64(int fd, off_t n) { REAL(int, ftruncate64, int, off_t); FAIL_IF(on_fd(OP_TRUNCATE, fd), -1); return real_ftruncate64(fd, n); }
int truncate(const char *p, off_t n) { REAL(int, truncate, const char *, off_t); FAIL_IF(on_path(OP_TRUNCATE, p), -1); return real_truncate(p, n); }

ssize_t copy_file_range(int a, off_t *ao, int b, off_t *bo, size_t n, unsigned fl) {
  REAL(ssize_t, copy_file_range, int, off_t *, int, off_t *, size_t, unsigned);
  FAIL_IF(on_fd(OP_COPY, b), -1);
  return real_copy_file_range(a, ao, b, bo, n, fl);
}
ssize_t sendfile(int out, int in, off_t *o, size_t n) { REAL(ssize_t, sendfile, int, int, off_t *, size_t); FAIL_IF(on_fd(OP_COPY, out), -1); return real_sendfile(out, in, o, n); }
ssize_t sendfile64(int out, int in, off_t *o, size_t n) { REAL(ssize_t, sendfile64, int, int, off_t *, size_t); FAIL_IF(on_fd(OP_COPY, out), -1); return real_sendfile64(out, in, o, n); }
