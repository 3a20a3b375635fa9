/**
 * The engine, not the service, counts a target's calls and closes its lanes: the target opens its lanes
 * with openLane, the session reads their calls for the summary, and `close` waits for the preparation
 * begun by `begin` before it closes them (a lane pacing with other processes leaves them then).
 */
import { describe, expect, it } from 'vitest';
import { TargetSession } from '../../src/engine/session';
import { LaneSet, openLane } from '../../src/kit/lanes';
import type { PacingPeers } from '../../src/kit/pacing-peers';
import type { StatusTable, Target, TargetDefinition } from '../../src/kit/target';
import type { TestRecord } from '../../src/shared/model';

const definition = { id: 'z', label: 'Z', containerKind: 'cycle' } as TargetDefinition;
const record: TestRecord = { testId: 't1', title: 't1', keys: { z: ['K1'] }, outcome: 'passed', attempts: 1 };

function laneTarget(lanes: LaneSet) {
  const log: string[] = [];
  let prepare!: () => void;
  const preparation = new Promise<void>((r) => (prepare = r)).then(() => void log.push('prepared'));
  const peers: PacingPeers = {
    others: () => ({ entries: [] }) as never,
    publish: () => undefined,
    close: () => void log.push('lane closed'),
  };
  const lane = openLane({ lanes }, { name: 'Z', concurrency: 1, rateLimit: null, peers });
  const call = () => lane.send('op', async () => 'ok');
  const target: Target = {
    batching: { maxItems: 10, maxWaitMs: 60_000, spaced: false },
    resolveStatuses: async (): Promise<StatusTable> => ({
      byOutcome: { passed: 'P', failed: 'F', flaky: 'P', skipped: 'S', timedOut: 'F', interrupted: 'F' } as StatusTable['byOutcome'],
      name: String,
      warnings: [],
    }),
    begin: async () => (await call(), { id: '1', name: 'c', reused: false, preparation }),
    plan: (records, statuses) =>
      records.map((r) => ({ key: 'K1', outcome: r.outcome, status: statuses.byOutcome[r.outcome], comment: '', tests: [r.title] })),
    publish: async (items) => (await call(), await call(), { done: [...items], failed: [] }),
    verify: async () => (await call(), { ok: true, details: [] }),
    check: async () => [],
  };
  return { target, log, prepare };
}

describe('TargetSession: the lanes of its target', () => {
  it("counts the calls of the target's lanes in the summary", async () => {
    const lanes = new LaneSet();
    const { target, prepare } = laneTarget(lanes);
    prepare();
    const session = new TargetSession(definition, target, {
      lanes,
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    const summary = await session.finish([record], 0);
    expect(summary.errors).toEqual([]);
    // begin, publish (two), read-back
    expect(summary.calls).toBe(4);
  });

  it('closes the lanes once the preparation begun by begin has settled, not before', async () => {
    const lanes = new LaneSet();
    const { target, log, prepare } = laneTarget(lanes);
    const session = new TargetSession(definition, target, {
      lanes,
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    session.start([record]);
    await new Promise((r) => setImmediate(r));
    const closed = session.close();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual([]);
    prepare();
    await closed;
    expect(log).toEqual(['prepared', 'lane closed']);
  });
});
