/**
 * PlanGate (ingest/plan-gate.ts), which lets a first ingest's staging walk
 * run behind its plan: the walk acts on a record only once the plan passed
 * it, the plan's failure fails the walk's wait, the walk's failure stops
 * the plan, and a plan far ahead waits for the walk. "Still waiting" is
 * checked after the event loop ran every turn it had queued, so nothing
 * here depends on timing.
 */
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { ChunkRef, ManifestRecord } from '@brickpost/manifest';
import { AHEAD, AHEAD_REFS, FILE_REFS, PlanGate } from '../src/ingest/plan-gate.js';

/** A file record with `refs` chunk refs, and `more` records of more. */
function fileRecords(p: string, refs: number): ManifestRecord[] {
  const ref: ChunkRef = ['ab'.repeat(32), 0, 0, 10, 10];
  const out: ManifestRecord[] = [];
  for (let left = refs, first = true; first || left > 0; first = false) {
    const c = Array.from({ length: Math.min(1024, left) }, () => ref);
    left -= c.length;
    out.push(first ? { t: 'file', p, size: 10 * c.length, mode: 0o644, mtime: '0', c } : { t: 'more', c });
  }
  return out;
}

/** Collects what recordsFor yields, counting the idle calls; `own` stands for the walk's own reading of the manifest. */
async function collect(gate: PlanGate, own: ManifestRecord[], idle: { calls: number }): Promise<ManifestRecord[]> {
  const got: ManifestRecord[] = [];
  const reading = async function* (): AsyncGenerator<ManifestRecord> {
    yield* own;
  };
  for await (const r of gate.recordsFor(reading, async () => {
    idle.calls++;
  }))
    got.push(r);
  return got;
}

/** Lets every callback the event loop holds run (the gate's own turn is one setImmediate). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A promise's state once the event loop has settled. */
async function stateOf(p: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await settle();
  return state;
}

