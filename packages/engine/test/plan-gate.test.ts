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
import { AHEAD, PlanGate } from '../src/ingest/plan-gate.js';

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
});
