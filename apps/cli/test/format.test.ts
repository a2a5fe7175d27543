import { test } from 'vitest';
import assert from 'node:assert/strict';
import { entryLine, formatBytes, formatCount, formatDuration, formatMode, formatMtime, formatRate, plural, printable } from '../src/format.js';
import { renderProgress } from '../src/progress.js';

test('sizes and rates in SI units (as the planner, reports and the desktop app), counts with separators', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(1024), '1.02 kB');
  assert.equal(formatBytes(2e9), '2 GB');
  assert.equal(formatBytes(2 * 1024 ** 3), '2.15 GB');
  assert.equal(formatBytes(1.4e12), '1.4 TB');
  assert.equal(formatCount(1234), '1,234');
  assert.equal(formatCount(1234567), '1,234,567');
  assert.equal(formatCount(999), '999');
  assert.equal(formatRate(312e6), '312 MB/s');
  assert.equal(formatRate(12.34e6), '12.3 MB/s');
  assert.equal(plural(1, 'file'), '1 file');
  assert.equal(plural(1234, 'file'), '1,234 files');
});

test('durations', () => {
  assert.equal(formatDuration(42), '42s');
  assert.equal(formatDuration(187), '3:07');
  assert.equal(formatDuration(7387), '2:03:07');
});

test('modes like ls -l', () => {
  assert.equal(formatMode('file', 0o644), '-rw-r--r--');
  assert.equal(formatMode('dir', 0o755), 'drwxr-xr-x');
  assert.equal(formatMode('file', 0o100600), '-rw-------');
  assert.equal(formatMode('file', 0o4755), '-rwsr-xr-x');
  assert.equal(formatMode('dir', 0o1777), 'drwxrwxrwt');
  assert.equal(formatMode('file', 0o2644), '-rw-r-Sr--');
});

test('mtime from nanoseconds, in UTC', () => {
  const ns = (BigInt(Date.UTC(2026, 0, 2, 3, 4, 5)) * 1_000_000n + 123_456n).toString();
  assert.equal(formatMtime(ns), '2026-01-02 03:04');
  assert.equal(formatMtime('not a number'), '????-??-?? ??:??');
});

test('ls line', () => {
  const ns = (BigInt(Date.UTC(2026, 0, 2, 3, 4)) * 1_000_000n).toString();
  assert.equal(entryLine({ type: 'file', path: 'a/b.txt', size: 1234, mode: 0o644, mtimeNs: ns }), '-rw-r--r--          1234  2026-01-02 03:04  a/b.txt');
});

test('untrusted names are quoted when they could forge terminal output', () => {
  assert.equal(printable('data/file.txt'), 'data/file.txt');
  assert.equal(printable('résumé ü.txt'), 'résumé ü.txt');
  assert.equal(printable('a\nbrickpost: verified OK'), '"a\\nbrickpost: verified OK"');
  assert.equal(printable('x\u001b[2Jy'), '"x\\u001b[2Jy"');
  assert.equal(printable('evil\u202egnp.exe'), '"evil\\u202egnp.exe"');
  assert.equal(printable(' lead'), '" lead"');
  assert.equal(printable(''), '""');
  assert.equal(printable('lone\ud800'), '"lone\\ud800"');
});

test('progress line', () => {
  const line = renderProgress({
    type: 'progress',
    phase: 'pack',
    bytesDone: 1.2 * 1024 ** 3,
    bytesTotal: 2 * 1024 ** 3,
    filesDone: 1234,
    filesTotal: 5678,
    rate: 312e6,
    etaSeconds: 42,
  });
  assert.equal(line, 'pack    1.29 GB / 2.15 GB   60%  312 MB/s  ETA 42s  1,234/5,678 files');
  assert.equal(renderProgress({ type: 'progress', phase: 'scan', bytesDone: 0, filesDone: 10, rate: 0 }), 'scan    0 B  10 files');
});
