import { describe, expect, it } from 'vitest';
import { KeyReadiness } from '../../src/engine/readiness';
import { ResultStream } from '../../src/engine/stream';
import type { PlanItem, TestRecord } from '../../src/model';

const item = (key: string, status: number | string = 1): PlanItem => ({ key, outcome: 'passed', status, comment: '', tests: [key] });
const rec = (testId: string, keys: string[], outcome: TestRecord['outcome'] = 'passed'): TestRecord => ({
  testId,
  title: testId,
  keys: { z: keys },
  outcome,
  attempts: 1,
});

describe('ResultStream', () => {
  it('sends a full batch at once, only after the target is prepared, one batch in flight', async () => {
    let prepare!: () => void;
    const prepared = new Promise<void>((r) => (prepare = r));
    const sent: string[][] = [];
    let finish!: () => void;
    const stream = new ResultStream({
      batching: { maxItems: 2, maxWaitMs: 60_000, spaced: false },
      prepared,
      publish: async (items) => {
        sent.push(items.map((i) => i.key));
        await new Promise<void>((r) => (finish = r));
        return { done: [...items], failed: [] };
      },
      onDone: () => undefined,
    });
    stream.enqueue([item('A'), item('B')]);
    await Promise.resolve();
    expect(sent).toEqual([]); // not before the target's own preparation
    prepare();
    await prepared;
    await Promise.resolve();
    expect(sent).toEqual([['A', 'B']]);
    stream.enqueue([item('C'), item('D')]);
    expect(sent).toHaveLength(1); // the first batch is still in flight
    finish();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      ['A', 'B'],
      ['C', 'D'],
    ]);
    finish();
    await stream.drain();
  });

  it('a later result for a key replaces the queued one; drain leaves the rest to the end and reports what was confirmed', async () => {
    const confirmed: string[] = [];
    const stream = new ResultStream({
      batching: { maxItems: 10, maxWaitMs: 60_000, spaced: true },
      publish: async (items) => ({
        done: items.filter((i) => i.key !== 'B'),
        failed: items.filter((i) => i.key === 'B').map((i) => ({ item: i, reason: 'x' })),
      }),
      onDone: (items) => confirmed.push(...items.map((i) => `${i.key}=${i.status}`)),
    });
    stream.enqueue([item('A', 1), item('B', 1)]);
    stream.enqueue([item('A', 2)]);
    await stream.drain(); // nothing was due yet (maxWaitMs 60 s): nothing sent, the end sends it
    expect(confirmed).toEqual([]);
    stream.enqueue([item('C')]);
    await stream.drain();
    expect(confirmed).toEqual([]); // stopped: nothing more goes out
  });
});

describe('KeyReadiness', () => {
  it('a key is ready once all its tests are final; a run-time mapping joins its key', () => {
    const r = new KeyReadiness('z');
    r.expect([
      { testId: 't1', keys: { z: ['K1'] } },
      { testId: 't2', keys: { z: ['K1', 'K2'] } },
    ]);
    expect(r.ready(r.add(rec('t1', ['K1']))).keys).toEqual(new Set());
    const second = r.ready(r.add(rec('t2', ['K1', 'K2'], 'failed')));
    expect(second.keys).toEqual(new Set(['K1', 'K2']));
    expect(second.records.map((x) => x.testId).sort()).toEqual(['t1', 't2']);
    // t3 maps K2 only at run time: K2 is planned again over t2 and t3.
    const late = r.ready(r.add(rec('t3', ['K2'])));
    expect(late.keys).toEqual(new Set(['K2']));
    expect(late.records.map((x) => x.testId).sort()).toEqual(['t2', 't3']);
  });
});
