#!/usr/bin/env node
// Launcher for the `brickpost` command; the code lives in ../dist (npx tsc -b).
//
// This file is CommonJS (bin/package.json), so nothing has started libuv's thread pool
// when it runs: each drive of a set keeps a write or an fsync in flight on a thread of
// that pool, 4 by default, and a set of more busy drives would wait for a free thread.
'use strict';
process.env.UV_THREADPOOL_SIZE ??= '16';
import('../dist/src/main.js').then((m) => m.main(process.argv.slice(2)));
