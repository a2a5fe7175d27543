import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  BAGIT_TXT,
  parseBagitTxt,
  formatBagInfo,
  parseBagInfo,
  payloadOxum,
  parsePayloadOxum,
  formatManifest,
  parseManifest,
  encodeBagPath,
  decodeBagPath,
  MAX_BAG_INFO_FIELDS,
} from '../src/bag/index.js';
import { isBrickpostError, type ErrorCode } from '../src/errors.js';

function throwsCode(fn: () => unknown, code: ErrorCode, text?: RegExp, label = ''): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isBrickpostError(e), `${label} expected BrickpostError, got ${String(e)}`);
    assert.equal(e.code, code, `${label}: ${e.message}`);
    if (text) assert.match(e.message, text, label);
    return true;
  });
}

const D = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

test('bagit.txt: ours parses; anything else is refused', () => {
  assert.deepEqual(parseBagitTxt(BAGIT_TXT), { version: '1.0', encoding: 'UTF-8' });
  assert.deepEqual(parseBagitTxt(Buffer.from(BAGIT_TXT.replace(/\n/g, '\r\n'))), { version: '1.0', encoding: 'UTF-8' });
  throwsCode(() => parseBagitTxt('BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n'), 'UNSUPPORTED_VERSION');
  throwsCode(() => parseBagitTxt('BagIt-Version: 1.0\nTag-File-Character-Encoding: ISO-8859-1\n'), 'UNSUPPORTED_VERSION');
  for (const bad of [
    '',
    BAGIT_TXT.slice(0, -1),
    '\ufeff' + BAGIT_TXT,
    BAGIT_TXT + 'X: y\n',
    BAGIT_TXT + '\n',
    'Tag-File-Character-Encoding: UTF-8\nBagIt-Version: 1.0\n',
    'BagIt-Version:  1.0\nTag-File-Character-Encoding: UTF-8\n',
    'BagIt-Version: 1.0\rTag-File-Character-Encoding: UTF-8\n',
  ])
    throwsCode(() => parseBagitTxt(bad), 'MALFORMED', undefined, JSON.stringify(bad));
  throwsCode(() => parseBagitTxt(Buffer.from([0x42, 0xff, 0x0a])), 'MALFORMED', /UTF-8/);
});

test('bag-info.txt: round trip with continuation lines and order kept', () => {
  const fields: Array<[string, string]> = [
    ['Source-Organization', 'Example Lab'],
    ['External-Description', 'first line\nsecond line\twith tab'],
    ['Bag-Count', '1 of 3'],
    ['Bag-Group-Identifier', 'brickpost:ds/seq-7'],
    ['Payload-Oxum', payloadOxum(1234, 5)],
    ['Source-Organization', 'repeated labels are allowed'],
    ['Empty', ''],
    ['Ünïcode Label', 'värde'],
  ];
  const text = formatBagInfo(fields);
  assert.equal(text.split('\n')[2], '  second line\twith tab');
  assert.deepEqual(parseBagInfo(text), fields);
  assert.deepEqual(parseBagInfo(Buffer.from(text.replace(/\n/g, '\r\n'))), fields);
  assert.deepEqual(parseBagInfo('A: x\n\t\t y\n   z\nB:\tv\n'), [
    ['A', 'x\ny\nz'],
    ['B', 'v'],
  ]);
  assert.deepEqual(parseBagInfo(''), []);
});

