#!/usr/bin/env node
/**
 * The desktop's drive view, as its host calls the engine: folders of a
 * shipment through `Engine.listFolder` (5,000 entries at most, as the
 * view lists them).
 *
 *   node bench/lib/drive-view.mjs HOME DRIVE build          # the root: the first look, which builds the browse index
 *   node bench/lib/drive-view.mjs HOME DRIVE again FOLDER   # the root again, then FOLDER (the index reused)
 *
 * Prints one JSON line: each call's milliseconds, entries, total and
 * whether it built the index.
 */
import { performance } from 'node:perf_hooks';
import { Engine } from '@brickpost/engine';

const [home, drive, mode, deep] = process.argv.slice(2);
if (!home || !drive || !['build', 'again'].includes(mode) || (mode === 'again' && !deep)) {
  process.stderr.write('usage: drive-view.mjs HOME DRIVE build | HOME DRIVE again FOLDER\n');
  process.exit(2);
}
const engine = Engine.open({ home });
const calls = [];
try {
  for (const folder of mode === 'build' ? [''] : ['', deep]) {
    const t = performance.now();
    const f = await engine.listFolder({ drive, folder, limit: 5000 });
    calls.push({ folder, ms: Math.round((performance.now() - t) * 10) / 10, entries: f.entries.length, total: f.total, built: f.indexBuilt });
  }
} finally {
  engine.close();
}
process.stdout.write(JSON.stringify({ calls }) + '\n');
