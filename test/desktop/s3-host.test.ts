/**
 * Buckets through the desktop host, as the renderer calls it, against a
 * real S3 server (versitygw, test/s3/server.ts): a drive ingested into a
 * prefix with the endpoint given in the call's `s3` field, its history,
 * that prefix packed back onto a drive, a second shipment rolled back
 * and an interrupted ingest resumed; an `s3` field that is not
 * `{ endpointUrl?, profile? }` of strings is refused before the engine runs.
 */
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { DestHistory, IngestSummary, PackSummary, ResumeSummary, RollbackSummary } from '@brickpost/engine/api';
import { DesktopHost } from '@brickpost/desktop/host';
import { brickpost, CLI, publisherAndSubscriber, tempDir } from '../support.js';
import { diffObjects, objects } from '../s3/helpers.js';
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

  test('ingest into a bucket prefix, its history, a pack from it, rollback and resume, with the endpoint of the call', async () => {
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

      // Shipment 2 changes the prefix; rollback with the endpoint of the call returns it to shipment 1, resume finishes a killed ingest.
      const v1 = await objects(s3.client, 'archive', 'from-host/');
      writeFileSync(join(src, 'readme.txt'), 'changed by shipment 2\n');
      writeFileSync(join(src, 'docs/c.txt'), 'added by shipment 2\n');
      const drive3 = join(root, 'drive3');
      mkdirSync(drive3);
      const p2 = brickpost(pub, ['pack', src, '--to', drive3, '--recipient', recipient, '--dataset', 'host-s3']);
      assert.equal(p2.code, 0, p2.stderr);
      const second = (await host.job('i3', 'ingest', [{ drive: drive3, dest, s3: s3opts }], () => undefined)) as IngestSummary;
      const v2 = await objects(s3.client, 'archive', 'from-host/');
      assert.ok(diffObjects(v1, v2).length >= 2, 'shipment 2 changed the prefix');
      const back = (await host.call('rollback', [{ dest, to: '1', s3: s3opts }])) as RollbackSummary;
      assert.deepEqual([back.from.seq, back.to.seq], [2, 1]);
      assert.deepEqual(diffObjects(v1, await objects(s3.client, 'archive', 'from-host/')), []);
      const killed = spawnSync(process.execPath, [CLI, '--home', sub, '--quiet', 'ingest', drive3, dest], {
        env: { ...s3.env, BRICKPOST_FAILPOINT: 's3-apply@1' },
      });
      assert.equal(killed.signal, 'SIGKILL', String(killed.stderr));
      assert.ok(((await host.call('history', [{ dest, s3: s3opts }])) as DestHistory).inProgress, 'the killed ingest is reported');
      const resumed = (await host.call('resume', [{ dest, s3: s3opts }])) as ResumeSummary;
      assert.ok(resumed.finished, 'resume finished the ingest');
      assert.equal(resumed.current?.shipmentId, second.shipmentId);
      assert.deepEqual(diffObjects(v2, await objects(s3.client, 'archive', 'from-host/')), []);

      // The page sends only the endpoint and the profile, each a string.
      for (const [call, bad] of [
        [
          () => host.call('rollback', [{ dest, to: '1', s3: { ...s3opts, accessKeyId: 'x' } }]),
          /rollback: s3 takes endpointUrl and profile only, not "accessKeyId"/,
        ],
        [() => host.call('rollback', [{ dest, to: '1', s3: [s3.endpoint] }]), /rollback: s3 must be an object/],
        [() => host.call('resume', [{ dest, s3: { profile: 7 } }]), /resume: profile must be a non-empty string/],
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
