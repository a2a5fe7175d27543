/**
 * The loopback UI server of `brickpost ui` (startUiServer) against a real
 * engine home: every request without the token is 403, the page included;
 * the cookie of the first page load lets later requests in; a foreign Host
 * or Origin is refused; it listens on 127.0.0.1 only; static paths cannot
 * escape the renderer folder; API calls, job event streams (pack and verify
 * of a real drive), cancel and engine errors arrive as the bridge expects.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { startUiServer, type UiServer } from '@brickpost/desktop/server';
import { tempDir } from '../support.js';
import { http, readEvents } from './http.js';

const SECRET = 'secret outside the renderer folder';

describe('brickpost ui server', () => {
  const root = tempDir('bp-ui-');
  const site = join(root, 'site');
  const home = join(root, 'home');
  let server: UiServer;
  let port: number;
  let token: string;
  const withToken = (path: string): string => `${path}${path.includes('?') ? '&' : '?'}token=${token}`;
  const call = (method: string, ...args: unknown[]) => http(port, withToken('/api/call'), { body: { method, args } });

  beforeAll(async () => {
    mkdirSync(join(site, 'web'), { recursive: true });
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>brickpost</title><script type="module" src="web/app.js"></script>\n');
    writeFileSync(join(site, 'app.css'), 'body { margin: 0 }\n');
    writeFileSync(join(site, 'web', 'app.js'), 'export {};\n');
    writeFileSync(join(site, '.hidden'), 'dot file\n');
    writeFileSync(join(root, 'secret.txt'), SECRET);
    symlinkSync(join(root, 'secret.txt'), join(site, 'link.txt'));
    server = await startUiServer({ home, root: site });
    port = server.port;
    token = server.token;
  });
  afterAll(() => server.close());

  test('the URL names 127.0.0.1 and carries a 32-byte token', () => {
    assert.equal(server.url, `http://127.0.0.1:${port}/?token=${token}`);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
  });

  test('without the token the page, a static file and the API are 403', async () => {
    for (const path of ['/', '/index.html', '/app.css', '/web/app.js', '/api/job/x/events']) {
      const r = await http(port, path);
      assert.equal(r.status, 403, path);
      assert.doesNotMatch(r.body, /brickpost<\/title>|margin/, path);
    }
    const api = await http(port, '/api/call', { body: { method: 'trustList', args: [] } });
    assert.equal(api.status, 403);
    assert.equal((await http(port, '/?token=' + 'A'.repeat(43))).status, 403, 'a wrong token');
    assert.equal((await http(port, `/?token=${token}x`)).status, 403, 'the token with a character more');
  });

  test('with the token the page is served with its type, a strict CSP and the session cookie', async () => {
    const r = await http(port, withToken('/'));
    assert.equal(r.status, 200);
    assert.match(r.body, /<title>brickpost<\/title>/);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    const cookie = String(r.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^brickpost_ui_${port}=${token};`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\//);
  });

  test('the cookie of the first load lets later requests in; a wrong cookie does not', async () => {
    const cookie = String((await http(port, withToken('/'))).headers['set-cookie']).split(';')[0]!;
    const css = await http(port, '/app.css', { headers: { Cookie: cookie } });
    assert.equal(css.status, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    const js = await http(port, '/web/app.js', { headers: { Cookie: `other=1; ${cookie}` } });
    assert.equal(js.status, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    const api = await http(port, '/api/call', { headers: { Cookie: cookie }, body: { method: 'trustList', args: [] } });
    assert.equal(api.status, 200);
    assert.equal((await http(port, '/app.css', { headers: { Cookie: `brickpost_ui_${port}=${'B'.repeat(43)}` } })).status, 403);
    assert.equal((await http(port, '/app.css', { headers: { Cookie: `brickpost_ui_${port + 1}=${token}` } })).status, 403, "another port's cookie");
  });

  test('a Host header that is not this server is 403, even with the token (DNS rebinding)', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, `0.0.0.0:${port}`]) {
      assert.equal((await http(port, withToken('/'), { headers: { Host: host } })).status, 403, host);
    }
    assert.equal((await http(port, withToken('/'), { headers: { Host: `localhost:${port}` } })).status, 200);
    const noHost = await new Promise<string>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port }, () => s.end(`GET /?token=${token} HTTP/1.0\r\n\r\n`));
      let text = '';
      s.setEncoding('utf8');
      s.on('data', (c: string) => (text += c));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
    assert.match(noHost, /^HTTP\/1\.[01] 403 /, 'a request without a Host header');
  });

  test('a POST from another origin or site is 403; from this origin it is served', async () => {
    const body = { method: 'trustList', args: [] };
    assert.equal((await http(port, withToken('/api/call'), { body, headers: { Origin: 'http://evil.example' } })).status, 403);
    assert.equal((await http(port, withToken('/api/call'), { body, headers: { Origin: `http://127.0.0.1:${port + 1}` } })).status, 403);
    assert.equal((await http(port, withToken('/api/call'), { body, headers: { 'Sec-Fetch-Site': 'cross-site' } })).status, 403);
    assert.equal(
      (await http(port, withToken('/api/call'), { body, headers: { Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' } })).status,
      200,
    );
    const form = await http(port, withToken('/api/call'), { method: 'POST', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(form.status, 400, 'a body that is not JSON');
  });

  test('it listens on 127.0.0.1 only', async () => {
    if (process.platform === 'linux') {
      const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
      const listening = readFileSync('/proc/net/tcp', 'utf8')
        .split('\n')
        .filter((l) => l.includes(`:${hexPort} `) && / 0A /.test(l));
      assert.ok(listening.length >= 1, 'the listening socket is in /proc/net/tcp');
      for (const l of listening) assert.match(l.trim().split(/\s+/)[1]!, new RegExp(`^0100007F:${hexPort}$`));
      const v6 = readFileSync('/proc/net/tcp6', 'utf8')
        .split('\n')
        .filter((l) => l.includes(`:${hexPort} `) && / 0A /.test(l));
      assert.equal(v6.length, 0, 'no IPv6 listener');
    }
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect({ host: external.address, port });
        s.once('connect', () => (s.destroy(), resolve(false)));
        s.once('error', () => resolve(true));
      });
      assert.ok(refused, `a connection to ${external.address}:${port} must be refused`);
    }
  });

  test('paths cannot escape the renderer folder, and folders are not listed', async () => {
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/web/..%2f..%2fsecret.txt',
      '/%2e%2e%5csecret.txt',
      '/web/%2e%2e/%2e%2e/secret.txt',
      '/link.txt',
      '/.hidden',
      '/web/',
      '/web',
      '/%00',
      '/%zz',
      `/${root.slice(1)}/secret.txt`,
    ]) {
      const r = await http(port, withToken(path));
      assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
      assert.doesNotMatch(r.body, /secret outside|dot file|app\.js/, path);
    }
  });

  test('API calls: whoami, keygen, trustList', async () => {
    const before = await call('whoami');
    assert.equal(before.status, 200);
    assert.deepEqual(JSON.parse(before.body), { value: null });
    const made = JSON.parse((await call('keygen', { name: 'ui-test' })).body).value;
    assert.match(made.recipient, /^age1/);
    assert.equal(made.home, home);
    const who = JSON.parse((await call('whoami')).body).value;
    assert.equal(who.keyId, made.keyId);
    const trusted = JSON.parse((await call('trustList')).body).value;
    assert.equal(trusted.length, 1);
    assert.equal(trusted[0].self, true);
    assert.equal(trusted[0].keyId, made.keyId);
  });

  test('an engine error arrives with its code, exit code and hint', async () => {
    const again = await call('keygen', { name: 'ui-test' });
    assert.equal(again.status, 400);
    const e = JSON.parse(again.body).error;
    assert.equal(e.name, 'BrickpostError');
    assert.equal(e.code, 'IDENTITY_EXISTS');
    assert.equal(e.exitCode, 2);
    assert.equal(typeof e.hint, 'string');
    assert.ok(e.hint.length > 0);
    const bad = JSON.parse((await call('trustAdd', { key: 'RWnot-a-key' })).body).error;
    assert.equal(bad.code, 'BAD_KEY');
    const unknown = await http(port, withToken('/api/call'), { body: { method: 'constructor', args: [] } });
    assert.equal(unknown.status, 400);
    assert.equal(JSON.parse(unknown.body).error.code, 'USAGE');
    const badArgs = JSON.parse((await call('sourceInfo', 'not an object')).body).error;
    assert.equal(badArgs.code, 'USAGE');
  });

  test('pack and verify run as jobs: progress events, then the result', async () => {
    const src = join(root, 'src');
    const drive = join(root, 'drive');
    mkdirSync(join(src, 'sub'), { recursive: true });
    mkdirSync(drive);
    writeFileSync(join(src, 'a.bin'), randomBytes(300_000));
    writeFileSync(join(src, 'sub', 'b.txt'), 'hello\n'.repeat(1000));
    const info = JSON.parse((await call('sourceInfo', { path: src })).body).value;
    assert.deepEqual(info, { path: src, files: 2, dirs: 1, bytes: 306_000 });

    const started = await http(port, withToken('/api/job'), {
      body: { jobId: 'pack-1', method: 'pack', args: [{ source: src, drives: [drive], recipients: [] }] },
    });
    assert.equal(started.status, 202, started.body);
    const dup = await http(port, withToken('/api/job'), {
      body: { jobId: 'pack-1', method: 'pack', args: [{ source: src, drives: [drive], recipients: [] }] },
    });
    assert.equal(JSON.parse(dup.body).error.code, 'USAGE', 'a job id in use is refused');
    const packed = await readEvents(port, withToken('/api/job/pack-1/events'));
    assert.equal(packed.status, 200);
    assert.equal(packed.contentType, 'text/event-stream; charset=utf-8');
    const last = packed.messages[packed.messages.length - 1]!;
    assert.equal(last.event, 'result', JSON.stringify(last.data));
    assert.ok(
      packed.messages.some((m) => m.event === 'progress' && m.data.type === 'progress' && typeof m.data.bytesDone === 'number'),
      'progress events',
    );
    assert.equal(packed.messages.filter((m) => m.event === 'result' || m.event === 'error').length, 1);
    assert.equal(last.data.files, 2);
    assert.match(last.data.shipmentId, /\S/);

    const drives = JSON.parse((await http(port, withToken('/api/call'), { body: { method: 'drives', args: [] } })).body).value;
    assert.ok(Array.isArray(drives));

    await http(port, withToken('/api/job'), { body: { jobId: 'verify-1', method: 'verify', args: [{ drive, deep: true }] } });
    const verified = await readEvents(port, withToken('/api/job/verify-1/events'));
    const v = verified.messages[verified.messages.length - 1]!;
    assert.equal(v.event, 'result');
    assert.equal(v.data.ok, true);
    assert.equal(v.data.shipmentId, last.data.shipmentId);
    assert.equal(v.data.deep, 'ok');
    const report = JSON.parse((await call('report', { target: drive })).body).value;
    assert.equal(report.report.format, 'brickpost-report/v1');
    assert.equal(report.report.shipment.id, last.data.shipmentId);
    assert.match(report.html, /^<!doctype html>/i);
    const label = JSON.parse((await call('label', { drive })).body).value;
    assert.ok(label.html.includes(last.data.shipmentId), 'the label names the shipment');
    const custody = JSON.parse((await call('custody', { drive })).body).value;
    assert.equal(custody.shipmentId, last.data.shipmentId);
    const plan = JSON.parse((await call('plan', { bytes: 10e12 })).body).value;
    assert.equal(typeof plan.recommendation, 'string');
    assert.ok(plan.networkSeconds > 0 && plan.shipSeconds > 0);
    const replay = await readEvents(port, withToken('/api/job/verify-1/events'));
    assert.equal(replay.messages[replay.messages.length - 1]!.event, 'result', 'a finished job can still be read');

    const dest = join(root, 'dest');
    await http(port, withToken('/api/job'), { body: { jobId: 'ingest-1', method: 'ingest', args: [{ drive, dest }] } });
    const ingested = (await readEvents(port, withToken('/api/job/ingest-1/events'))).messages.at(-1)!;
    assert.equal(ingested.event, 'result', JSON.stringify(ingested.data));
    assert.equal(ingested.data.files, 2);
    assert.equal(readFileSync(join(dest, 'sub', 'b.txt'), 'utf8'), 'hello\n'.repeat(1000));
    const receipt = JSON.parse((await call('receipt', { dest })).body).value;
    assert.ok(receipt.out.startsWith(join(home, 'receipts') + '/'), receipt.out);
    assert.equal(readFileSync(receipt.out, 'utf8'), receipt.text, 'the receipt file and the text returned');
    assert.equal(JSON.parse(receipt.text).format, 'brickpost-receipt/v1');
    assert.equal(receipt.receipt.verification.ok, true);
    const history = JSON.parse((await call('history', { dest })).body).value;
    assert.deepEqual(
      history.shipments.map((s: { shipmentId: string }) => s.shipmentId),
      [last.data.shipmentId],
    );
  });

  test('a failing job ends its stream with an error event that has code and hint', async () => {
    const notADrive = join(root, 'empty');
    mkdirSync(notADrive);
    await http(port, withToken('/api/job'), { body: { jobId: 'verify-bad', method: 'verify', args: [{ drive: notADrive }] } });
    const r = await readEvents(port, withToken('/api/job/verify-bad/events'));
    const last = r.messages[r.messages.length - 1]!;
    assert.equal(last.event, 'error');
    assert.equal(last.data.code, 'NOT_A_DRIVE');
    assert.equal(last.data.exitCode, 2);
    assert.equal(typeof last.data.hint, 'string');
    const missing = await http(port, withToken('/api/job/nope/events'));
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).error.code, 'NOT_FOUND');
  });

  test('cancel stops a running job, which ends with CANCELLED', async () => {
    const big = join(root, 'big');
    const drive = join(root, 'drive-big');
    mkdirSync(big);
    mkdirSync(drive);
    for (let i = 0; i < 8; i++) writeFileSync(join(big, `f${i}.bin`), randomBytes(8 << 20));
    await http(port, withToken('/api/job'), {
      body: { jobId: 'pack-cancel', method: 'pack', args: [{ source: big, drives: [drive], recipients: [], dataset: 'big' }] },
    });
    let cancelled: Promise<unknown> | null = null;
    const r = await readEvents(port, withToken('/api/job/pack-cancel/events'), {}, (m) => {
      if (m.event === 'progress' && cancelled === null)
        cancelled = http(port, withToken('/api/job/pack-cancel/cancel'), { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    });
    assert.ok(cancelled !== null, 'a progress event came before the end');
    // eslint-disable-next-line @typescript-eslint/await-thenable -- set in the callback above, which TypeScript does not follow
    const answer = (await cancelled) as { status: number; body: string };
    assert.equal(answer.status, 200);
    const last = r.messages[r.messages.length - 1]!;
    assert.equal(last.event, 'error', JSON.stringify(last.data).slice(0, 300));
    assert.equal(last.data.code, 'CANCELLED');
    assert.equal(last.data.exitCode, 130);
  });
});