test('bag-info.txt: bad lines are MALFORMED with their line number', () => {
  const cases: Array<[string, RegExp]> = [
    ['A: x\n\nB: y\n', /line 2: blank line/],
    ['  x\n', /line 1: continuation line before any element/],
    ['A: x\n   \n', /line 2: blank continuation/],
    ['no colon here\n', /line 1: no colon/],
    ['A:x\n', /line 1: no whitespace after the colon/],
    [': x\n', /line 1: empty label/],
    ['A : x\n', /line 1: label starts or ends/],
    ['A: x\nB:  y\n', /line 2: value line starts or ends/],
    ['A: x \n', /line 1: value line starts or ends/],
    ['A: x\u0000\n', /control/],
    ['A: x', /line feed/],
    ['A: x\rB: y\n', /carriage return/],
  ];
  for (const [text, re] of cases) throwsCode(() => parseBagInfo(text), 'MALFORMED', re, JSON.stringify(text));
  throwsCode(() => parseBagInfo('A: x\n'.repeat(MAX_BAG_INFO_FIELDS + 1)), 'LIMIT_EXCEEDED');
  throwsCode(() => parseBagInfo('A: ' + 'x'.repeat(2 * 1024 * 1024) + '\n'), 'LIMIT_EXCEEDED');
  for (const bad of [[['A:B', 'x']], [['', 'x']], [[' A', 'x']], [['A', ' x']], [['A', 'x\n\ny']], [['A', 'x\r']], [['A', 'x\n y']]] as Array<
    Array<[string, string]>
  >) {
    throwsCode(() => formatBagInfo(bad), 'USAGE', undefined, JSON.stringify(bad));
  }
});

test('Payload-Oxum', () => {
  assert.equal(payloadOxum(0, 0), '0.0');
  assert.equal(payloadOxum(2 ** 53 - 1, 7), '9007199254740991.7');
  assert.deepEqual(parsePayloadOxum('9007199254740991.7'), { bytes: 2 ** 53 - 1, count: 7 });
  assert.deepEqual(parsePayloadOxum('0.0'), { bytes: 0, count: 0 });
  for (const bad of ['', '1', '1.', '.1', '01.1', '1.01', '-1.1', '1.1.1', ' 1.1', '1.1 ', '1e3.1', '9007199254740992.1', '99999999999999999.1']) {
    throwsCode(() => parsePayloadOxum(bad), 'MALFORMED', undefined, bad);
  }
  throwsCode(() => payloadOxum(-1, 0), 'USAGE');
  throwsCode(() => payloadOxum(1.5, 0), 'USAGE');
});

test('manifest paths: RFC 8493 percent-encoding of CR, LF and % only', () => {
  assert.equal(encodeBagPath('data/a%b\r\nc d'), 'data/a%25b%0D%0Ac d');
  assert.equal(decodeBagPath('data/a%25b%0d%0Ac d'), 'data/a%b\r\nc d');
  assert.equal(decodeBagPath('data/%41'), undefined);
  assert.equal(decodeBagPath('data/%2'), undefined);
  assert.equal(decodeBagPath('data/100%'), undefined);
  const text = formatManifest([
    { path: 'data/50%.txt', digest: D.toUpperCase() },
    { path: 'data/é ü/x', digest: D },
  ]);
  assert.equal(text, `${D}  data/50%25.txt\n${D}  data/é ü/x\n`);
  assert.deepEqual(parseManifest(text, { maxEntries: 2, payload: true }), [
    { path: 'data/50%.txt', digest: D },
    { path: 'data/é ü/x', digest: D },
  ]);
});

test('manifest: lenient only where RFC 8493 says so', () => {
  const upper = D.toUpperCase();
  const parsed = parseManifest(`${upper}\tdata/a\n${D.slice(0, 32)}${upper.slice(32)} \t data/b\r\n`, { maxEntries: 10, payload: true });
  assert.deepEqual(parsed, [
    { path: 'data/a', digest: D },
    { path: 'data/b', digest: D },
  ]);
  assert.deepEqual(
    parseManifest(`${D} bagit.txt\n${D} meta/readme.txt\n`, { maxEntries: 10, payload: false }).map((e) => e.path),
    ['bagit.txt', 'meta/readme.txt'],
  );
  assert.deepEqual(parseManifest('', { maxEntries: 0, payload: true }), []);
});

