/*
 * What a file tree holds beyond names and bytes: where a sparse file's data
 * lies, device numbers and special files, owners by name, and timestamps to
 * the nanosecond; and a lock on an open file that the kernel drops when
 * its holder dies.
 */
#define _GNU_SOURCE
#include "posix.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif

/* A group with thousands of members needs a large buffer; past this, give up. */
#define MAX_LOOKUP_BUFFER ((size_t)64 << 20)

static napi_value number(napi_env env, double d) {
  napi_value v = NULL;
  if (napi_create_double(env, d, &v) != napi_ok) napi_failed(env);
  return v;
}

static napi_value null_value(napi_env env) {
  napi_value v = NULL;
  if (napi_get_null(env, &v) != napi_ok) napi_failed(env);
  return v;
}

struct extent {
  int64_t offset, length;
};

/* Collects the data regions in [0, size); returns 0 or an errno value. */
static int find_extents(int fd, int64_t size, int64_t max, struct extent **out, size_t *count) {
  struct extent *list = NULL;
  size_t n = 0, cap = 0;
  bool whole = false;
#ifdef SEEK_DATA
  off_t pos = 0;
  while (pos < size) {
    off_t data = lseek(fd, pos, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;
      /* EINVAL on the first call: the file system cannot tell holes apart. */
      if (errno == EINVAL && pos == 0) {
        whole = true;
        break;
      }
      goto fail;
    }
    if (data >= size) break;
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0) goto fail;
    /* A hole at the data's own offset means the file changed under us: take the rest as data. */
    if (hole > size || hole <= data) hole = size;
    if ((int64_t)n == max) {
      list[n - 1].length = size - list[n - 1].offset;
      break;
    }
    if (n == cap) {
      size_t grown_cap = cap ? cap * 2 : 16;
      struct extent *grown = realloc(list, grown_cap * sizeof *list);
      if (grown == NULL) {
        free(list);
        return ENOMEM;
      }
      list = grown;
      cap = grown_cap;
    }
    list[n].offset = data;
    list[n].length = hole - data;
    n++;
    pos = hole;
  }
#else
  whole = true;
#endif
  if (whole && size > 0) {
    free(list);
    list = malloc(sizeof *list);
    if (list == NULL) return ENOMEM;
    list[0].offset = 0;
    list[0].length = size;
    n = 1;
  }
  *out = list;
  *count = n;
  return 0;
#ifdef SEEK_DATA
fail:;
  int err = errno;
  free(list);
  return err;
#endif
}

static bool pair(napi_env env, napi_value array, uint32_t i, int64_t a, int64_t b) {
  napi_handle_scope scope;
  napi_value p, x, y;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return napi_failed(env);
  bool ok = napi_create_array_with_length(env, 2, &p) == napi_ok && napi_create_int64(env, a, &x) == napi_ok &&
            napi_create_int64(env, b, &y) == napi_ok && napi_set_element(env, p, 0, x) == napi_ok &&
            napi_set_element(env, p, 1, y) == napi_ok && napi_set_element(env, array, i, p) == napi_ok;
  if (!ok) napi_failed(env);
  napi_close_handle_scope(env, scope);
  return ok;
}

static napi_value data_extents(napi_env env, napi_callback_info info) {
  napi_value argv[3], result = NULL;
  int64_t fd, size, max = (int64_t)1 << 20;
  if (!get_args(env, info, 3, argv) || !arg_int(env, argv[0], "dataExtents: fd", 0, INT_MAX, &fd) ||
      !arg_int(env, argv[1], "dataExtents: size", 0, MAX_SAFE_INT, &size)) {
    return NULL;
  }
  if (!is_undefined(env, argv[2]) && !arg_int(env, argv[2], "dataExtents: maxExtents", 1, UINT32_MAX, &max)) {
    return NULL;
  }
  struct extent *list = NULL;
  size_t n = 0;
  int err = find_extents((int)fd, size, max, &list, &n);
  if (err != 0) return throw_sys(env, err, "lseek");
  if (napi_create_array_with_length(env, n, &result) != napi_ok) {
    napi_failed(env);
    result = NULL;
  }
  for (size_t i = 0; result != NULL && i < n; i++) {
    if (!pair(env, result, (uint32_t)i, list[i].offset, list[i].length)) result = NULL;
  }
  free(list);
  return result;
}

