import { describe, expect, it } from 'vitest';
import { TargetSession } from '../../src/engine/session';
import type { PublishResult, StatusTable, Target, TargetDefinition } from '../../src/kit/target';
import type { PlanItem, TestRecord } from '../../src/shared/model';

const rec = (n: number, outcome: TestRecord['outcome'] = 'passed'): TestRecord => ({
  testId: `t${n}`,
  title: `t${n}`,
  keys: { z: [`K${n}`] },
  outcome,
  attempts: 1,
});

/** A target whose publishes wait until the test lets each one go; it answers every item done, except `failOnce`. */
function gatedTarget(failOnce: Set<string>) {
  const calls: Array<{ keys: string[]; release: () => void; settled: boolean }> = [];
  const active = new Set<string>();
  const overlaps: string[] = [];
  const target: Target = {
    batching: { maxItems: 2, maxWaitMs: 60_000, spaced: false },
    resolveStatuses: async (): Promise<StatusTable> => ({
      byOutcome: { passed: 'P', failed: 'F', flaky: 'P', skipped: 'S', timedOut: 'F', interrupted: 'F' } as StatusTable['byOutcome'],
      name: String,
      warnings: [],
    }),
    begin: async () => ({ id: '1', name: 'c', reused: false }),
    plan: (records, statuses): PlanItem[] =>
      records.map((r) => ({ key: r.keys.z[0], outcome: r.outcome, status: statuses.byOutcome[r.outcome], comment: '', tests: [r.title] })),
    publish: async (items): Promise<PublishResult> => {
      const keys = items.map((i) => i.key);
      for (const k of keys) if (active.has(k)) overlaps.push(k);
      keys.forEach((k) => active.add(k));
      const call: { keys: string[]; release: () => void; settled: boolean } = { keys, release: () => undefined, settled: false };
      calls.push(call);
      await new Promise<void>((r) => (call.release = r));
      keys.forEach((k) => active.delete(k));
      call.settled = true;
      const failed = items.filter((i) => failOnce.delete(i.key));
      return { done: items.filter((i) => !failed.includes(i)), failed: failed.map((item) => ({ item, reason: 'try again' })) };
    },
    verify: async () => ({ ok: true, details: [] }),
    check: async () => [],
  };
  return { target, calls, overlaps };
}

const definition = { id: 'z', label: 'Z', containerKind: 'cycle' } as TargetDefinition;
const tick = () => new Promise((r) => setImmediate(r));
async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !what(); i++) await tick();
  expect(what()).toBe(true);
}

describe('TargetSession: the end of the run', () => {
  it('sends the other keys while the stream batch is in flight, then what that batch did not get confirmed; a key is never in two sends at once', async () => {
    const { target, calls, overlaps } = gatedTarget(new Set(['K2']));
    const session = new TargetSession(definition, target, {
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    const records = [1, 2, 3, 4].map((n) => rec(n));
    session.start(records);
    await tick();
    session.offer([records[0]]);
    session.offer([records[1]]);
    await until(() => calls.length === 1);
    expect(calls[0].keys).toEqual(['K1', 'K2']); // the stream's batch, still in flight

    // K1 is corrected at the end (a late annotation): it must wait for the batch in flight, not race it.
    const final = [rec(1, 'failed'), ...records.slice(1)];
    const ending = session.finish(final, 0);
    await until(() => calls.length === 2);
    expect(calls[1].keys).toEqual(['K3', 'K4']); // not held behind the batch in flight
    expect(calls[0].settled).toBe(false);
    calls[1].release();
    await tick();
    expect(calls).toHaveLength(2);
    calls[0].release(); // K1 (as passed) confirmed, K2 failed
    await until(() => calls.length === 3);
    expect(calls[2].keys.sort()).toEqual(['K1', 'K2']); // K1 corrected, K2 again
    calls[2].release();
    const summary = await ending;
    expect(overlaps).toEqual([]);
    expect(summary.published).toBe(4);
    expect(summary.unsent).toBe(0);
    expect(summary.countsByStatus).toEqual({ F: 1, P: 3 });
  });

  it('the link is taken after the results are sent: a target may learn what it names only by publishing', async () => {
    // Zephyr names the project key of an execution it knows; a short run can end before the background
    // listing, so the key is known only once the end has sent the results.
    const { target, calls } = gatedTarget(new Set());
    let learned: string | undefined;
    const publish = target.publish.bind(target);
    target.publish = (items, ...rest) => {
      learned = `https://tms.example/view?key=${items[0].key}`;
      return publish(items, ...rest);
    };
    target.link = () => learned;
    const session = new TargetSession(definition, target, {
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    const records = [rec(1)];
    session.start(records);
    const ending = session.finish(records, 0);
    await until(() => calls.length === 1);
    calls[0].release();
    const summary = await ending;
    expect(summary.published).toBe(1);
    expect(summary.link).toBe('https://tms.example/view?key=K1');
  });
});