test('manifest: malformed lines and path attacks are refused with line and path', () => {
  const payload = { maxEntries: 100, payload: true };
  const tag = { maxEntries: 100, payload: false };
  const cases: Array<[string, typeof payload, ErrorCode, RegExp]> = [
    [`${D}  data/../../etc/passwd\n`, payload, 'UNSAFE_PATH', /line 1: "\.\." path component: "data\/\.\.\/\.\.\/etc\/passwd"/],
    [`${D}  data/ok\n${D}  /etc/passwd\n`, payload, 'UNSAFE_PATH', /line 2: absolute path/],
    [`${D}  data/a\\..\\b\n`, payload, 'UNSAFE_PATH', /backslash/],
    [`${D}  data/./a\n`, payload, 'UNSAFE_PATH', /"\." path component/],
    [`${D}  data//a\n`, payload, 'UNSAFE_PATH', /empty path component/],
    [`${D}  data/a/\n`, payload, 'UNSAFE_PATH', /empty path component/],
    [`${D}  data/a%0Ab\n`, payload, 'UNSAFE_PATH', /control/],
    [`${D}  data/a\u0000b\n`, payload, 'UNSAFE_PATH', /control/],
    [`${D}  data/a\u001bb\n`, payload, 'UNSAFE_PATH', /control/],
    [`${D}  data/a\u0085b\n`, payload, 'UNSAFE_PATH', /control/],
    [`${D}  data/trailing \n`, payload, 'UNSAFE_PATH', /whitespace/],
    [`${D}  C:/x\n`, tag, 'UNSAFE_PATH', /drive letter/],
    [`${D}  bagit.txt\n`, payload, 'UNSAFE_PATH', /outside data\//],
    [`${D}  data\n`, payload, 'UNSAFE_PATH', /outside data\//],
    [`${D}  data/x\n`, tag, 'MALFORMED', /payload file/],
    [`${D}  data/${'x'.repeat(5000)}\n`, payload, 'LIMIT_EXCEEDED', /longer than/],
    [`${D}  data/100%\n`, payload, 'MALFORMED', /percent-encoding/],
    [`${D}  data/a\n${D}  data/b\n${D}  data/a\n`, payload, 'MALFORMED', /line 3: "data\/a" is already listed on line 1/],
    [`${D}  data/a\n${D}  data/a/b\n`, payload, 'MALFORMED', /inside "data\/a"/],
    [`${D}  data/a/b\n${D}  data/a\n`, payload, 'MALFORMED', /also a directory/],
    [`${D.slice(1)}  data/a\n`, payload, 'MALFORMED', /line 1: not/],
    [`${D}0  data/a\n`, payload, 'MALFORMED', /line 1: not/],
    [`${D.slice(0, -1)}g  data/a\n`, payload, 'MALFORMED', /line 1: not/],
    [`${D}data/a\n`, payload, 'MALFORMED', /line 1: not/],
    [`${D}  \n`, payload, 'MALFORMED', /line 1: not/],
    [`${D}  data/a\n\n`, payload, 'MALFORMED', /line 2: not/],
    [`# comment\n`, payload, 'MALFORMED', /line 1: not/],
    [`${D}  data/a`, payload, 'MALFORMED', /line feed/],
    [`\ufeff${D}  data/a\n`, payload, 'MALFORMED', /byte-order mark/],
  ];
  for (const [text, opts, code, re] of cases) throwsCode(() => parseManifest(text, opts), code, re, JSON.stringify(text.slice(64, 120)));
  throwsCode(() => parseManifest(`${D}  data/a\n${D}  data/b\n`, { maxEntries: 1, payload: true }), 'LIMIT_EXCEEDED');
  throwsCode(() => parseManifest(Buffer.from([...Buffer.from(`${D}  data/`), 0xc3, 0x28, 0x0a]), payload), 'MALFORMED', /UTF-8/);
});

test('formatManifest refuses what parseManifest would refuse', () => {
  throwsCode(() => formatManifest([{ path: 'data/../x', digest: D }]), 'UNSAFE_PATH');
  throwsCode(() => formatManifest([{ path: 'data/a\nb', digest: D }]), 'UNSAFE_PATH');
  throwsCode(() => formatManifest([{ path: 'data/a', digest: 'abc' }]), 'USAGE');
  throwsCode(
    () =>
      formatManifest([
        { path: 'data/a', digest: D },
        { path: 'data/a', digest: D },
      ]),
    'USAGE',
  );
});
