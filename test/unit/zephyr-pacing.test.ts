import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { jobPolling, zephyr, zephyrPacing } from '../../src/targets/zephyr/definition';
import { ZephyrTarget } from '../../src/targets/zephyr/publisher';
import type { ZephyrClient } from '../../src/targets/zephyr/client';
import { RequestLane } from '../../src/kit/lane';
import type { PlanItem } from '../../src/shared/model';
import type { ZephyrConfig } from '../../src/targets/zephyr/config';

const env = { ZEPHYR_ACCESS_KEY: 'a', ZEPHYR_SECRET_KEY: 's', ZEPHYR_ACCOUNT_ID: 'u', ZEPHYR_PROJECT_ID: '1', ZEPHYR_VERSION_ID: '-1' };
const config = (extra: Record<string, string> = {}) => {
  const c = resolveConfig({ definitions: [zephyr], options: {}, env: { ...env, ...extra } });
  expect(c.problems).toEqual([]);
  return c.targets[0].config as ZephyrConfig;
};

describe('Zephyr pacing defaults (about 30 calls a minute per user, shared by every process on the key)', () => {
  it('one process paces at 28 a minute; N shards share the 28; a setting wins; off leaves it to the 429 waits', () => {
    expect(zephyrPacing(config(), 1)).toEqual({ count: 28, windowMs: 60_000 });
    expect(zephyrPacing(config(), 4)).toEqual({ count: 7, windowMs: 60_000 });
    expect(zephyrPacing(config(), 40)).toEqual({ count: 1, windowMs: 60_000 });
    expect(zephyrPacing(config({ ZEPHYR_RATE_LIMIT: '10/30' }), 4)).toEqual({ count: 10, windowMs: 30_000 });
    expect(zephyrPacing(config({ ZEPHYR_RATE_LIMIT: 'off' }), 1)).toBeNull();
  });
});

describe('Zephyr job polling', () => {
  it('paced: the first look after 3 s (a job usually takes a few seconds), then no more often than the share allows one call', () => {
    expect(jobPolling(null)).toEqual({ firstPollMs: 200, maxPollMs: 2_000 });
    expect(jobPolling({ count: 28, windowMs: 60_000 })).toEqual({ firstPollMs: 3_000, maxPollMs: 3_000 });
    expect(jobPolling({ count: 7, windowMs: 60_000 })).toEqual({ firstPollMs: 3_000, maxPollMs: 60_000 / 7 });
    // Never a cap below the first look (the first pause would be cut to the cap, before the job is done).
    expect(jobPolling({ count: 28, windowMs: 2_000 }, { firstPollMs: 7, maxPollMs: 67, pacedFirstPollMs: 100 })).toEqual({
      firstPollMs: 100,
      maxPollMs: 100,
    });
  });
});

describe('Zephyr stream batches under pacing', () => {
  const pass = (key: string): PlanItem => ({ key, outcome: 'passed', status: 1, comment: '', tests: [key] });
  const fail = (key: string): PlanItem => ({ key, outcome: 'failed', status: 2, comment: 'Error: boom', tests: [key] });
  const queued = [pass('P-1'), fail('P-2'), pass('P-3')];
  const target = (rateLimit: { count: number; windowMs: number } | null) => {
    let now = 1_000_000;
    const lane = new RequestLane({
      name: 'Zephyr',
      concurrency: 4,
      rateLimit,
      clock: { now: () => now, sleep: async (ms) => void (now += ms) },
    });
    const t = new ZephyrTarget(config(), {} as ZephyrClient, lane);
    return { t, calls: (n: number) => Promise.all(Array.from({ length: n }, () => lane.send('x', async () => undefined))) };
  };
  const keys = (items: readonly PlanItem[]) => items.map((i) => i.key);
  const pick = (t: ZephyrTarget, endInMs: number) => keys(t.batching.pick!(queued, { endInMs }));
  const all = ['P-1', 'P-2', 'P-3'];

  it('mid-run: statuses that can share a later bulk go while the window has room for a bulk, its poll and a spare slot; comments always', async () => {
    const shard = target({ count: 7, windowMs: 60_000 });
    await shard.calls(4);
    expect(pick(shard.t, Infinity)).toEqual(all); // 3 free
    await shard.calls(1);
    expect(pick(shard.t, Infinity)).toEqual(['P-2']); // 2 free: only what needs its own call
  });

  it('within two windows of the estimated end: room for the pair and the end’s own calls; in the last window: none', async () => {
    const shard = target({ count: 7, windowMs: 60_000 });
    await shard.calls(1);
    expect(pick(shard.t, 100_000)).toEqual(all); // 6 free
    await shard.calls(1);
    expect(pick(shard.t, 100_000)).toEqual(['P-2']); // 5 free
    expect(pick(target({ count: 7, windowMs: 60_000 }).t, 59_000)).toEqual(['P-2']); // empty window, but the end is near
  });

  it('no pacing: everything goes, and batches are spaced by how long the last took; under pacing they are not', () => {
    const free = target(null).t;
    expect(pick(free, 1_000)).toEqual(all);
    expect(free.batching.spaced).toBe(true);
    expect(target({ count: 28, windowMs: 60_000 }).t.batching.spaced).toBe(false);
  });
});
