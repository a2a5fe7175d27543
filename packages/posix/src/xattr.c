/*
 * Extended attributes (which also carry POSIX ACLs and file capabilities on
 * Linux), read without following symbolic links or through an open file.
 * macOS spells the l* calls as the plain ones with XATTR_NOFOLLOW and an extra
 * position argument; Linux reports a missing attribute as ENODATA, macOS as
 * ENOATTR.
 */
#include "posix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/xattr.h>

#ifdef __APPLE__
#define NO_ATTR ENOATTR
#define SYS_LLIST "listxattr"
#define SYS_LGET "getxattr"
#define SYS_LSET "setxattr"
#define SYS_LREMOVE "removexattr"
#define x_llist(p, b, n) listxattr(p, b, n, XATTR_NOFOLLOW)
#define x_lget(p, k, b, n) getxattr(p, k, b, n, 0, XATTR_NOFOLLOW)
#define x_lset(p, k, b, n) setxattr(p, k, b, n, 0, XATTR_NOFOLLOW)
#define x_lremove(p, k) removexattr(p, k, XATTR_NOFOLLOW)
#define x_flist(fd, b, n) flistxattr(fd, b, n, 0)
#define x_fget(fd, k, b, n) fgetxattr(fd, k, b, n, 0, 0)
#define x_fset(fd, k, b, n) fsetxattr(fd, k, b, n, 0, 0)
#define x_fremove(fd, k) fremovexattr(fd, k, 0)
#else
#define NO_ATTR ENODATA
#define SYS_LLIST "llistxattr"
#define SYS_LGET "lgetxattr"
#define SYS_LSET "lsetxattr"
#define SYS_LREMOVE "lremovexattr"
#define x_llist(p, b, n) llistxattr(p, b, n)
#define x_lget(p, k, b, n) lgetxattr(p, k, b, n)
#define x_lset(p, k, b, n) lsetxattr(p, k, b, n, 0)
#define x_lremove(p, k) lremovexattr(p, k)
#define x_flist(fd, b, n) flistxattr(fd, b, n)
#define x_fget(fd, k, b, n) fgetxattr(fd, k, b, n)
#define x_fset(fd, k, b, n) fsetxattr(fd, k, b, n, 0)
#define x_fremove(fd, k) fremovexattr(fd, k)
#endif

/* Gives up when the size keeps changing between the query and the read. */
#define MAX_TRIES 16

/* What a list or get call reads from: a path or an open file, and a name. */
struct target {
  const char *path;
  int fd;
  const char *name;
};

static ssize_t call_list(const struct target *t, char *buf, size_t cap) {
  return t->path ? x_llist(t->path, buf, cap) : x_flist(t->fd, buf, cap);
}

static ssize_t call_get(const struct target *t, char *buf, size_t cap) {
  return t->path ? x_lget(t->path, t->name, buf, cap) : x_fget(t->fd, t->name, buf, cap);
}

/*
 * Asks for the size, allocates it and reads; a value that grew in between
 * fails with ERANGE and is asked for again. Returns 0 or an errno value; on 0,
 * *out is malloc'd (or NULL when empty) and holds *len bytes.
 */
static int read_sized(const struct target *t, ssize_t (*call)(const struct target *, char *, size_t), char **out,
                      size_t *len) {
  char *buf = NULL;
  for (int tries = 0; tries < MAX_TRIES; tries++) {
    ssize_t want = call(t, NULL, 0);
    if (want < 0) break;
    if (want == 0) {
      free(buf);
      *out = NULL;
      *len = 0;
      return 0;
    }
    char *grown = realloc(buf, (size_t)want);
    if (grown == NULL) {
      free(buf);
      return ENOMEM;
    }
    buf = grown;
    ssize_t got = call(t, buf, (size_t)want);
    if (got >= 0) {
      *out = buf;
      *len = (size_t)got;
      return 0;
    }
    if (errno != ERANGE) break;
  }
  int err = errno;
  free(buf);
  return err;
}

/* Splits a NUL-separated name list into an array of Buffers. */
static napi_value names_array(napi_env env, const char *list, size_t len) {
  napi_value array, name;
  uint32_t n = 0;
  if (napi_create_array(env, &array) != napi_ok) {
    napi_failed(env);
    return NULL;
  }
  for (size_t start = 0; start < len;) {
    const char *end = memchr(list + start, '\0', len - start);
    size_t name_len = end ? (size_t)(end - (list + start)) : len - start;
    if (name_len > 0) {
      if (napi_create_buffer_copy(env, name_len, list + start, NULL, &name) != napi_ok ||
          napi_set_element(env, array, n++, name) != napi_ok) {
        napi_failed(env);
        return NULL;
      }
    }
    start += name_len + 1;
  }
  return array;
}

