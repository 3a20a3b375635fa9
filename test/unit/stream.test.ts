import { describe, expect, it } from 'vitest';
import { KeyCompleteness } from '../../src/engine/key-completeness';
import { ResultStream } from '../../src/engine/stream';
import type { PlanItem, TestRecord } from '../../src/shared/model';

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
      preparation: prepared,
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

  it('pick: results the target holds stay queued, go once it lets them, and are left to the end on drain', async () => {
    let roomy = false;
    const sent: string[][] = [];
    const seen: number[] = [];
    const stream = new ResultStream({
      batching: {
        maxItems: 10,
        maxWaitMs: 5,
        spaced: true,
        pick: (q, run) => (seen.push(run.endInMs), roomy ? q : q.filter((i) => i.comment)),
      },
      endInMs: () => 1234,
      publish: async (items) => {
        sent.push(items.map((i) => i.key));
        return { done: [...items], failed: [] };
      },
      onDone: () => undefined,
    });
    const tick = () => new Promise((r) => setTimeout(r, 5));
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 2000 && !what(); i++) await tick();
      expect(what()).toBe(true);
    };
    stream.enqueue([item('A'), { ...item('B', 2), comment: 'Error: boom' }]);
    await until(() => sent.length === 1);
    expect(sent).toEqual([['B']]); // what needs a call of its own goes; A waits
    for (let i = 0; i < 6; i++) await tick();
    expect(sent).toEqual([['B']]);
    roomy = true;
    await until(() => sent.length === 2);
    expect(sent[1]).toEqual(['A']);
    roomy = false;
    stream.enqueue([item('C')]);
    for (let i = 0; i < 6; i++) await tick();
    await stream.drain();
    expect(sent).toEqual([['B'], ['A']]); // C is the end's (it re-plans and sends what is not confirmed)
    expect(new Set(seen)).toEqual(new Set([1234])); // the run's estimated end reaches the target
  });

  it('pick: a full queue the target holds is looked at again one batching window later, not in a busy loop', async () => {
    let looks = 0;
    const stream = new ResultStream({
      batching: { maxItems: 2, maxWaitMs: 20, spaced: true, pick: () => (looks++, []) },
      publish: async () => ({ done: [], failed: [] }),
      onDone: () => undefined,
    });
    const started = performance.now();
    stream.enqueue([item('A'), item('B'), item('C')]);
    await new Promise((r) => setTimeout(r, 100));
    await stream.drain();
    const windows = (performance.now() - started) / 20;
    expect(looks).toBeGreaterThanOrEqual(1);
    // At most one look per 20 ms window (plus the first), however long a loaded machine made the 100 ms.
    expect(looks).toBeLessThanOrEqual(Math.floor(windows) + 2);
  });

  it('once the tests are over, what is queued goes at once and whole, beside the batch in flight: no window, no spacing, no pick', async () => {
    const sent: string[][] = [];
    const finish: Array<() => void> = [];
    const stream = new ResultStream({
      batching: { maxItems: 2, maxWaitMs: 3_600_000, spaced: true, pick: () => [] },
      publish: async (items) => {
        sent.push(items.map((i) => `${i.key}=${i.status}`));
        await new Promise<void>((r) => finish.push(r));
        return { done: [...items], failed: [] };
      },
      onDone: () => undefined,
    });
    stream.enqueue([item('A'), item('B'), item('C'), item('D'), item('E')]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]); // held by the target, the window an hour long
    stream.sendAllNow();
    // Batches of at most maxItems, all at once: none waits for the one before it.
    expect(sent).toEqual([['A=1', 'B=1'], ['C=1', 'D=1'], ['E=1']]);
    // A correction for a key in flight waits for that batch; one for another key goes at once.
    stream.enqueue([item('A', 2), item('F')]);
    expect(sent).toEqual([['A=1', 'B=1'], ['C=1', 'D=1'], ['E=1'], ['F=1']]);
    expect([...stream.inFlight().keys()].sort()).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    finish[0]();
    for (let i = 0; i < 20 && sent.length < 5; i++) await new Promise((r) => setImmediate(r));
    expect(sent[4]).toEqual(['A=2']);
    expect(finish).toHaveLength(5);
    for (const f of finish.slice(1)) f();
    await stream.drain();
    expect(stream.inFlight().size).toBe(0);
  });
});

describe('KeyCompleteness', () => {
  it('a key is complete once all its tests are final; a run-time mapping joins its key', () => {
    const r = new KeyCompleteness('z');
    r.expect([
      { testId: 't1', keys: { z: ['K1'] } },
      { testId: 't2', keys: { z: ['K1', 'K2'] } },
    ]);
    expect(r.complete(r.add(rec('t1', ['K1']))).keys).toEqual(new Set());
    const second = r.complete(r.add(rec('t2', ['K1', 'K2'], 'failed')));
    expect(second.keys).toEqual(new Set(['K1', 'K2']));
    expect(second.records.map((x) => x.testId).sort()).toEqual(['t1', 't2']);
    // t3 maps K2 only at run time: K2 is planned again over t2 and t3.
    const late = r.complete(r.add(rec('t3', ['K2'])));
    expect(late.keys).toEqual(new Set(['K2']));
    expect(late.records.map((x) => x.testId).sort()).toEqual(['t2', 't3']);
  });
});