static napi_value seek(napi_env env, napi_callback_info info, bool data) {
  napi_value argv[2];
  int64_t fd, offset;
  if (!get_args(env, info, 2, argv) || !arg_int(env, argv[0], data ? "seekData: fd" : "seekHole: fd", 0, INT_MAX, &fd) ||
      !arg_int(env, argv[1], data ? "seekData: offset" : "seekHole: offset", 0, MAX_SAFE_INT, &offset)) {
    return NULL;
  }
#ifdef SEEK_DATA
  off_t at = lseek((int)fd, (off_t)offset, data ? SEEK_DATA : SEEK_HOLE);
  if (at < 0 && data && errno == ENXIO) return number(env, -1);
  if (at < 0) return throw_sys(env, errno, "lseek");
  return number(env, (double)at);
#else
  return throw_sys(env, EINVAL, "lseek");
#endif
}

static napi_value seek_data(napi_env env, napi_callback_info info) { return seek(env, info, true); }
static napi_value seek_hole(napi_env env, napi_callback_info info) { return seek(env, info, false); }

static napi_value make_node(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  int64_t mode, major_n, minor_n;
  char *path = NULL;
  if (!get_args(env, info, 4, argv) || !arg_int(env, argv[1], "mknod: mode", 0, UINT32_MAX, &mode) ||
      !arg_int(env, argv[2], "mknod: major", 0, UINT32_MAX, &major_n) ||
      !arg_int(env, argv[3], "mknod: minor", 0, UINT32_MAX, &minor_n) || !arg_path(env, argv[0], "mknod: path", &path)) {
    return NULL;
  }
  int rc = mknod(path, (mode_t)mode, makedev((unsigned)major_n, (unsigned)minor_n));
  int err = errno;
  free(path);
  return rc == 0 ? NULL : throw_sys(env, err, "mknod");
}

static napi_value make_fifo(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t mode;
  char *path = NULL;
  if (!get_args(env, info, 2, argv) || !arg_int(env, argv[1], "mkfifo: mode", 0, 07777, &mode) ||
      !arg_path(env, argv[0], "mkfifo: path", &path)) {
    return NULL;
  }
  int rc = mkfifo(path, (mode_t)mode);
  int err = errno;
  free(path);
  return rc == 0 ? NULL : throw_sys(env, err, "mkfifo");
}

static napi_value dev_part(napi_env env, napi_callback_info info, bool want_major) {
  napi_value argv[1];
  uint64_t rdev;
  if (!get_args(env, info, 1, argv) || !arg_u64(env, argv[0], want_major ? "major: rdev" : "minor: rdev", &rdev)) {
    return NULL;
  }
  dev_t dev = (dev_t)rdev;
  return number(env, want_major ? (double)major(dev) : (double)minor(dev));
}

static napi_value dev_major(napi_env env, napi_callback_info info) { return dev_part(env, info, true); }
static napi_value dev_minor(napi_env env, napi_callback_info info) { return dev_part(env, info, false); }

static napi_value dev_make(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t ma, mi;
  if (!get_args(env, info, 2, argv) || !arg_int(env, argv[0], "makedev: major", 0, UINT32_MAX, &ma) ||
      !arg_int(env, argv[1], "makedev: minor", 0, UINT32_MAX, &mi)) {
    return NULL;
  }
  uint64_t dev = (uint64_t)makedev((unsigned)ma, (unsigned)mi);
  if (dev > (uint64_t)MAX_SAFE_INT) {
    throw_arg(env, true, "ERR_OUT_OF_RANGE", "makedev: the device number", "below 2^53");
    return NULL;
  }
  return number(env, (double)dev);
}

