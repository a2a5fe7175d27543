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

/* What one scan of a folder read (scan_collect), before it becomes JavaScript values. */
struct scanned {
  struct growing names, stats;
  size_t count;
  bool ascii;
};

static void scanned_free(struct scanned *s) {
  free(s->names.data);
  free(s->stats.data);
  s->names.data = s->stats.data = NULL;
}

/*
 * Lists `path` and stats each entry into `out`; returns 0 or the errno of
 * opendir or readdir (then `out` holds nothing). Makes no napi call, so it
 * runs on a thread-pool thread too (scanDirAsync).
 */
static int scan_collect(const char *path, bool xattrs, struct scanned *out) {
  memset(out, 0, sizeof *out);
  out->ascii = true;
  DIR *dir = opendir(path);
  if (dir == NULL) return errno;
  struct growing full = {NULL, 0, 0};
  size_t base = strlen(path);
  int err = 0;
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
    if (!grow(&out->names, len + 1) || !grow(&out->stats, FIELDS * sizeof(double))) {
      err = ENOMEM;
      break;
    }
    for (size_t i = 0; i < len; i++) out->ascii = out->ascii && (unsigned char)n[i] < 0x80;
    memcpy(out->names.data + out->names.len, n, len + 1);
    out->names.len += len + 1;
    double *f = (double *)(void *)(out->stats.data + out->stats.len);
    out->stats.len += FIELDS * sizeof(double);
    out->count++;
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
  free(full.data);
  if (err != 0) scanned_free(out);
  return err;
}

/* { names, stats, ascii } of a scan (freed here), or NULL with an exception pending. */
static napi_value scanned_value(napi_env env, struct scanned *s) {
  napi_value result = NULL, jnames, jbuf, jstats, jascii;
  void *out = NULL;
  bool ok = napi_create_object(env, &result) == napi_ok &&
            napi_create_buffer_copy(env, s->names.len, s->names.len ? s->names.data : "", NULL, &jnames) == napi_ok &&
            napi_create_arraybuffer(env, s->stats.len, &out, &jbuf) == napi_ok &&
            napi_create_typedarray(env, napi_float64_array, s->count * FIELDS, jbuf, 0, &jstats) == napi_ok &&
            napi_get_boolean(env, s->ascii, &jascii) == napi_ok && napi_set_named_property(env, result, "names", jnames) == napi_ok &&
            napi_set_named_property(env, result, "stats", jstats) == napi_ok && napi_set_named_property(env, result, "ascii", jascii) == napi_ok;
  if (ok && s->stats.len > 0) memcpy(out, s->stats.data, s->stats.len);
  scanned_free(s);
  if (!ok) {
    napi_failed(env);
    return NULL;
  }
  return result;
}

/* The arguments (path, xattrs) of scanDir and scanDirAsync; false with an exception pending. */
static bool scan_args(napi_env env, napi_callback_info info, const char *name, char **path, bool *xattrs) {
  napi_value argv[2];
  *xattrs = false;
  if (!get_args(env, info, 2, argv) || !arg_path(env, argv[0], name, path)) return false;
  if (!is_undefined(env, argv[1]) && napi_get_value_bool(env, argv[1], xattrs) != napi_ok) {
    free(*path);
    *path = NULL;
    throw_arg(env, false, "ERR_INVALID_ARG_TYPE", "scanDir: xattrs", "a boolean");
    return false;
  }
  return true;
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
  char *path = NULL;
  bool xattrs = false;
  if (!scan_args(env, info, "scanDir: path", &path, &xattrs)) return NULL;
  struct scanned s;
  int err = scan_collect(path, xattrs, &s);
  free(path);
  if (err != 0) return throw_sys(env, err, "scandir");
  return scanned_value(env, &s);
}

/* One scanDirAsync call: its arguments, what the pool thread read, and its promise. */
struct scan_job {
  napi_async_work work;
  napi_deferred deferred;
  char *path;
  bool xattrs;
  int err;
  struct scanned out;
};

static void scan_execute(napi_env env, void *data) {
  (void)env;
  struct scan_job *job = data;
  job->err = scan_collect(job->path, job->xattrs, &job->out);
}

/* Settles the promise on the JavaScript thread: the scan's value, or the error scanDir would throw. */
static void scan_complete(napi_env env, napi_status status, void *data) {
  struct scan_job *job = data;
  napi_value value = NULL, error = NULL;
  if (status == napi_cancelled) job->err = ECANCELED;
  if (job->err == 0) {
    value = scanned_value(env, &job->out);
  } else {
    scanned_free(&job->out);
    throw_sys(env, job->err, "scandir");
  }
  if (value != NULL) {
    napi_resolve_deferred(env, job->deferred, value);
  } else if (napi_get_and_clear_last_exception(env, &error) == napi_ok && error != NULL) {
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  free(job->path);
  free(job);
}

/*
 * Creates the promise of an async call and queues `work` on libuv's pool
 * with `data`; false, with an exception pending and nothing queued, when a
 * napi call fails (the caller then frees `data`).
 */
static bool queue_promised(napi_env env, const char *name, napi_async_execute_callback execute, napi_async_complete_callback complete, void *data,
                           napi_async_work *work, napi_deferred *deferred, napi_value *promise) {
  napi_value jname;
  if (napi_create_promise(env, deferred, promise) != napi_ok || napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &jname) != napi_ok ||
      napi_create_async_work(env, NULL, jname, execute, complete, data, work) != napi_ok) {
    return napi_failed(env);
  }
  if (napi_queue_async_work(env, *work) != napi_ok) {
    napi_delete_async_work(env, *work);
    return napi_failed(env);
  }
  return true;
}

