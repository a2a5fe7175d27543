/*
 * Shared helpers of the addon: reading JavaScript arguments into C values and
 * throwing errors the TypeScript wrapper turns into Node-style system errors.
 * Every helper that fails has already thrown; callers just return NULL.
 */
#ifndef BRICKPOST_POSIX_H
#define BRICKPOST_POSIX_H

#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest integer a JavaScript number holds exactly (2^53 - 1). */
#define MAX_SAFE_INT 9007199254740991LL

/* Throws an Error carrying errno (negative, as Node does) and syscall. */
napi_value throw_sys(napi_env env, int err, const char *syscall);
/* Throws a TypeError or RangeError with a Node error code; returns false. */
bool throw_arg(napi_env env, bool range, const char *code, const char *what, const char *expected);
/* Throws a generic error for a failed napi_* call unless one is pending. */
bool napi_failed(napi_env env);
/* Fills argv[0..n) with the call's arguments (undefined where missing). */
bool get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);
bool is_undefined(napi_env env, napi_value v);
/* A string (as UTF-8) or a Buffer (byte for byte) as a malloc'd C string. */
bool arg_path(napi_env env, napi_value v, const char *what, char **out);
/* A Buffer's bytes, borrowed from the JavaScript value. */
bool arg_bytes(napi_env env, napi_value v, const char *what, void **data, size_t *len);
/* An integral number within [min, max]. */
bool arg_int(napi_env env, napi_value v, const char *what, int64_t min, int64_t max, int64_t *out);
/* A bigint that fits in 64 signed bits. */
bool arg_bigint(napi_env env, napi_value v, const char *what, int64_t *out);
/* A number within [0, 2^53) or a bigint within [0, 2^64). */
bool arg_u64(napi_env env, napi_value v, const char *what, uint64_t *out);

bool define_xattr(napi_env env, napi_value exports);
bool define_files(napi_env env, napi_value exports);
bool define_memory(napi_env env, napi_value exports);
bool define_scan(napi_env env, napi_value exports);

#endif