enum lookup { BY_UID, BY_GID, BY_USER, BY_GROUP };
static const char *const lookup_calls[] = {"getpwuid_r", "getgrgid_r", "getpwnam_r", "getgrnam_r"};

/* Looks up a passwd or group entry, growing the buffer while the C library asks for more. */
static napi_value lookup(napi_env env, enum lookup kind, uint32_t id, const char *name) {
  struct passwd pw, *pw_found = NULL;
  struct group gr, *gr_found = NULL;
  bool by_user = kind == BY_UID || kind == BY_USER;
  long hint = sysconf(by_user ? _SC_GETPW_R_SIZE_MAX : _SC_GETGR_R_SIZE_MAX);
  size_t cap = hint > 0 ? (size_t)hint : 1024;
  char *buf = NULL;
  int rc;
  for (;;) {
    char *grown = realloc(buf, cap);
    if (grown == NULL) {
      rc = ENOMEM;
      break;
    }
    buf = grown;
    switch (kind) {
      case BY_UID: rc = getpwuid_r((uid_t)id, &pw, buf, cap, &pw_found); break;
      case BY_GID: rc = getgrgid_r((gid_t)id, &gr, buf, cap, &gr_found); break;
      case BY_USER: rc = getpwnam_r(name, &pw, buf, cap, &pw_found); break;
      default: rc = getgrnam_r(name, &gr, buf, cap, &gr_found); break;
    }
    if (rc != ERANGE || cap >= MAX_LOOKUP_BUFFER) break;
    cap *= 2;
  }
  napi_value result = NULL;
  bool found = by_user ? pw_found != NULL : gr_found != NULL;
  /* getpwnam(3) lists these as "not found" answers, not failures. */
  if (rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM) {
    if (!found) {
      result = null_value(env);
    } else if (kind == BY_UID || kind == BY_GID) {
      const char *s = kind == BY_UID ? pw.pw_name : gr.gr_name;
      if (napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &result) != napi_ok) napi_failed(env);
    } else {
      result = number(env, kind == BY_USER ? (double)pw.pw_uid : (double)gr.gr_gid);
    }
  } else {
    throw_sys(env, rc, lookup_calls[kind]);
  }
  free(buf);
  return result;
}

static napi_value lookup_id(napi_env env, napi_callback_info info, enum lookup kind) {
  napi_value argv[1];
  int64_t id;
  if (!get_args(env, info, 1, argv) ||
      !arg_int(env, argv[0], kind == BY_UID ? "userName: uid" : "groupName: gid", 0, UINT32_MAX, &id)) {
    return NULL;
  }
  return lookup(env, kind, (uint32_t)id, NULL);
}

static napi_value lookup_name(napi_env env, napi_callback_info info, enum lookup kind) {
  napi_value argv[1];
  napi_valuetype t;
  const char *what = kind == BY_USER ? "userId: name" : "groupId: name";
  char *name = NULL;
  if (!get_args(env, info, 1, argv)) return NULL;
  if (napi_typeof(env, argv[0], &t) != napi_ok) {
    napi_failed(env);
    return NULL;
  }
  if (t != napi_string) {
    throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a string");
    return NULL;
  }
  if (!arg_path(env, argv[0], what, &name)) return NULL;
  napi_value result = lookup(env, kind, 0, name);
  free(name);
  return result;
}

static napi_value user_name(napi_env env, napi_callback_info info) { return lookup_id(env, info, BY_UID); }
static napi_value group_name(napi_env env, napi_callback_info info) { return lookup_id(env, info, BY_GID); }
static napi_value user_id(napi_env env, napi_callback_info info) { return lookup_name(env, info, BY_USER); }
static napi_value group_id(napi_env env, napi_callback_info info) { return lookup_name(env, info, BY_GROUP); }

