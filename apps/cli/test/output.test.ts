import { test } from 'vitest';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Output } from '../src/output.js';
import type { Stream } from '../src/output.js';
import { ProgressLine } from '../src/progress.js';

function capture(tty: boolean): { stream: Stream; text: () => string } {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  s.isTTY = tty;
  s.columns = 60;
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return { stream: s, text: () => Buffer.concat(chunks).toString('utf8') };
}

test('diagnostics go to stderr with the brickpost prefix; results to stdout', async () => {
  const out = capture(false);
  const err = capture(false);
  const o = new Output({ json: false, quiet: false, stdout: out.stream, stderr: err.stream });
  await o.line('result');
  o.info('working');
  o.warn('odd file', 'a/b');
  await o.failure({ type: 'error', code: 'USAGE', exitCode: 2, message: 'bad', hint: 'fix it' });
  assert.equal(out.text(), 'result\n');
  assert.equal(err.text(), 'brickpost: working\nbrickpost: warning: odd file (a/b)\nbrickpost: error: bad\nbrickpost: hint: fix it\n');
});

test('--json: the error event goes to stdout too; --quiet hides info', async () => {
  const out = capture(false);
  const err = capture(false);
  const o = new Output({ json: true, quiet: true, stdout: out.stream, stderr: err.stream });
  o.info('hidden');
  await o.failure({ type: 'error', code: 'LOCKED', exitCode: 7, message: 'locked' });
  assert.deepEqual(JSON.parse(out.text()), { type: 'error', code: 'LOCKED', exitCode: 7, message: 'locked' });
  assert.equal(err.text(), 'brickpost: error: locked\n');
});

test('progress: drawn on a TTY only, throttled, cleared before other lines and at the end', () => {
  const err = capture(true);
  let now = 0;
  const o = new Output({ json: false, quiet: false, stdout: capture(false).stream, stderr: err.stream });
  const p = new ProgressLine(o, 200, () => now);
  const ev = (done: number, phase = 'pack') => ({ type: 'progress' as const, phase, bytesDone: done, filesDone: 1, rate: 0 });
  p.update(ev(1));
  now = 100;
  p.update(ev(2));
  now = 150;
  p.update(ev(3, 'seal'));
  now = 400;
  p.update(ev(4, 'seal'));
  o.warn('w');
  now = 700;
  p.update(ev(5, 'seal'));
  p.done();
  const text = err.text();
  assert.equal(text.match(/\r(pack|seal) /g)?.length, 4, text);
  assert.ok(!text.includes('2 B'), 'the throttled update must not be drawn');
  assert.ok(text.includes('\r\x1b[Kbrickpost: warning: w\n'));
  assert.ok(text.endsWith('\r\x1b[K'));

  for (const [tty, json, quiet] of [
    [false, false, false],
    [true, true, false],
    [true, false, true],
  ] as const) {
    const e = capture(tty);
    const q = new Output({ json, quiet, stdout: capture(false).stream, stderr: e.stream });
    new ProgressLine(q).update(ev(1));
    assert.equal(e.text(), '', `tty=${tty} json=${json} quiet=${quiet}`);
  }
});

test('progress of a drive set: each drive after the job line, drive events never replace it', () => {
  const err = capture(true);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a test stands in for a terminal's width
  (err.stream as PassThrough & { columns?: number }).columns = 400;
  let now = 0;
  const o = new Output({ json: false, quiet: false, stdout: capture(false).stream, stderr: err.stream });
  const p = new ProgressLine(o, 200, () => now);
  const drive = (d: string, done: number) => ({
    type: 'progress' as const,
    phase: 'write',
    bytesDone: done,
    filesDone: 0,
    rate: 2_000_000,
    etaSeconds: 90,
    drive: d,
  });
  p.update(drive('/media/a', 1 << 20));
  assert.equal(err.text(), '', 'a drive event alone draws nothing');
  p.update({ type: 'progress', phase: 'pack', bytesDone: 5 << 20, filesDone: 3, rate: 0 });
  now = 300;
  p.update(drive('/media/b', 3 << 20));
  const last = err.text().split('\r').pop()!;
  assert.match(last, /^pack +5\.24 MB .*\|\| {2}d1 1\.05 MB 2 MB\/s ETA 1:30 \| d2 3\.15 MB 2 MB\/s ETA 1:30/);
});
