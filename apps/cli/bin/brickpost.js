#!/usr/bin/env -S node --max-semi-space-size=4
// Launcher for the `brickpost` command; the code lives in ../dist (npx tsc -b).
//
// This file is CommonJS (bin/package.json), so nothing has started libuv's thread pool
// when it runs: each drive of a set keeps a write or an fsync in flight on a thread of
// that pool, 4 by default, and a set of more busy drives would wait for a free thread.
//
// The shebang caps V8's new space at two semi-spaces of 4 MB (it grew to 2 × 16 MB here):
// brickpost's data lives in Buffers and native memory, and a larger new space only held
// more garbage: a 2 GiB pack peaked at 229 MB without the cap and 196 MB with it, in the same
// CPU time. `node bin/brickpost.js` runs without it (bench/lib/cli.mjs reads it from here).
'use strict';
process.env.UV_THREADPOOL_SIZE ??= '16';
import('../dist/src/main.js').then((m) => m.main(process.argv.slice(2)));