/* Splits nanoseconds since the epoch into seconds and a non-negative remainder. */
static struct timespec from_ns(int64_t ns) {
  struct timespec ts;
  int64_t sec = ns / 1000000000, rest = ns % 1000000000;
  if (rest < 0) {
    sec -= 1;
    rest += 1000000000;
  }
  ts.tv_sec = (time_t)sec;
  ts.tv_nsec = (long)rest;
  return ts;
}

static bool arg_times(napi_env env, napi_value *argv, bool link, struct timespec ts[2]) {
  int64_t a, m;
  if (!arg_bigint(env, argv[0], link ? "lutimesNs: atimeNs" : "futimesNs: atimeNs", &a) ||
      !arg_bigint(env, argv[1], link ? "lutimesNs: mtimeNs" : "futimesNs: mtimeNs", &m)) {
    return false;
  }
  ts[0] = from_ns(a);
  ts[1] = from_ns(m);
  return true;
}

static napi_value lutimes_ns(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct timespec ts[2];
  char *path = NULL;
  if (!get_args(env, info, 3, argv) || !arg_times(env, argv + 1, true, ts) ||
      !arg_path(env, argv[0], "lutimesNs: path", &path)) {
    return NULL;
  }
  int rc = utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
  int err = errno;
  free(path);
  return rc == 0 ? NULL : throw_sys(env, err, "utimensat");
}

static napi_value futimes_ns(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct timespec ts[2];
  int64_t fd;
  if (!get_args(env, info, 3, argv) || !arg_int(env, argv[0], "futimesNs: fd", 0, INT_MAX, &fd) ||
      !arg_times(env, argv + 1, false, ts)) {
    return NULL;
  }
  if (futimens((int)fd, ts) != 0) return throw_sys(env, errno, "futimens");
  return NULL;
}

/*
 * tryLock(fd): an exclusive lock on the whole open file that the kernel
 * drops when the last descriptor of this open file description is closed,
 * so also when the process dies: an open-file-description lock where the
 * system has one (F_OFD_SETLK, Linux 3.15), else flock. Returns true when
 * taken, false when another holder has it (EAGAIN, EACCES, EWOULDBLOCK);
 * throws on any other error.
 */
static napi_value try_lock(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t fd;
  if (!get_args(env, info, 1, argv) || !arg_int(env, argv[0], "tryLock: fd", 0, INT_MAX, &fd)) return NULL;
  int rc;
#ifdef F_OFD_SETLK
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  rc = fcntl((int)fd, F_OFD_SETLK, &fl);
  if (rc != 0 && errno == EINVAL) rc = flock((int)fd, LOCK_EX | LOCK_NB);
#else
  rc = flock((int)fd, LOCK_EX | LOCK_NB);
#endif
  napi_value result;
  if (rc == 0) {
    napi_get_boolean(env, true, &result);
    return result;
  }
  if (errno == EAGAIN || errno == EACCES || errno == EWOULDBLOCK) {
    napi_get_boolean(env, false, &result);
    return result;
  }
  return throw_sys(env, errno, "fcntl");
}

/*
 * copyRange(fdIn, offIn, fdOut, offOut, length): copies `length` bytes of
 * the open file fdIn from offIn into fdOut at offOut inside the kernel
 * (copy_file_range: a reflink where the file system shares extents, else
 * a copy in the page cache), neither file's offset moved. Returns the
 * bytes copied, fewer only where fdIn ends. Throws ENOSYS where the system
 * has no copy_file_range (not Linux); EXDEV, EINVAL, EOPNOTSUPP where it
 * cannot copy between those files.
 */