describe('PlanGate', () => {
  test('the walk goes on at once over planned records and waits at the first one the plan has not passed', async () => {
    const gate = new PlanGate();
    gate.pass(3);
    assert.equal(gate.reached(0), undefined);
    assert.equal(gate.reached(2), undefined);
    const wait = gate.reached(3)!;
    assert.ok(wait instanceof Promise);
    assert.equal(await stateOf(wait), 'pending');
    gate.pass(3);
    assert.equal(await stateOf(wait), 'pending', 'passing the same record again lets nothing through');
    gate.pass(4);
    assert.equal(await stateOf(wait), 'resolved');
    assert.equal(gate.planning, true);
    gate.ended();
    assert.equal(gate.planning, false);
    assert.equal(gate.reached(1_000_000), undefined, 'an ended plan passed every record');
  });

  test("a plan that fails fails the walk's wait with its own error, and that error is the one reported", async () => {
    const gate = new PlanGate();
    gate.pass(2);
    const wait = gate.reached(5)!;
    const planError = new Error('plan: no space');
    gate.ended(planError);
    await assert.rejects(wait, (e) => e === planError);
    await assert.rejects(gate.reached(6)!, (e) => e === planError, 'a later wait fails the same way');
    await assert.rejects(gate.reached(1)!, (e) => e === planError, 'the walk stops at once, before records the plan had passed too');
    const walkError = new Error('walk: failed because the plan did');
    assert.equal(await gate.halt(walkError), planError);
    assert.equal(gate.stopped, null, 'a plan that ended is not stopped');
  });

  test("a walk that fails stops the plan at its next record, waits for it to end, and reports the walk's error", async () => {
    const gate = new PlanGate();
    gate.pass(10);
    const walkError = new Error('walk: damaged pack');
    const halted = gate.halt(walkError);
    assert.equal(gate.stopped?.error, walkError);
    assert.equal(await stateOf(halted), 'pending', 'halt waits for the plan to end');
    // The plan throws what `stopped` holds and ends with it.
    gate.ended(walkError);
    assert.equal(await halted, walkError);
  });

  test('a plan more than AHEAD records ahead of the walk waits until the walk is half as far behind', async () => {
    const gate = new PlanGate();
    assert.equal(await stateOf(gate.turn()), 'resolved', 'a plan not ahead only yields a turn');
    gate.pass(AHEAD + 100);
    assert.equal(gate.reached(0), undefined);
    const turn = gate.turn();
    assert.equal(await stateOf(turn), 'pending');
    assert.equal(gate.reached(AHEAD / 2 + 99), undefined);
    assert.equal(await stateOf(turn), 'pending', 'the walk is still more than AHEAD / 2 behind');
    assert.equal(gate.reached(AHEAD / 2 + 100), undefined);
    assert.equal(await stateOf(turn), 'resolved');
  });

  test('a walk that fails releases a plan waiting for it, which then stops', async () => {
    const gate = new PlanGate();
    gate.pass(AHEAD + 1);
    const turn = gate.turn();
    assert.equal(await stateOf(turn), 'pending');
    const walkError = new Error('walk: cancelled');
    const halted = gate.halt(walkError);
    assert.equal(await stateOf(turn), 'resolved');
    assert.equal(gate.stopped?.error, walkError);
    gate.ended(walkError);
    assert.equal(await halted, walkError);
  });

  test('the plan hands over every record it read, in order; the walk waits for the next, going idle first', async () => {
    const gate = new PlanGate();
    const records: ManifestRecord[] = [{ t: 'dir', p: 'a', mode: 0o755, mtime: '0' }, ...fileRecords('a/f', 3), ...fileRecords('a/g', 1)];
    const idle = { calls: 0 };
    const walk = collect(gate, [], idle);
    assert.equal(await stateOf(walk), 'pending');
    assert.equal(idle.calls, 1, 'nothing to take: the walk sent what it held, then waited');
    for (const r of records) gate.put(r);
    gate.ended();
    assert.deepEqual(await walk, records);
  });

  test('records of one file past FILE_REFS are not held: the walk reads them and the rest itself', async () => {
    const gate = new PlanGate();
    const small = fileRecords('small', 2);
    const huge = fileRecords('huge', FILE_REFS + 2048);
    const after = fileRecords('after', 1);
    const all = [...small, ...huge, ...after];
    // The plan reads and hands over all of them; each `more` adds 1024 refs to the huge file's.
    for (const r of all) gate.put(r);
    gate.ended();
    const kept = small.length + Math.ceil(FILE_REFS / 1024);
    const own = all.map((r) => ({ ...r }));
    const got = await collect(gate, own, { calls: 0 });
    assert.equal(got.length, all.length);
    assert.deepEqual(got, all);
    got.forEach((r, i) => assert.equal(r === own[i], i >= kept, `record ${i} from ${i >= kept ? 'its own reading' : 'the plan'}`));
  });

  test('a walk waiting for the next record goes on reading itself when a file turns out too large to hold', async () => {
    const gate = new PlanGate();
    const huge = fileRecords('huge', FILE_REFS + 1024);
    const all = [{ t: 'dir', p: 'd', mode: 0o755, mtime: '0' } as ManifestRecord, ...huge, ...fileRecords('after', 1)];
    const own = all.map((r) => ({ ...r }));
    const walk = collect(gate, own, { calls: 0 });
    // The file's records up to FILE_REFS are handed over; the walk takes them and waits for the next.
    for (const r of all.slice(0, 1 + FILE_REFS / 1024)) gate.put(r);
    assert.equal(await stateOf(walk), 'pending');
    // The next one is past FILE_REFS: the walk, waiting, must go on by itself, while the plan is still at that file.
    gate.put(all[1 + FILE_REFS / 1024]!);
    assert.equal(await stateOf(walk), 'resolved');
    const got = await walk;
    assert.deepEqual(got, all);
    assert.equal(got[1 + FILE_REFS / 1024], own[1 + FILE_REFS / 1024], 'from its own reading');
    assert.ok(gate.planning, 'the plan has not ended');
  });

  test('records holding more than AHEAD_REFS refs ask the plan to take its turn, which waits for the walk to take them', async () => {
    const gate = new PlanGate();
    let full = false;
    let n = 0;
    while (!full) for (const r of fileRecords(`f${n++}`, 1024)) full = gate.put(r) || full;
    assert.ok(n * 1024 > AHEAD_REFS);
    gate.pass(n);
    const turn = gate.turn();
    assert.equal(await stateOf(turn), 'pending', 'the walk has taken nothing');
    const got: ManifestRecord[] = [];
    const nothing = async function* (): AsyncGenerator<ManifestRecord> {};
    const records = gate.recordsFor(nothing, async () => undefined);
    const it = records[Symbol.asyncIterator]();
    for (let i = 0; i < n; i++) {
      got.push((await it.next()).value as ManifestRecord);
      assert.equal(gate.reached(i), undefined);
    }
    assert.equal(await stateOf(turn), 'resolved');
    assert.equal(got.length, n);
  });

  test("a plan that fails fails the walk's wait for the next record with its error", async () => {
    const gate = new PlanGate();
    const walk = collect(gate, [], { calls: 0 });
    const planError = new Error('plan: unsafe path');
    gate.ended(planError);
    await assert.rejects(walk, (e) => e === planError);
  });
});
