import { describe, expect, it } from 'vitest';
import { RequestLane, type CallPriority } from '../../src/kit/lane';
import { ZephyrBudget, zephyrBatching, zephyrPriority } from '../../src/targets/zephyr/batching';
import { roomyPolling } from '../../src/targets/zephyr/definition';
import type { PlanItem } from '../../src/shared/model';

/** A paced lane on a clock that moves only when the test says; `hold` queues calls of a worth behind a full window. */
function pacedLane(count = 28) {
  let now = 1_000_000;
  const lane = new RequestLane({
    name: 'Zephyr',
    concurrency: 4,
    rateLimit: { count, windowMs: 60_000 },
    clock: {
      now: () => now,
      // Pacing waits never end by themselves here: what is queued stays queued.
      sleep: () => new Promise<void>(() => undefined),
    },
  });
  const settle = async () => {
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    lane,
    async calls(n: number) {
      await Promise.all(Array.from({ length: n }, () => lane.send('x', async () => undefined)));
    },
    async hold(n: number, priority: CallPriority) {
      for (let i = 0; i < n; i++) void lane.send('held', async () => undefined, priority);
      await settle();
    },
    later: (ms: number) => (now += ms),
  };
}
const jobs = { paced: { firstPollMs: 3_000 }, roomy: { firstPollMs: 200 } };
const pass = (key: string): PlanItem => ({ key, outcome: 'passed', status: 1, comment: '', tests: [key] });
const fail = (key: string): PlanItem => ({ key, outcome: 'failed', status: 2, comment: 'Error: boom', tests: [key] });

describe('Zephyr calls by worth', () => {
  it('files and the look before one are files; comments and step results text; everything else serves statuses', () => {
    expect(['attachment/create', 'attachment/search'].map(zephyrPriority)).toEqual(['file', 'file']);
    expect(['execution/update', 'stepresult/search', 'stepresult/update'].map(zephyrPriority)).toEqual(['text', 'text', 'text']);
    expect(['executions/bulk-status', 'jobprogress', 'executions/add', 'executions/search', 'cycle/get'].map(zephyrPriority)).toEqual(
      Array(5).fill('status'),
    );
  });
});

describe('ZephyrBudget: comments with their status, or after it', () => {
  it('a few comments go as calls of their own (status and text in one); more than a quarter window of text waiting: statuses first', async () => {
    const z = pacedLane();
    const budget = new ZephyrBudget(z.lane, jobs);
    expect(budget.statusFirst(7)).toBe(false); // 28 / 4 = 7 go within about 15 s
    expect(budget.statusFirst(8)).toBe(true);
    await z.calls(28);
    await z.hold(5, 'text');
    await z.hold(20, 'file'); // files wait behind any comment: they do not count
    expect(budget.statusFirst(2)).toBe(false);
    expect(budget.statusFirst(3)).toBe(true);
    expect(budget.ownCallsNow()).toBe(2);
    expect(new ZephyrBudget(new RequestLane({ name: 'Zephyr', concurrency: 4, rateLimit: null }), jobs).statusFirst(500)).toBe(false);
  });

  it('a job is looked at quickly (200 ms, then every 500 ms) while the window has its looks free, else as the pacing allows', async () => {
    expect(roomyPolling()).toEqual({ firstPollMs: 200, maxPollMs: 500 });
    expect(roomyPolling({ firstPollMs: 7, maxPollMs: 67, pacedFirstPollMs: 100 })).toEqual({ firstPollMs: 7, maxPollMs: 17.5 });
    const z = pacedLane();
    const budget = new ZephyrBudget(z.lane, jobs);
    expect(budget.polling()).toBe(jobs.roomy);
    await z.calls(21);
    expect(budget.polling()).toBe(jobs.roomy); // 7 free: 6 looks and a spare
    await z.calls(1);
    expect(budget.polling()).toBe(jobs.paced);
    z.later(60_001);
    expect(budget.polling()).toBe(jobs.roomy);
  });

  it('the stream holds comments back while the lane already has a quarter window of text waiting (a later bulk sets their statuses)', async () => {
    const z = pacedLane();
    const budget = new ZephyrBudget(z.lane, jobs);
    const batching = zephyrBatching(z.lane, budget, (item) => !!item.comment);
    const queued = [pass('P-1'), fail('P-2'), fail('P-3'), pass('P-4'), fail('P-5')];
    const pick = () => batching.pick!(queued, { endInMs: Infinity }).map((i) => i.key);
    expect(pick()).toEqual(['P-1', 'P-2', 'P-3', 'P-4', 'P-5']);
    await z.calls(28);
    await z.hold(5, 'text');
    expect(pick()).toEqual(['P-2', 'P-3']); // no room for a bulk; two comments keep the text queue at 7
    await z.hold(2, 'text');
    expect(pick()).toEqual([]);
  });
});
