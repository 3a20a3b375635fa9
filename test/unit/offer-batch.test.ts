/**
 * The engine journals each result as its test ends (kept if the process dies right after) and offers the
 * results to the targets in batches: what ends within one window is planned once, and the end of the run
 * offers what the last window still holds. An in-memory target records what it is asked.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { OfferBatch } from '../../src/engine/offer-batch';
import { PublishRun } from '../../src/engine/run';
import type { Target, TargetDefinition } from '../../src/kit/target';
import { aggregate } from '../../src/shared/mapping';
import { keysOf, type PlanItem, type TestRecord } from '../../src/shared/model';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-batch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What the in-memory service was asked: each plan's records, each publish's keys. */
const asked = { plans: [] as string[][], published: [] as string[], begun: 0 };

const memory: TargetDefinition<{ name: string }> = {
  id: 'memory',
  label: 'Memory',
  containerKind: 'run',
  optionsKey: 'memory',
  envPrefix: 'MEMORY',
  enableHint: 'MEMORY_ON',
  command: 'memory-run',
  optionKeys: [],
  readConfig: ({ env, runName }) => (env.MEMORY_ON ? { name: runName } : undefined),
  secrets: () => [],
  keysOf: (test) => test.tags.map((t) => t.replace(/^@/, '')),
  journalMeta: (c) => ({ settings: {}, containerName: c.name }),
  create(c): Target {
    return {
      batching: { maxItems: 100, maxWaitMs: 5, spaced: false },
      resolveStatuses: async () => ({
        byOutcome: { passed: 1, flaky: 1, failed: 2, timedOut: 2, skipped: 3, interrupted: 4 },
        warnings: [],
        name: String,
      }),
      begin: async () => {
        asked.begun++;
        return { id: '1', name: c.name, reused: false };
      },
      plan(records: readonly TestRecord[]): PlanItem[] {
        asked.plans.push(records.map((r) => r.testId));
        return aggregate(records, (r) => keysOf(r, 'memory'), { statusFor: () => 1, rank: () => 1, comment: () => '' });
      },
      async publish(items) {
        asked.published.push(...items.map((i) => i.key));
        return { done: [...items], failed: [] };
      },
      verify: async () => ({ ok: true, details: [] }),
      check: async () => [],
    };
  },
};

const record = (n: number): TestRecord => ({
  testId: `t${n}`,
  title: `t${n}`,
  keys: { memory: [`K-${n}`] },
  outcome: 'passed',
  attempts: 1,
});

function run(offerEveryMs: number, outboxDir: string): PublishRun {
  const config = resolveConfig({ definitions: [memory], options: { outboxDir }, env: { MEMORY_ON: '1' }, rootDir: dir });
  const quiet = { info: () => undefined, error: () => undefined, debug: () => undefined };
  const r = new PublishRun(config, { printer: quiet, offerEveryMs });
  r.start([1, 2, 3, 4].map((n) => ({ testId: `t${n}`, keys: { memory: [`K-${n}`] } })));
  return r;
}

const journaledTests = (outboxDir: string) =>
  fs
    .readdirSync(outboxDir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => fs.readFileSync(path.join(outboxDir, f), 'utf8').trim().split('\n'))
    .map((l) => JSON.parse(l) as { t: string; rec?: TestRecord })
    .filter((l) => l.t === 'test')
    .map((l) => l.rec!.testId);

it('journals a result before record() returns; the results of one window are planned together, once', async () => {
  asked.plans.length = asked.published.length = asked.begun = 0;
  const outbox = path.join(dir, 'window');
  const r = run(20, outbox);
  // The run is under way (its container made, its stream ready) before the tests end.
  await vi.waitFor(() => expect(asked.begun).toBe(1));
  await new Promise((resolve) => setImmediate(resolve));
  for (const n of [1, 2, 3]) {
    r.record(record(n));
    // In the journal already, before any target has seen it.
    expect(journaledTests(outbox)).toContain(`t${n}`);
  }
  expect(asked.plans.flat()).not.toContain('t1');
  await vi.waitFor(() => expect(asked.published).toEqual(['K-1', 'K-2', 'K-3']), { timeout: 10_000 });
  // One plan for the three (a plan before them, if any, was for the keys known at the start: no records).
  expect(asked.plans.filter((p) => p.length)).toEqual([['t1', 't2', 't3']]);
  const summary = await r.finish([1, 2, 3, 4].map(record), 0);
  expect(summary.targets.memory.published).toBe(4);
});

it('the end of the run offers what the last window still holds: nothing waits for the timer', async () => {
  asked.plans.length = asked.published.length = 0;
  const outbox = path.join(dir, 'end');
  // A window longer than the test: only finish() can offer these.
  const r = run(3_600_000, outbox);
  r.record(record(1));
  r.record(record(2));
  const summary = await r.finish([record(1), record(2)], 2);
  expect(summary.targets.memory.published).toBe(2);
  expect([...asked.published].sort()).toEqual(['K-1', 'K-2']);
});

it('OfferBatch: a window, then one offer of what it gathered; flush offers at once and clears the window', () => {
  vi.useFakeTimers();
  try {
    const offers: string[][] = [];
    const batch = new OfferBatch((rs) => offers.push(rs.map((r) => r.testId)), 25);
    batch.add(record(1));
    batch.add(record(2));
    vi.advanceTimersByTime(24);
    expect(offers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(offers).toEqual([['t1', 't2']]);
    batch.add(record(3));
    batch.flush();
    expect(offers).toEqual([['t1', 't2'], ['t3']]);
    vi.advanceTimersByTime(100);
    batch.flush();
    expect(offers).toHaveLength(2);
  } finally {
    vi.useRealTimers();
  }
});
