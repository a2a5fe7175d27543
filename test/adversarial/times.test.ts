/**
 * Signed times: verify, ingest and the report show when a shipment was
 * packed and how long ago; a creation time far ahead of this machine's
 * clock is a warning (CREATED_IN_FUTURE) naming how far, on a drive that
 * is otherwise genuine. (A creation time that is not a time, an expiry
 * before the creation and a sequence number past 2^53 are testkit
 * vectors: bag_info_created_not_a_time, bag_info_expiry_before_created,
 * bag_info_sequence_past_2_53.)
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, test } from 'vitest';
import { buildVector, newParty, type Parties } from '@brickpost/engine/testing';
import { brickpost, lastEvent, tempDir } from '../support.js';

const body = (created: string): string =>
  ['chunk hello "hello, world\\n"', '', `bag-info Brickpost-Created ${created}`, 'header', 'file a.txt hello', 'packs', 'end', ''].join('\n');

describe('signed creation times', () => {
  const root = tempDir('bp-adv-times-');
  let parties: Parties;
  const home = (): string => join(root, 'homes', 'self');

  beforeAll(() => {
    parties = { self: newParty(join(root, 'homes', 'self')), stranger: newParty(join(root, 'homes', 'stranger')) };
  });

  const crafted = async (created: string): Promise<string> => {
    const work = mkdtempSync(join(root, 'crafted-'));
    const drive = join(work, 'drive');
    mkdirSync(drive);
    mkdirSync(join(work, 'scratch'));
    await buildVector(body(created), parties, drive, join(work, 'scratch'));
    return drive;
  };

  test('ten years ahead: verify and ingest warn (CREATED_IN_FUTURE) naming how far, and still work', async () => {
    const ahead = new Date(Date.now() + 10 * 365.25 * 86400e3).toISOString();
    const drive = await crafted(ahead);
    const v = brickpost(home(), ['verify', drive, '--json']);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const warning = v.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.code === 'CREATED_IN_FUTURE');
    assert.ok(warning, v.stdout);
    assert.match(
      warning.message,
      /packed at \d{4}-\d\d-\d\d \d\d:\d\d UTC, (9|10) years ahead of this machine's clock \(more than the 1 hour allowed for clock skew\)/,
    );
    const text = brickpost(home(), ['verify', drive]);
    assert.match(text.stdout, /packed \d{4}-\d\d-\d\d \d\d:\d\d UTC \((9|10) years in the future\)/);
    assert.match(text.stderr, /brickpost: warning: .*years ahead of this machine's clock/);

    const dest = join(root, 'dest-ahead');
    const i = brickpost(home(), ['ingest', drive, dest, '--json']);
    assert.equal(i.code, 0, i.stdout + i.stderr);
    assert.match(i.stdout, /"code":"CREATED_IN_FUTURE"/);
    assert.equal(lastEvent(i).result.created, ahead);
    assert.equal(readFileSync(join(dest, 'a.txt'), 'utf8'), 'hello, world\n');
  });

  test('two years old: shown with its age, no warning; within the clock skew: no warning either', async () => {
    const old = await crafted(new Date(Date.now() - 2 * 365.25 * 86400e3 - 86400e3).toISOString());
    const v = brickpost(home(), ['verify', old]);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /packed \d{4}-\d\d-\d\d \d\d:\d\d UTC \(2 years ago\)/);
    assert.doesNotMatch(v.stderr, /ahead of this machine's clock/);
    const i = brickpost(home(), ['ingest', old, join(root, 'dest-old')]);
    assert.equal(i.code, 0, i.stderr);
    assert.match(i.stderr, /shipment packed \d{4}-\d\d-\d\d \d\d:\d\d UTC \(2 years ago\)/);

    const soon = await crafted(new Date(Date.now() + 20 * 60e3).toISOString());
    const s = brickpost(home(), ['verify', soon]);
    assert.equal(s.code, 0, s.stderr);
    assert.doesNotMatch(s.stderr, /ahead of this machine's clock/);
  });
});
