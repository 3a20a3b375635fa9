import { describe, expect, it } from 'vitest';
import { dryRun } from '../../src/engine/dry-run';
import { HttpError } from '../../src/http/errors';
import { TargetSession } from '../../src/engine/session';
import type { PlaceContainer, StatusTable, Target, TargetDefinition } from '../../src/kit/target';
import { keysOf, unplaced, type PlanItem, type TestRecord } from '../../src/shared/model';

/**
 * A target whose split mode gives each project a container of its own (Xray's Test Execution per project): the
 * summary names each project's, and no container of the run (begin's has an empty id and a name none has).
 */
const rec = (n: number, place: string): TestRecord => ({
  testId: `t${n}`,
  title: `${place} › t${n}`,
  keys: { x: [`K${n}`] },
  outcome: 'passed',
  attempts: 1,
  place,
});

function target(perPlace: boolean): Target {
  const opened: Record<string, PlaceContainer> = {};
  return {
    batching: { maxItems: 10, maxWaitMs: 60_000, spaced: false },
    resolveStatuses: async (): Promise<StatusTable> => ({
      byOutcome: { passed: 'P', failed: 'F', flaky: 'P', skipped: 'S', timedOut: 'F', interrupted: 'F' } as StatusTable['byOutcome'],
      name: String,
      warnings: [],
    }),
    begin: async () => ({ id: '', name: 'Split run', reused: false }),
    plan: (records, statuses): PlanItem[] =>
      records.flatMap((r) =>
        keysOf(r, 'x').map((key) => ({ key, outcome: r.outcome, status: statuses.byOutcome[r.outcome], comment: '', tests: [r.title] })),
      ),
    publish: async (items) => {
      // Each project's container is made by its first publish (as Xray's are when a project was not known at begin).
      for (const item of items) {
        const place = unplaced(item.key).place!;
        const id = place === 'alpha' ? 'XT-305' : 'XT-306';
        opened[place] ??= { id, name: `Split run ${place}`, reused: false, link: `https://jira/browse/${id}` };
      }
      return { done: [...items], failed: [] };
    },
    placeContainers: perPlace ? () => ({ ...opened }) : undefined,
    verify: async () => ({ ok: true, details: [] }),
    check: async () => [],
  };
}

const definition = { id: 'x', label: 'X', containerKind: 'Test Execution' } as TargetDefinition;
const log = { info: () => undefined, error: () => undefined };

describe('TargetSession: a container per place', () => {
  it("the summary names each place's container and link, not begin's; cut short, each place's confirmed results are counted", async () => {
    const session = new TargetSession(definition, target(true), { log, maxAttachmentBytes: 1e6, replay: false });
    const records = [rec(1, 'alpha'), rec(2, 'alpha'), rec(3, 'beta')];
    session.start(records);
    const summary = await session.finish(records, 0);
    expect(summary.container).toBeUndefined();
    expect(summary.byPlace).toEqual({
      alpha: {
        published: 2,
        countsByStatus: { P: 2 },
        container: { kind: 'Test Execution', id: 'XT-305', name: 'Split run alpha', reused: false },
        link: 'https://jira/browse/XT-305',
      },
      beta: {
        published: 1,
        countsByStatus: { P: 1 },
        container: { kind: 'Test Execution', id: 'XT-306', name: 'Split run beta', reused: false },
        link: 'https://jira/browse/XT-306',
      },
    });
    const cut = session.cutShort(records, 0, 'publishTimeout (1 s) reached');
    expect(cut.container).toBeUndefined();
    expect(cut.byPlace?.alpha).toMatchObject({ published: 2, container: { id: 'XT-305' } });
    expect(cut.byPlace?.beta).toMatchObject({ published: 1, container: { id: 'XT-306' } });
  });

  it('a target whose places are inside its container keeps that container in the summary', async () => {
    const session = new TargetSession(definition, target(false), { log, maxAttachmentBytes: 1e6, replay: false });
    const records = [rec(1, 'alpha'), rec(3, 'beta')];
    session.start(records);
    const summary = await session.finish(records, 0);
    expect(summary.container).toEqual({ kind: 'Test Execution', id: '', name: 'Split run', reused: false });
    expect(summary.byPlace?.alpha).toEqual({ published: 1, countsByStatus: { P: 1 } });
  });
});

describe('a service down when the run began, back at its end', () => {
  it("the end's second try at begin is told the run's keys, places and all (a container per place needs them)", async () => {
    const t = target(true);
    const seen: string[][] = [];
    let tries = 0;
    t.begin = async ({ knownKeys }) => {
      seen.push([...knownKeys]);
      // The first try meets the service down (a 503: transient): the end tries once more.
      if (tries++ === 0) throw new HttpError('X', 'GET', '/statuses', 503, {}, '', 'Service Unavailable');
      return { id: '', name: 'Split run', reused: false };
    };
    const session = new TargetSession(definition, t, { log, maxAttachmentBytes: 1e6, replay: false });
    const records = [rec(1, 'alpha'), rec(3, 'beta')];
    session.start(records);
    const summary = await session.finish(records, 0);
    expect(seen).toHaveLength(2);
    expect(seen[1].map((k) => unplaced(k).place).sort()).toEqual(['alpha', 'beta']);
    expect(summary.errors).toEqual([]);
    expect(summary.published).toBe(2);
  });
});

describe('dry run: a container per place', () => {
  const printer = { info: () => undefined, error: () => undefined, debug: () => undefined };
  const where = { settings: {}, containerName: 'Split run' };
  const perPlace = { ...definition, containerPerPlace: { nameSetting: 'X_NAME' } } as TargetDefinition;
  const session = (d: TargetDefinition) => ({ id: 'x', definition: d, target: target(true) }) as unknown as TargetSession;

  it("names no container of the run in split mode (none has the configured name); merge mode's as before", async () => {
    const split = await dryRun(session(perPlace), where, [rec(1, 'alpha'), rec(2, 'beta')], 0, printer);
    expect(split.container).toBeUndefined();
    const merged = [rec(1, 'alpha')].map(({ place: _, ...r }) => r);
    expect((await dryRun(session(perPlace), where, merged, 0, printer)).container).toEqual({
      kind: 'Test Execution',
      name: 'Split run',
    });
    // A target whose places are inside the run's container names it in split mode too.
    expect((await dryRun(session(definition), where, [rec(1, 'alpha')], 0, printer)).container).toMatchObject({ name: 'Split run' });
  });
});
