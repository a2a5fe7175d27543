/**
 * Buckets through the desktop host, as the renderer calls it, against a
 * real S3 server (versitygw, test/s3/server.ts): a drive ingested into a
 * prefix with the endpoint given in the call's `s3` field, its history,
 * that prefix packed back onto a drive; an `s3` field that is not
 * `{ endpointUrl?, profile? }` of strings is refused before the engine runs.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DestHistory, IngestSummary, PackSummary } from '@brickpost/engine/api';
import { DesktopHost } from '@brickpost/desktop/host';
import { brickpost, publisherAndSubscriber, tempDir } from '../support.js';
import { objects } from '../s3/helpers.js';
import { s3Skip, startS3, type S3Server } from '../s3/server.js';

const skip = s3Skip();

/** The error a promise rejects with (asserting it rejects). */
async function refused(p: Promise<unknown>): Promise<Record<string, unknown>> {
  return p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e as Record<string, unknown>,
  );
}

describe.skipIf(skip)(`desktop host with a bucket${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3();
    await s3.bucket('archive');
    // The host runs in this process: credentials from the environment, as the app's engine takes them; the endpoint only from the calls.
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE'] as const)
      process.env[k] = s3.env[k];
    for (const k of ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_S3', 'AWS_PROFILE', 'AWS_SESSION_TOKEN']) Reflect.deleteProperty(process.env, k);
  });
  afterAll(() => s3?.stop());

  test('ingest into a bucket prefix, its history, and a pack from it, with the endpoint of the call', async () => {
    const root = tempDir('bp-host-s3-');
    const [pub, sub, src, drive, drive2] = ['pub', 'sub', 'src', 'drive', 'drive2'].map((n) => join(root, n)) as [string, string, string, string, string];
    mkdirSync(join(src, 'docs'), { recursive: true });
    mkdirSync(drive);
    mkdirSync(drive2);
    const files: Record<string, string> = {
      'readme.txt': 'a bucket through the host\n',
      'docs/a.csv': 'x,y\n1,2\n'.repeat(3000),
      'docs/b.bin': 'b'.repeat(70_000),
    };
    for (const [p, text] of Object.entries(files)) writeFileSync(join(src, p), text);
    const recipient = publisherAndSubscriber(pub, sub);
    const p = brickpost(pub, ['pack', src, '--to', drive, '--recipient', recipient, '--dataset', 'host-s3']);
    assert.equal(p.code, 0, p.stderr);

    const host = new DesktopHost({ home: sub });
    try {
      const dest = 's3://archive/from-host';
      const s3opts = { endpointUrl: s3.endpoint };
      const events: string[] = [];
      const ingested = (await host.job('i1', 'ingest', [{ drive, dest, s3: s3opts }], (e) => events.push(e.type))) as IngestSummary;
      assert.equal(ingested.files, 3);
      assert.equal(ingested.alreadyApplied, false);
      assert.ok(events.includes('progress'), 'progress events reach the listener');
      const got = await objects(s3.client, 'archive', 'from-host/');
      assert.deepEqual(
        [...got].map(([k, o]) => [k, o.sha256]).sort(),
        Object.entries(files)
          .map(([k, text]) => [k, createHash('sha256').update(text).digest('hex')])
          .sort(),
      );

      const hist = (await host.call('history', [{ dest, s3: s3opts }])) as DestHistory;
      assert.equal(hist.dataset, 'host-s3');
      assert.deepEqual(
        hist.shipments.map((s) => s.shipmentId),
        [ingested.shipmentId],
      );

      const packed = (await host.job('p1', 'pack', [{ source: dest, s3: s3opts, drives: [drive2], recipients: [] }], () => undefined)) as PackSummary;
      assert.equal(packed.files, 3);
      assert.equal(packed.dataset, 'from-host');

      // The page sends only the endpoint and the profile, each a string.
      for (const [call, bad] of [
        [() => host.call('history', [{ dest, s3: { ...s3opts, secretAccessKey: 'x' } }]), /endpointUrl and profile only, not "secretAccessKey"/],
        [() => host.call('history', [{ dest, s3: s3.endpoint }]), /s3 must be an object/],
        [() => host.job('i2', 'ingest', [{ drive, dest, s3: { endpointUrl: 7 } }], () => undefined), /endpointUrl must be a non-empty string/],
        [
          () => host.job('p2', 'pack', [{ source: dest, s3: { profile: '' }, drives: [drive2], recipients: [] }], () => undefined),
          /profile must be a non-empty string/,
        ],
      ] as const) {
        const e = await refused(call());
        assert.equal(e.code, 'USAGE');
        assert.match(String(e.message), bad);
      }
    } finally {
      await host.close();
    }
  });
});
