import { test } from 'vitest';
import assert from 'node:assert/strict';
import { isBrickpostError } from '@brickpost/manifest';
import { s3Error } from '../src/s3/client.js';
import { headerText, headerValue, metadataAttrs, objectMetadata } from '../src/s3/meta.js';
import { isS3Url, parseS3Url } from '../src/s3/url.js';

test('s3:// URLs: bucket and prefix, the prefix taken as folders', () => {
  assert.equal(isS3Url('s3://b/x'), true);
  assert.equal(isS3Url('./s3:/b'), false);
  assert.deepEqual(parseS3Url('s3://my-bucket'), { bucket: 'my-bucket', prefix: '', url: 's3://my-bucket' });
  assert.deepEqual(parseS3Url('s3://my-bucket/a/b/'), { bucket: 'my-bucket', prefix: 'a/b/', url: 's3://my-bucket/a/b' });
  assert.deepEqual(parseS3Url('s3://my-bucket/a/b'), parseS3Url('s3://my-bucket/a/b/'));
  for (const bad of ['s3://', 's3://UPPER/x', 's3://b', 's3://ok-bucket/a//b', 's3://ok-bucket/../x', 's3://ok-bucket/./x']) {
    assert.throws(
      () => parseS3Url(bad),
      (e: unknown) => isBrickpostError(e, 'USAGE'),
      bad,
    );
  }
});

test('metadata travels as user.s3.* attributes, names ascending, and back', () => {
  const x = metadataAttrs({ etag: '"abc"', contentType: 'text/plain', metadata: { Zeta: '1', alpha: 'ünï' } });
  assert.deepEqual(
    x.map(([n]) => n),
    ['user.s3.content-type', 'user.s3.etag', 'user.s3.meta.alpha', 'user.s3.meta.zeta'],
  );
  const back = objectMetadata([...x, ['user.other', Buffer.from('v').toString('base64')]]);
  assert.equal(back.contentType, 'text/plain');
  assert.deepEqual(back.metadata, { alpha: '=?UTF-8?B?w7xuw68=?=', zeta: '1' });
  assert.equal(back.ignored, 1, 'an attribute outside user.s3 is not applied');
});

test('metadata values: RFC 2047 words and raw UTF-8 read as text; non-ASCII written as one encoded word', () => {
  assert.equal(headerText('=?UTF-8?B?w7xuw68=?='), 'ünï');
  assert.equal(headerText('=?utf-8?Q?caf=C3=A9_bar?='), 'café bar');
  assert.equal(headerText(Buffer.from('ünï', 'utf8').toString('latin1')), 'ünï');
  assert.equal(headerText('plain'), 'plain');
  assert.equal(headerValue('plain value'), 'plain value');
  assert.equal(headerText(headerValue('naïve ☃')), 'naïve ☃');
});

test('object storage errors: credentials and denials exit 5, a missing bucket exits 2, and the message names the place', () => {
  const place = parseS3Url('s3://bkt/p');
  const e1 = s3Error(Object.assign(new Error('x'), { name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } }), 'cannot list', place);
  assert.equal(e1.code, 'PERMISSION');
  assert.equal(e1.exitCode, 5);
  assert.match(e1.message, /s3:\/\/bkt\/p: the server refused the credentials/);
  const e2 = s3Error(Object.assign(new Error('x'), { name: 'AccessDenied' }), 'cannot read', place, 'p/k');
  assert.match(e2.message, /s3:\/\/bkt\/p\/k: access denied/);
  const e3 = s3Error(Object.assign(new Error('x'), { name: 'NoSuchBucket' }), 'cannot list', place);
  assert.equal(e3.exitCode, 2);
  const e4 = s3Error(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), 'cannot list', place);
  assert.equal(e4.code, 'IO');
  assert.match(e4.hint ?? '', /--endpoint-url/);
});