static napi_value copy_range(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  int64_t fd_in, off_in, fd_out, off_out, length;
  const int64_t max = ((int64_t)1 << 53);
  if (!get_args(env, info, 5, argv) || !arg_int(env, argv[0], "copyRange: fdIn", 0, INT_MAX, &fd_in) ||
      !arg_int(env, argv[1], "copyRange: offIn", 0, max, &off_in) || !arg_int(env, argv[2], "copyRange: fdOut", 0, INT_MAX, &fd_out) ||
      !arg_int(env, argv[3], "copyRange: offOut", 0, max, &off_out) || !arg_int(env, argv[4], "copyRange: length", 0, max, &length)) {
    return NULL;
  }
#ifdef __linux__
  loff_t in = (loff_t)off_in, out = (loff_t)off_out;
  int64_t done = 0;
  while (done < length) {
    ssize_t n = copy_file_range((int)fd_in, &in, (int)fd_out, &out, (size_t)(length - done), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return throw_sys(env, errno, "copy_file_range");
    }
    if (n == 0) break;
    done += n;
  }
  return number(env, (double)done);
#else
  return throw_sys(env, ENOSYS, "copy_file_range");
#endif
}

/*
 * startWriteback(fd, offset, length): asks the kernel to start writing the
 * dirty pages of [offset, offset + length) of the open file fd to its disk
 * (sync_file_range with SYNC_FILE_RANGE_WRITE: no wait, no metadata, no
 * durability), so a later sync of many files finds less left to write.
 * length 0 means to the end of the file. Returns true where it was asked,
 * false where the system has no such call or refused (the data is then
 * written as usual); it never throws for the call itself.
 */
static napi_value start_writeback(napi_env env, napi_callback_info info) {
  napi_value argv[3], result = NULL;
  int64_t fd, offset, length;
  const int64_t max = ((int64_t)1 << 53);
  if (!get_args(env, info, 3, argv) || !arg_int(env, argv[0], "startWriteback: fd", 0, INT_MAX, &fd) ||
      !arg_int(env, argv[1], "startWriteback: offset", 0, max, &offset) || !arg_int(env, argv[2], "startWriteback: length", 0, max, &length)) {
    return NULL;
  }
  bool asked = false;
#ifdef __linux__
  asked = sync_file_range((int)fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE) == 0;
#endif
  if (napi_get_boolean(env, asked, &result) != napi_ok) napi_failed(env);
  return result;
}

bool define_files(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"dataExtents", NULL, data_extents, NULL, NULL, NULL, napi_enumerable, NULL},
      {"seekData", NULL, seek_data, NULL, NULL, NULL, napi_enumerable, NULL},
      {"seekHole", NULL, seek_hole, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mknod", NULL, make_node, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mkfifo", NULL, make_fifo, NULL, NULL, NULL, napi_enumerable, NULL},
      {"major", NULL, dev_major, NULL, NULL, NULL, napi_enumerable, NULL},
      {"minor", NULL, dev_minor, NULL, NULL, NULL, napi_enumerable, NULL},
      {"makedev", NULL, dev_make, NULL, NULL, NULL, napi_enumerable, NULL},
      {"userName", NULL, user_name, NULL, NULL, NULL, napi_enumerable, NULL},
      {"groupName", NULL, group_name, NULL, NULL, NULL, napi_enumerable, NULL},
      {"userId", NULL, user_id, NULL, NULL, NULL, napi_enumerable, NULL},
      {"groupId", NULL, group_id, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lutimesNs", NULL, lutimes_ns, NULL, NULL, NULL, napi_enumerable, NULL},
      {"futimesNs", NULL, futimes_ns, NULL, NULL, NULL, napi_enumerable, NULL},
      {"tryLock", NULL, try_lock, NULL, NULL, NULL, napi_enumerable, NULL},
      {"copyRange", NULL, copy_range, NULL, NULL, NULL, napi_enumerable, NULL},
      {"startWriteback", NULL, start_writeback, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props) == napi_ok || napi_failed(env);
}
