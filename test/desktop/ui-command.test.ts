/**
 * `brickpost ui` as a user runs it: it prints the link (or `{url, port, token}`
 * with --json), serves only with the token, refuses a bad --port, and stops
 * cleanly (exit 0) on SIGTERM and on Ctrl-C (SIGINT).
 */
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { brickpost, CLI, tempDir } from '../support.js';
import { http } from './http.js';

function start(
  home: string,
  args: string[],
): Promise<{ first: string; stop(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string; stdout: string }> }> {
  const child = spawn(process.execPath, [CLI, '--home', home, 'ui', '--no-open', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no output in 30 s: ${err}`))), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const complete = args.includes('--json') ? /}\s*$/.test(out) : out.includes('\n');
      if (!complete) return;
      clearTimeout(t);
      resolve({
        first: out,
        stop: async (signal) => {
          child.kill(signal);
          const code = await exited;
          return { code, stderr: err, stdout: out };
        },
      });
    });
  });
}

test('brickpost ui prints a loopback link with a token, serves with it only, and stops on SIGTERM', async () => {
  const home = join(tempDir('bp-uicmd-'), 'home');
  const ui = await start(home, []);
  const url = new URL(ui.first.trim());
  assert.equal(url.hostname, '127.0.0.1');
  const port = Number(url.port);
  assert.equal((await http(port, '/')).status, 403);
  assert.equal((await http(port, `/api/call${url.search}`, { body: { method: 'whoami', args: [] } })).status, 200);
  const end = await ui.stop('SIGTERM');
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stderr, /127\.0\.0\.1 only/);
  await assert.rejects(http(port, '/'), 'the port is closed');
});

test('brickpost ui --json prints {url, port, token}; Ctrl-C stops it with exit 0', async () => {
  const home = join(tempDir('bp-uicmd-'), 'home');
  const ui = await start(home, ['--json']);
  const doc = JSON.parse(ui.first) as { url: string; port: number; token: string };
  assert.deepEqual(Object.keys(doc).sort(), ['port', 'token', 'url']);
  assert.equal(doc.url, `http://127.0.0.1:${doc.port}/?token=${doc.token}`);
  const page = await http(doc.port, `/?token=${doc.token}`);
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>brickpost<\/title>/, "the renderer's page");
  const end = await ui.stop('SIGINT');
  assert.equal(end.code, 0, end.stderr);
});

test('brickpost ui refuses a bad --port with exit 2', () => {
  const r = brickpost(tempDir('bp-uicmd-'), ['ui', '--port', '70000', '--no-open']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--port "70000" is not a port number/);
});