/*
 * scanDirAsync(path, xattrs): a promise of what scanDir gives, the folder
 * read on a thread of libuv's pool, so a walk waiting on a cold disk does
 * not hold the JavaScript thread and several folders are read at once.
 */
static napi_value scan_dir_async(napi_env env, napi_callback_info info) {
  struct scan_job *job = calloc(1, sizeof *job);
  napi_value promise = NULL;
  if (job == NULL) return throw_sys(env, ENOMEM, "malloc");
  if (!scan_args(env, info, "scanDirAsync: path", &job->path, &job->xattrs)) {
    free(job);
    return NULL;
  }
  if (!queue_promised(env, "brickpost:scanDir", scan_execute, scan_complete, job, &job->work, &job->deferred, &promise)) {
    free(job->path);
    free(job);
    return NULL;
  }
  return promise;
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

/* One lstatManyAsync call: the paths (each followed by a NUL byte), what the pool thread read, and its promise. */
struct many_job {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref paths_ref;
  const char *paths;
  size_t len;
  uint32_t count;
  double *out;
};

static void many_execute(napi_env env, void *data) {
  (void)env;
  struct many_job *job = data;
  const char *p = job->paths, *end = job->paths + job->len;
  for (uint32_t i = 0; i < job->count; i++) {
    double *f = job->out + (size_t)i * FIELDS;
    const char *nul = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
    if (nul == NULL) {
      /* Fewer paths than count: the rest read as "no such file". */
      memset(f, 0, FIELDS * sizeof(double));
      f[F_ERRNO] = ENOENT;
      continue;
    }
    struct stat st;
    if (lstat(p, &st) == 0) {
      fill(f, &st);
      f[F_XATTRS] = -1;
    } else {
      memset(f, 0, FIELDS * sizeof(double));
      f[F_ERRNO] = errno;
    }
    p = nul + 1;
  }
}

static void many_complete(napi_env env, napi_status status, void *data) {
  struct many_job *job = data;
  napi_value buf, arr, error = NULL;
  void *mem = NULL;
  bool ok = status == napi_ok && napi_create_arraybuffer(env, (size_t)job->count * FIELDS * sizeof(double), &mem, &buf) == napi_ok &&
            napi_create_typedarray(env, napi_float64_array, (size_t)job->count * FIELDS, buf, 0, &arr) == napi_ok;
  if (ok) {
    if (job->count > 0) memcpy(mem, job->out, (size_t)job->count * FIELDS * sizeof(double));
    napi_resolve_deferred(env, job->deferred, arr);
  } else {
    if (status == napi_cancelled) throw_sys(env, ECANCELED, "lstat");
    else napi_failed(env);
    if (napi_get_and_clear_last_exception(env, &error) == napi_ok && error != NULL) napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_reference(env, job->paths_ref);
  napi_delete_async_work(env, job->work);
  free(job->out);
  free(job);
}

/*
 * lstatManyAsync(paths, count): a promise of a Float64Array of count * FIELDS
 * numbers, laid out as scanDir's stats: the lstat of each of the `count`
 * paths in the Buffer `paths` (each followed by a NUL byte), made in order
 * on a thread of libuv's pool. A failed lstat gives its errno in F_ERRNO and
 * zeros. The Buffer must not change until the promise settles.
 */
static napi_value lstat_many_async(napi_env env, napi_callback_info info) {
  napi_value argv[2], promise = NULL;
  void *data = NULL;
  size_t len = 0;
  uint32_t count = 0;
  if (!get_args(env, info, 2, argv) || !arg_bytes(env, argv[0], "lstatManyAsync: paths", &data, &len)) return NULL;
  if (napi_get_value_uint32(env, argv[1], &count) != napi_ok || count > (1u << 20)) {
    throw_arg(env, false, "ERR_INVALID_ARG_TYPE", "lstatManyAsync: count", "a whole number up to 2^20");
    return NULL;
  }
  struct many_job *job = calloc(1, sizeof *job);
  if (job == NULL) return throw_sys(env, ENOMEM, "malloc");
  job->out = malloc((size_t)(count > 0 ? count : 1) * FIELDS * sizeof(double));
  if (job->out == NULL) {
    free(job);
    return throw_sys(env, ENOMEM, "malloc");
  }
  job->paths = data;
  job->len = len;
  job->count = count;
  bool referenced = napi_create_reference(env, argv[0], 1, &job->paths_ref) == napi_ok || napi_failed(env);
  if (!referenced || !queue_promised(env, "brickpost:lstatMany", many_execute, many_complete, job, &job->work, &job->deferred, &promise)) {
    if (referenced) napi_delete_reference(env, job->paths_ref);
    free(job->out);
    free(job);
    return NULL;
  }
  return promise;
}

bool define_scan(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"scanDir", NULL, scan_dir, NULL, NULL, NULL, napi_enumerable, NULL},
      {"scanDirAsync", NULL, scan_dir_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lstatInto", NULL, lstat_into, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lstatManyAsync", NULL, lstat_many_async, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props) == napi_ok || napi_failed(env);
}
