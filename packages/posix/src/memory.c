/*
 * The C library's allocator: how many arenas it may keep. glibc gives each
 * thread that meets contention an arena of its own, up to 8 per core, and
 * keeps what they freed; a process with a thread pool of 16 and a native
 * worker per core holds tens of megabytes that way.
 */
#include "posix.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value limit_arenas(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  int64_t n = 0;
  if (!get_args(env, info, 1, argv) || !arg_int(env, argv[0], "arenas", 1, 1024, &n)) return NULL;
  bool done = false;
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  done = mallopt(M_ARENA_MAX, (int)n) == 1;
#endif
  if (napi_get_boolean(env, done, &out) != napi_ok) {
    napi_failed(env);
    return NULL;
  }
  return out;
}

bool define_memory(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"limitArenas", NULL, limit_arenas, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props) == napi_ok || napi_failed(env);
}
