/*
 * Module entry and argument helpers. Errors thrown here carry only errno and
 * syscall; src/errors.ts names the code and the path as Node's fs does.
 */
#include "posix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool set_prop(napi_env env, napi_value obj, const char *key, napi_value v) {
  return napi_set_named_property(env, obj, key, v) == napi_ok || napi_failed(env);
}

bool napi_failed(napi_env env) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) {
    const napi_extended_error_info *info = NULL;
    napi_get_last_error_info(env, &info);
    napi_throw_error(env, NULL, info && info->error_message ? info->error_message : "node-api call failed");
  }
  return false;
}

napi_value throw_sys(napi_env env, int err, const char *syscall) {
  const char *text = strerror(err);
  napi_value msg, error, num, sys, desc;
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg) != napi_ok ||
      napi_create_error(env, NULL, msg, &error) != napi_ok ||
      napi_create_int32(env, -err, &num) != napi_ok ||
      napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &sys) != napi_ok ||
      napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &desc) != napi_ok) {
    napi_failed(env);
    return NULL;
  }
  if (set_prop(env, error, "errno", num) && set_prop(env, error, "syscall", sys) &&
      set_prop(env, error, "description", desc)) {
    napi_throw(env, error);
  }
  return NULL;
}

bool throw_arg(napi_env env, bool range, const char *code, const char *what, const char *expected) {
  /* Room for "<what> must be <expected>"; both are short literals of ours. */
  char message[256];
  snprintf(message, sizeof message, "%s must be %s", what, expected);
  if (range) {
    napi_throw_range_error(env, code, message);
  } else {
    napi_throw_type_error(env, code, message);
  }
  return false;
}

bool get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  size_t argc = n;
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok || napi_failed(env);
}

bool is_undefined(napi_env env, napi_value v) {
  napi_valuetype t = napi_undefined;
  napi_typeof(env, v, &t);
  return t == napi_undefined;
}

static bool copy_bytes(napi_env env, const char *what, const char *src, size_t len, char **out) {
  if (memchr(src, 0, len) != NULL) {
    return throw_arg(env, false, "ERR_INVALID_ARG_VALUE", what, "a name without null bytes");
  }
  char *s = malloc(len + 1);
  if (s == NULL) {
    throw_sys(env, ENOMEM, "malloc");
    return false;
  }
  memcpy(s, src, len);
  s[len] = '\0';
  *out = s;
  return true;
}

bool arg_path(napi_env env, napi_value v, const char *what, char **out) {
  napi_valuetype t;
  bool is_buffer = false;
  if (napi_typeof(env, v, &t) != napi_ok) return napi_failed(env);
  if (t == napi_string) {
    size_t len = 0;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return napi_failed(env);
    char *s = malloc(len + 1);
    if (s == NULL) {
      throw_sys(env, ENOMEM, "malloc");
      return false;
    }
    if (napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) {
      free(s);
      return napi_failed(env);
    }
    bool ok = copy_bytes(env, what, s, len, out);
    free(s);
    return ok;
  }
  if (t == napi_object && napi_is_buffer(env, v, &is_buffer) != napi_ok) return napi_failed(env);
  if (!is_buffer) return throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a string or a Buffer");
  void *data = NULL;
  size_t len = 0;
  if (napi_get_buffer_info(env, v, &data, &len) != napi_ok) return napi_failed(env);
  return copy_bytes(env, what, len ? data : "", len, out);
}

bool arg_bytes(napi_env env, napi_value v, const char *what, void **data, size_t *len) {
  napi_valuetype t;
  bool is_buffer = false;
  if (napi_typeof(env, v, &t) != napi_ok) return napi_failed(env);
  if (t == napi_object && napi_is_buffer(env, v, &is_buffer) != napi_ok) return napi_failed(env);
  if (!is_buffer) return throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a Buffer");
  return napi_get_buffer_info(env, v, data, len) == napi_ok || napi_failed(env);
}

bool arg_int(napi_env env, napi_value v, const char *what, int64_t min, int64_t max, int64_t *out) {
  napi_valuetype t;
  double d = 0;
  if (napi_typeof(env, v, &t) != napi_ok) return napi_failed(env);
  if (t != napi_number) return throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a number");
  if (napi_get_value_double(env, v, &d) != napi_ok) return napi_failed(env);
  if (!isfinite(d) || floor(d) != d || d < (double)min || d > (double)max) {
    char expected[96];
    snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)min, (long long)max);
    return throw_arg(env, true, "ERR_OUT_OF_RANGE", what, expected);
  }
  *out = (int64_t)d;
  return true;
}

bool arg_bigint(napi_env env, napi_value v, const char *what, int64_t *out) {
  napi_valuetype t;
  bool lossless = false;
  if (napi_typeof(env, v, &t) != napi_ok) return napi_failed(env);
  if (t != napi_bigint) return throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a bigint");
  if (napi_get_value_bigint_int64(env, v, out, &lossless) != napi_ok) return napi_failed(env);
  if (!lossless) return throw_arg(env, true, "ERR_OUT_OF_RANGE", what, "within 64 signed bits");
  return true;
}

bool arg_u64(napi_env env, napi_value v, const char *what, uint64_t *out) {
  napi_valuetype t;
  bool lossless = false;
  if (napi_typeof(env, v, &t) != napi_ok) return napi_failed(env);
  if (t == napi_bigint) {
    if (napi_get_value_bigint_uint64(env, v, out, &lossless) != napi_ok) return napi_failed(env);
    if (!lossless) return throw_arg(env, true, "ERR_OUT_OF_RANGE", what, "within 64 unsigned bits");
    return true;
  }
  if (t != napi_number) return throw_arg(env, false, "ERR_INVALID_ARG_TYPE", what, "a number or a bigint");
  int64_t n = 0;
  if (!arg_int(env, v, what, 0, MAX_SAFE_INT, &n)) return false;
  *out = (uint64_t)n;
  return true;
}

NAPI_MODULE_INIT() {
  if (!define_files(env, exports) || !define_xattr(env, exports) || !define_memory(env, exports) || !define_scan(env, exports)) return NULL;
  return exports;
}
