import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { tempDir } from '../support.js';
import { faultEnv, readFaultLog } from './shim.js';

// The shim itself: a test that injects a fault must know the fault happened.
describe('fault shim', () => {
  const run = (code: string, env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8' });

  test('fails the nth matching call with the errno, and only that one', () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const code = `const fs = require('fs'); const out = [];
      for (let i = 0; i < 3; i++) { const fd = fs.openSync(${JSON.stringify(dir)} + '/f' + i, 'w'); try { fs.fsyncSync(fd); out.push('ok'); } catch (e) { out.push(e.code); } fs.closeSync(fd); }
      console.log(out.join(','));`;
    const r = run(code, faultEnv({ op: 'fsync', errno: 'EIO', nth: 2, path: dir }, log));
    assert.equal(r.stdout.trim(), 'ok,EIO,ok', r.stderr);
    const calls = readFaultLog(log);
    assert.deepEqual(
      calls.map((c) => c.fired),
      [false, true, false],
    );
    assert.equal(calls[1]!.path, join(dir, 'f1'));
  });

  test('sticky: every call from the nth on fails; other paths are left alone', () => {
    const dir = tempDir();
    const other = tempDir();
    const code = `const fs = require('fs'); const out = [];
      for (const d of [${JSON.stringify(dir)}, ${JSON.stringify(other)}, ${JSON.stringify(dir)}]) { try { fs.writeFileSync(d + '/x', 'data'); out.push('ok'); } catch (e) { out.push(e.code); } }
      console.log(out.join(','));`;
    const r = run(code, faultEnv({ op: 'write', errno: 'ENOSPC', nth: 1, sticky: true, path: dir }));
    assert.equal(r.stdout.trim(), 'ENOSPC,ok,ENOSPC', r.stderr);
  });

  test('a part ending in $ matches the end of the path only; the count spans the processes a run starts', () => {
    const dir = tempDir();
    const code = `const fs = require('fs'); const cp = require('child_process'); const out = [];
      fs.mkdirSync(${JSON.stringify(dir)} + '/sub');
      for (const p of [${JSON.stringify(dir)}, ${JSON.stringify(dir)} + '/sub', ${JSON.stringify(dir)}]) { const r = cp.spawnSync('sync', ['-f', p]); out.push(r.status === 0 ? 'ok' : 'fail'); }
      console.log(out.join(','));`;
    const env = { ...faultEnv({ op: 'fsync', errno: 'EIO', nth: 2, path: `${dir}$` }), BP_FAULT_COUNT: join(dir, 'count') };
    const r = run(code, env);
    assert.equal(r.stdout.trim(), 'ok,ok,fail', r.stderr);
  });
});
