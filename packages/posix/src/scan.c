/*
 * A folder's entries and their lstat fields in one call: readdir, then
 * fstatat(AT_SYMLINK_NOFOLLOW) of each entry against the open folder, and,
 * when asked, the size of each entry's extended attribute list. Walking a
 * tree of small files this way makes no JavaScript object per name or per
 * stat, which is most of what a walk through Node's fs costs.
 */
#define _GNU_SOURCE
#include "posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif

#ifdef __APPLE__
#define x_llist_size(p) listxattr(p, NULL, 0, XATTR_NOFOLLOW)
#define ST_MTIM(st) ((st).st_mtimespec)
#define ST_CTIM(st) ((st).st_ctimespec)
#else
#define x_llist_size(p) llistxattr(p, NULL, 0)
#define ST_MTIM(st) ((st).st_mtim)
#define ST_CTIM(st) ((st).st_ctim)
#endif

/* Fields per entry in the stats array; src/scan.ts reads them by these offsets. */
enum {
  F_ERRNO,
  F_MODE,
  F_NLINK,
  F_UID,
  F_GID,
  F_SIZE,
  F_BLOCKS,
  F_INO_HI,
  F_INO_LO,
  F_DEV_HI,
  F_DEV_LO,
  F_RDEV_MAJOR,
  F_RDEV_MINOR,
  F_MTIME_S,
  F_MTIME_NS,
  F_CTIME_S,
  F_CTIME_NS,
  F_XATTRS,
  FIELDS
};

struct growing {
  char *data;
  size_t len, cap;
};

static bool grow(struct growing *g, size_t more) {
  if (g->len + more <= g->cap) return true;
  size_t cap = g->cap ? g->cap : 4096;
  while (cap < g->len + more) cap *= 2;
  char *p = realloc(g->data, cap);
  if (p == NULL) return false;
  g->data = p;
  g->cap = cap;
  return true;
}

static void put_u64(double *f, int hi, int lo, uint64_t v) {
  f[hi] = (double)(v >> 32);
  f[lo] = (double)(v & 0xffffffffu);
}

static void fill(double *f, const struct stat *st) {
  f[F_ERRNO] = 0;
  f[F_MODE] = (double)st->st_mode;
  f[F_NLINK] = (double)st->st_nlink;
  f[F_UID] = (double)st->st_uid;
  f[F_GID] = (double)st->st_gid;
  f[F_SIZE] = (double)st->st_size;
  f[F_BLOCKS] = (double)st->st_blocks;
  put_u64(f, F_INO_HI, F_INO_LO, (uint64_t)st->st_ino);
  put_u64(f, F_DEV_HI, F_DEV_LO, (uint64_t)st->st_dev);
  f[F_RDEV_MAJOR] = (double)major(st->st_rdev);
  f[F_RDEV_MINOR] = (double)minor(st->st_rdev);
  f[F_MTIME_S] = (double)ST_MTIM(*st).tv_sec;
  f[F_MTIME_NS] = (double)ST_MTIM(*st).tv_nsec;
  f[F_CTIME_S] = (double)ST_CTIM(*st).tv_sec;
  f[F_CTIME_NS] = (double)ST_CTIM(*st).tv_nsec;
}

/*
 * scanDir(path, xattrs): { names, stats, ascii }. `names` holds each entry's
 * name (. and .. left out) followed by a NUL byte, in readdir order; `stats`
 * FIELDS numbers per entry (F_ERRNO non-zero when its fstatat failed, the
 * rest then 0); `ascii` is true when every name byte is below 0x80.
 * F_XATTRS is the byte size of the entry's attribute name list, or -errno
 * when that failed, or -1 when `xattrs` is false.
 */
