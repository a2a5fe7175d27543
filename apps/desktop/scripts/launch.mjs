#!/usr/bin/env node
// `npm run desktop`: starts the Electron app (apps/desktop) with the Electron
// binary of node_modules/electron. The workspace must be built first (the
// root script runs `tsc -b`). When the binary was not downloaded (installed
// with ELECTRON_SKIP_BINARY_DOWNLOAD=1, or offline), says how to get it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

let electron = null;
try {
  electron = require('electron');
} catch {
  // Missing package or missing binary (index.js throws when path.txt is absent).
}
if (typeof electron !== 'string' || !existsSync(electron)) {
  process.stderr.write(
    'brickpost: error: the Electron binary is not installed\n' +
      "brickpost: hint: where downloads are allowed, run 'node node_modules/electron/install.js' (or reinstall without ELECTRON_SKIP_BINARY_DOWNLOAD); without Electron, 'brickpost ui' serves the same app to your browser\n",
  );
  process.exit(5);
}
if (!existsSync(join(app, 'dist', 'src', 'main', 'main.js'))) {
  process.stderr.write("brickpost: error: the desktop app is not built\nbrickpost: hint: run 'npx tsc -b' at the repository root\n");
  process.exit(2);
}
const child = spawn(electron, [app, ...process.argv.slice(2)], { stdio: 'inherit', windowsHide: false });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