static napi_value list_of(napi_env env, const struct target *t, const char *syscall) {
  char *buf = NULL;
  size_t len = 0;
  int err = read_sized(t, call_list, &buf, &len);
  if (err != 0) return throw_sys(env, err, syscall);
  napi_value result = names_array(env, buf, len);
  free(buf);
  return result;
}

static napi_value value_of(napi_env env, const struct target *t, const char *syscall) {
  char *buf = NULL;
  size_t len = 0;
  napi_value result = NULL;
  int err = read_sized(t, call_get, &buf, &len);
  if (err == NO_ATTR) {
    if (napi_get_null(env, &result) != napi_ok) napi_failed(env);
    return result;
  }
  if (err != 0) return throw_sys(env, err, syscall);
  if (napi_create_buffer_copy(env, len, len ? buf : "", NULL, &result) != napi_ok) {
    napi_failed(env);
    result = NULL;
  }
  free(buf);
  return result;
}

static napi_value list_xattrs(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct target t = {NULL, -1, NULL};
  char *path = NULL;
  if (!get_args(env, info, 1, argv) || !arg_path(env, argv[0], "listXattrs: path", &path)) return NULL;
  t.path = path;
  napi_value result = list_of(env, &t, SYS_LLIST);
  free(path);
  return result;
}

static napi_value get_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[2], result = NULL;
  char *path = NULL, *name = NULL;
  if (!get_args(env, info, 2, argv)) return NULL;
  if (arg_path(env, argv[0], "getXattr: path", &path) && arg_path(env, argv[1], "getXattr: name", &name)) {
    struct target t = {path, -1, name};
    result = value_of(env, &t, SYS_LGET);
  }
  free(path);
  free(name);
  return result;
}

static napi_value set_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  char *path = NULL, *name = NULL;
  void *data = NULL;
  size_t len = 0;
  if (!get_args(env, info, 3, argv)) return NULL;
  if (arg_bytes(env, argv[2], "setXattr: value", &data, &len) && arg_path(env, argv[0], "setXattr: path", &path) &&
      arg_path(env, argv[1], "setXattr: name", &name)) {
    if (x_lset(path, name, len ? data : "", len) != 0) throw_sys(env, errno, SYS_LSET);
  }
  free(path);
  free(name);
  return NULL;
}

static napi_value remove_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  char *path = NULL, *name = NULL;
  if (!get_args(env, info, 2, argv)) return NULL;
  if (arg_path(env, argv[0], "removeXattr: path", &path) && arg_path(env, argv[1], "removeXattr: name", &name)) {
    if (x_lremove(path, name) != 0) throw_sys(env, errno, SYS_LREMOVE);
  }
  free(path);
  free(name);
  return NULL;
}

static napi_value f_list_xattrs(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t fd;
  if (!get_args(env, info, 1, argv) || !arg_int(env, argv[0], "fListXattrs: fd", 0, INT32_MAX, &fd)) return NULL;
  struct target t = {NULL, (int)fd, NULL};
  return list_of(env, &t, "flistxattr");
}

static napi_value f_get_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[2], result = NULL;
  int64_t fd;
  char *name = NULL;
  if (!get_args(env, info, 2, argv) || !arg_int(env, argv[0], "fGetXattr: fd", 0, INT32_MAX, &fd) ||
      !arg_path(env, argv[1], "fGetXattr: name", &name)) {
    return NULL;
  }
  struct target t = {NULL, (int)fd, name};
  result = value_of(env, &t, "fgetxattr");
  free(name);
  return result;
}

static napi_value f_set_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  int64_t fd;
  void *data = NULL;
  size_t len = 0;
  char *name = NULL;
  if (!get_args(env, info, 3, argv) || !arg_int(env, argv[0], "fSetXattr: fd", 0, INT32_MAX, &fd) ||
      !arg_bytes(env, argv[2], "fSetXattr: value", &data, &len) || !arg_path(env, argv[1], "fSetXattr: name", &name)) {
    return NULL;
  }
  if (x_fset((int)fd, name, len ? data : "", len) != 0) throw_sys(env, errno, "fsetxattr");
  free(name);
  return NULL;
}

static napi_value f_remove_xattr(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t fd;
  char *name = NULL;
  if (!get_args(env, info, 2, argv) || !arg_int(env, argv[0], "fRemoveXattr: fd", 0, INT32_MAX, &fd) || !arg_path(env, argv[1], "fRemoveXattr: name", &name)) {
    return NULL;
  }
  if (x_fremove((int)fd, name) != 0) throw_sys(env, errno, "fremovexattr");
  free(name);
  return NULL;
}

bool define_xattr(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"listXattrs", NULL, list_xattrs, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getXattr", NULL, get_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setXattr", NULL, set_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
      {"removeXattr", NULL, remove_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fListXattrs", NULL, f_list_xattrs, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fGetXattr", NULL, f_get_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fSetXattr", NULL, f_set_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fRemoveXattr", NULL, f_remove_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props) == napi_ok || napi_failed(env);
}