static napi_value scan_dir(napi_env env, napi_callback_info info) {
  napi_value argv[2], result = NULL;
  char *path = NULL;
  bool xattrs = false;
  if (!get_args(env, info, 2, argv) || !arg_path(env, argv[0], "scanDir: path", &path)) return NULL;
  if (!is_undefined(env, argv[1]) && napi_get_value_bool(env, argv[1], &xattrs) != napi_ok) {
    free(path);
    throw_arg(env, false, "ERR_INVALID_ARG_TYPE", "scanDir: xattrs", "a boolean");
    return NULL;
  }
  DIR *dir = opendir(path);
  if (dir == NULL) {
    int err = errno;
    free(path);
    return throw_sys(env, err, "scandir");
  }
  struct growing names = {NULL, 0, 0}, stats = {NULL, 0, 0}, full = {NULL, 0, 0};
  size_t base = strlen(path);
  int err = 0;
  size_t count = 0;
  bool ascii = true;
  int dfd = dirfd(dir);
  if (!grow(&full, base + 2)) err = ENOMEM;
  if (err == 0) {
    memcpy(full.data, path, base);
    full.data[base] = '/';
  }
  for (;;) {
    if (err != 0) break;
    errno = 0;
    struct dirent *d = readdir(dir);
    if (d == NULL) {
      err = errno;
      break;
    }
    const char *n = d->d_name;
    if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
    size_t len = strlen(n);
    if (!grow(&names, len + 1) || !grow(&stats, FIELDS * sizeof(double))) {
      err = ENOMEM;
      break;
    }
    for (size_t i = 0; i < len; i++) ascii = ascii && (unsigned char)n[i] < 0x80;
    memcpy(names.data + names.len, n, len + 1);
    names.len += len + 1;
    double *f = (double *)(void *)(stats.data + stats.len);
    stats.len += FIELDS * sizeof(double);
    count++;
    struct stat st;
    if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      memset(f, 0, FIELDS * sizeof(double));
      f[F_ERRNO] = errno;
      continue;
    }
    fill(f, &st);
    f[F_XATTRS] = -1;
    if (xattrs && !S_ISLNK(st.st_mode)) {
      if (!grow(&full, base + 1 + len + 1)) {
        err = ENOMEM;
        break;
      }
      memcpy(full.data + base + 1, n, len + 1);
      ssize_t size = x_llist_size(full.data);
      f[F_XATTRS] = size < 0 ? -(double)errno : (double)size;
    }
  }
  closedir(dir);
  free(path);
  free(full.data);
  if (err != 0) {
    free(names.data);
    free(stats.data);
    return throw_sys(env, err, "scandir");
  }
  napi_value jnames, jbuf, jstats, jascii;
  void *out = NULL;
  bool ok = napi_create_object(env, &result) == napi_ok &&
            napi_create_buffer_copy(env, names.len, names.len ? names.data : "", NULL, &jnames) == napi_ok &&
            napi_create_arraybuffer(env, stats.len, &out, &jbuf) == napi_ok &&
            napi_create_typedarray(env, napi_float64_array, count * FIELDS, jbuf, 0, &jstats) == napi_ok &&
            napi_get_boolean(env, ascii, &jascii) == napi_ok && napi_set_named_property(env, result, "names", jnames) == napi_ok &&
            napi_set_named_property(env, result, "stats", jstats) == napi_ok && napi_set_named_property(env, result, "ascii", jascii) == napi_ok;
  if (ok && stats.len > 0) memcpy(out, stats.data, stats.len);
  free(names.data);
  free(stats.data);
  if (!ok) {
    napi_failed(env);
    return NULL;
  }
  return result;
}

/*
 * lstatInto(path, out): lstat of `path` into the Float64Array `out` (at
 * least FIELDS numbers, laid out as scanDir's); returns 0, or the errno of
 * the failed lstat (`out` then untouched). Makes no JavaScript object.
 */
static napi_value lstat_into(napi_env env, napi_callback_info info) {
  napi_value argv[2], result = NULL;
  char *path = NULL;
  if (!get_args(env, info, 2, argv) || !arg_path(env, argv[0], "lstatInto: path", &path)) return NULL;
  bool typed = false;
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (napi_is_typedarray(env, argv[1], &typed) != napi_ok || !typed ||
      napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL) != napi_ok || type != napi_float64_array || length < FIELDS) {
    free(path);
    throw_arg(env, false, "ERR_INVALID_ARG_TYPE", "lstatInto: out", "a Float64Array of SCAN_FIELDS numbers");
    return NULL;
  }
  struct stat st;
  int err = lstat(path, &st) == 0 ? 0 : errno;
  free(path);
  if (err == 0) {
    fill(data, &st);
    ((double *)data)[F_XATTRS] = -1;
  }
  if (napi_create_int32(env, err, &result) != napi_ok) napi_failed(env);
  return result;
}

bool define_scan(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"scanDir", NULL, scan_dir, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lstatInto", NULL, lstat_into, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props) == napi_ok || napi_failed(env);
}
