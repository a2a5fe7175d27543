// The staging follows the undo store's reading ahead of a file chunk by chunk (ingest/prestored.ts).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { Prestored, type PrestoreReading } from '../src/ingest/prestored.js';

const seen = { ino: 7n, dev: 1n, size: 300n, mtimeNs: 5n, ctimeNs: 6n };

/** Whether `p` has settled after the event loop turned once. */
async function settledYet<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('a chunk is usable as soon as the reading passed it, not once the whole file is read', async () => {
  const pre = new Prestored('s');
  pre.expect('big.bin', 3);
  const first = pre.readUpTo('big.bin', 100);
  const last = pre.readUpTo('big.bin', 300);
  assert.equal(await settledYet(first), false, 'nothing is read yet');
  const r: PrestoreReading = { ...seen, ids: new Map(), at: 0 };
  pre.begin(3, r);
  r.ids.set(0, { len: 100, id: Buffer.alloc(32, 1) });
  r.at = 100;
  pre.progressed();
  assert.equal(await first, r);
  assert.equal((await first)?.ids.get(0)?.len, 100);
  assert.equal(await settledYet(last), false, 'the end of the file is not read yet');
  r.at = 300;
  pre.progressed();
  assert.equal(await last, r);
});

test('a reading that ends early, or a file not read ahead, gives nothing to copy', async () => {
  const pre = new Prestored('s');
  pre.expect('a', 1);
  pre.expect('b', 2);
  const r: PrestoreReading = { ...seen, ids: new Map(), at: 0 };
  pre.begin(1, r);
  r.at = 100;
  pre.progressed();
  const beyond = pre.readUpTo('a', 200);
  assert.equal(await settledYet(beyond), false);
  pre.settled('a');
  assert.equal(await beyond, null);
  assert.equal(await pre.readUpTo('a', 100), r, 'what was read stays usable');
  const never = pre.readUpTo('b', 1);
  pre.settleAll();
  assert.equal(await never, null);
  assert.equal(await pre.readUpTo('not-expected', 1), null);
  assert.equal(pre.any, true);
  assert.equal(new Prestored('t').any, false);
});
