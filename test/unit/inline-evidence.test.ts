import { describe, expect, it } from 'vitest';
import { TargetSession } from '../../src/engine/session';
import type { Outbox } from '../../src/engine/outbox';
import type { PublishResult, StatusTable, Target, TargetDefinition, UploadFile } from '../../src/kit/target';
import type { PlanItem, TestRecord } from '../../src/shared/model';

/**
 * The engine's side of Target.inlineEvidence: the files of the items a status call carries are read (budgets per
 * file and per call, secrets cut from text), handed to `publish`, journaled as attached once the target says it
 * carried them, counted as uploaded, and never sent by `attach`; everything else — and everything on a replay or
 * in a shared CI build — goes by `attach`. A file offered to a call that did not confirm it is never offered again.
 */
const SECRET = 's3cr3t-token';
const file = (name: string, text: string) => ({ name, contentType: 'text/plain', body: Buffer.from(text) });
const rec = (n: number, files: ReturnType<typeof file>[], outcome: TestRecord['outcome'] = 'failed'): TestRecord => ({
  testId: `t${n}`,
  title: `t${n}`,
  keys: { z: [`K${n}`] },
  outcome,
  attempts: 1,
  attachments: files,
});

/** K1: two small files (50 bytes once redacted) and one over the per-file budget; K2: a file past the per-call budget. */
const records = () => [
  rec(1, [file('a', `20 bytes ${SECRET}!`), file('b', 'x'.repeat(30)), file('big', 'y'.repeat(70))]),
  rec(2, [file('c', 'z'.repeat(60))]),
];

function fakeTarget(o: { carry: boolean; failFirst?: boolean }) {
  const publishes: Array<{ keys: string[]; files: Record<string, string[]> }> = [];
  const attached: string[] = [];
  let failed = !o.failFirst;
  const target: Target = {
    batching: { maxItems: 10, maxWaitMs: 60_000, spaced: false },
    inlineEvidence: { maxBytesPerCall: 100, maxBytesPerFile: 60 },
    resolveStatuses: async (): Promise<StatusTable> => ({
      byOutcome: { passed: 'P', failed: 'F', flaky: 'P', skipped: 'S', timedOut: 'F', interrupted: 'F' } as StatusTable['byOutcome'],
      name: String,
      warnings: [],
    }),
    begin: async () => ({ id: '1', name: 'c', reused: false }),
    plan: (recs, statuses): PlanItem[] =>
      recs.map((r) => ({
        key: r.keys.z[0],
        outcome: r.outcome,
        status: statuses.byOutcome[r.outcome],
        comment: '',
        tests: [r.title],
        attachments: r.attachments,
      })),
    publish: async (items, _onDone, files?: ReadonlyMap<PlanItem, readonly UploadFile[]>): Promise<PublishResult> => {
      publishes.push({
        keys: items.map((i) => i.key),
        files: Object.fromEntries([...(files ?? [])].map(([item, list]) => [item.key, list.map((f) => `${f.fileName}:${f.bytes}`)])),
      });
      if (!failed) {
        failed = true;
        return { done: [], failed: items.map((item) => ({ item, reason: 'down' })) };
      }
      const carried = o.carry ? [...(files ?? [])].flatMap(([item, list]) => list.map((f) => ({ item, fileName: f.fileName }))) : [];
      return { done: [...items], failed: [], carried };
    },
    attach: async (item, f) => {
      attached.push(`${item.key}/${f.fileName}`);
      return 'uploaded';
    },
    verify: async () => ({ ok: true, details: [] }),
    check: async () => [],
  };
  return { target, publishes, attached };
}

function journal() {
  const attached: string[] = [];
  const outbox = {
    done: () => undefined,
    refused: () => undefined,
    attached: (_t: string, key: string, f: string) => attached.push(`${key}/${f}`),
    container: () => undefined,
    complete: () => undefined,
    unresolved: () => undefined,
  } as unknown as Outbox;
  return { outbox, attached };
}

const tick = () => new Promise((r) => setImmediate(r));

/** `stream`: the results go while the tests run (one call), then the end sends what that call did not confirm. */
async function run(target: Target, options: { replay?: boolean; sharedBuild?: boolean; stream?: () => boolean } = {}) {
  const { outbox, attached } = journal();
  const session = new TargetSession({ id: 'z', label: 'Z', containerKind: 'cycle' } as TargetDefinition, target, {
    log: { info: () => undefined, error: () => undefined },
    maxAttachmentBytes: 1e6,
    replay: options.replay ?? false,
    sharedBuild: options.sharedBuild,
    secrets: [SECRET],
    outbox,
  });
  const recs = records();
  session.start(recs);
  if (options.stream) {
    for (let i = 0; i < 20; i++) await tick();
    session.offer(recs);
    session.testsOver();
    for (let i = 0; i < 1000 && !options.stream(); i++) await tick();
    expect(options.stream()).toBe(true);
  }
  const summary = await session.finish(recs, 0);
  return { summary, journaled: attached.sort() };
}

describe('inline evidence (Target.inlineEvidence)', () => {
  it('small files go in the status call within the budgets (text redacted), journaled and counted; the rest by attach', async () => {
    const { target, publishes, attached } = fakeTarget({ carry: true });
    const { summary, journaled } = await run(target);
    expect(publishes).toEqual([
      {
        keys: ['K1', 'K2'],
        // `big` is over the per-file budget; `c` would take the call past its 100 bytes.
        files: { K1: [`a.txt:20 bytes [redacted]!`, `b.txt:${'x'.repeat(30)}`] },
      },
    ]);
    expect(attached.sort()).toEqual(['K1/big.txt', 'K2/c.txt']);
    expect(journaled).toEqual(['K1/a.txt', 'K1/b.txt', 'K1/big.txt', 'K2/c.txt']);
    expect(summary.attachments).toEqual({ uploaded: 4, present: 0, skipped: [], failed: [] });
  });

  it('files a target was handed but did not carry go by attach, once', async () => {
    const { target, attached } = fakeTarget({ carry: false });
    const { summary, journaled } = await run(target);
    expect(attached.sort()).toEqual(['K1/a.txt', 'K1/b.txt', 'K1/big.txt', 'K2/c.txt']);
    expect(journaled).toEqual(['K1/a.txt', 'K1/b.txt', 'K1/big.txt', 'K2/c.txt']);
    expect(summary.attachments?.uploaded).toBe(4);
  });

  it('a call that did not confirm its items: the files it was handed are not offered again (it may have applied them), attach looks', async () => {
    const { target, publishes, attached } = fakeTarget({ carry: true, failFirst: true });
    const { summary } = await run(target, { stream: () => publishes.length === 1 });
    expect(publishes).toEqual([
      { keys: ['K1', 'K2'], files: { K1: [`a.txt:20 bytes [redacted]!`, `b.txt:${'x'.repeat(30)}`] } },
      // a and b were offered: not again. c was not (no room then): it fits this call.
      { keys: ['K1', 'K2'], files: { K2: [`c.txt:${'z'.repeat(60)}`] } },
    ]);
    expect(attached.sort()).toEqual(['K1/a.txt', 'K1/b.txt', 'K1/big.txt']);
    expect(summary.attachments?.uploaded).toBe(4);
  });

  it.each([[{ replay: true }], [{ sharedBuild: true }]])('%o: nothing inline, every file by attach', async (options) => {
    const { target, publishes, attached } = fakeTarget({ carry: true });
    const { summary } = await run(target, options);
    expect(publishes.map((p) => p.files)).toEqual([{}]);
    expect(attached.sort()).toEqual(['K1/a.txt', 'K1/b.txt', 'K1/big.txt', 'K2/c.txt']);
    expect(summary.attachments?.uploaded).toBe(4);
  });
});
