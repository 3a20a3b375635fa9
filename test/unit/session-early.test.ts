import { describe, expect, it } from 'vitest';
import type { Outbox } from '../../src/engine/outbox';
import { TargetSession } from '../../src/engine/session';
import type { PublishResult, StatusTable, Target, TargetDefinition } from '../../src/kit/target';
import type { PlanItem, TestRecord } from '../../src/shared/model';

const rec = (n: number, outcome: TestRecord['outcome']): TestRecord => ({
  testId: `t${n}`,
  title: `t${n}`,
  keys: { z: [`K${n}`] },
  outcome,
  attempts: 1,
  ...(outcome === 'failed' ? { attachments: [{ name: 'screenshot', contentType: 'image/png', body: Buffer.from('png') }] } : {}),
});

/** Lets the test release a pending call. */
function gate() {
  let open = () => undefined as void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open: () => open() };
}

/**
 * A target like Zephyr: a failed test's own call is done at once and says so (`onDone`); the passed ones
 * wait for a job (`job`). Uploads and the read-back wait until the test lets them go.
 */
function earlyTarget() {
  const job = gate();
  const upload = gate();
  const read = gate();
  const log: string[] = [];
  const target: Target = {
    batching: { maxItems: 50, maxWaitMs: 60_000, spaced: false },
    resolveStatuses: async (): Promise<StatusTable> => ({
      byOutcome: { passed: 'P', failed: 'F', flaky: 'P', skipped: 'S', timedOut: 'F', interrupted: 'F' } as StatusTable['byOutcome'],
      name: String,
      warnings: [],
    }),
    begin: async () => ({ id: '1', name: 'c', reused: false }),
    plan: (records, statuses): PlanItem[] =>
      records.map((r) => ({
        key: r.keys.z[0],
        outcome: r.outcome,
        status: statuses.byOutcome[r.outcome],
        comment: '',
        tests: [r.title],
        attachments: r.attachments,
      })),
    publish: async (items, onDone): Promise<PublishResult> => {
      const own = items.filter((i) => i.outcome === 'failed');
      log.push(`own call done ${own.map((i) => i.key).join()}`);
      onDone?.(own);
      await job.opened;
      log.push('job done');
      return { done: [...items], failed: [] };
    },
    attach: async (item, file) => {
      log.push(`upload ${item.key} ${file.fileName}`);
      await upload.opened;
      return 'uploaded';
    },
    verify: async (sent) => {
      log.push(`read-back ${sent.length}`);
      await read.opened;
      return { ok: true, details: [] };
    },
    check: async () => [],
  };
  return { target, job, upload, read, log };
}

const definition = { id: 'z', label: 'Z', containerKind: 'cycle' } as TargetDefinition;
const tick = () => new Promise((r) => setImmediate(r));
async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !what(); i++) await tick();
  expect(what()).toBe(true);
}

describe('TargetSession: results a target confirms early', () => {
  it('journals them once and uploads their files while the rest waits for its job; the read-back goes alongside the files', async () => {
    const { target, job, upload, read, log } = earlyTarget();
    const journaled: string[] = [];
    const outbox = {
      container: () => undefined,
      done: (_: string, items: Array<[string, unknown, unknown]>) => journaled.push(...items.map(([key]) => key)),
      attached: () => undefined,
      complete: () => undefined,
    } as unknown as Outbox;
    const session = new TargetSession(definition, target, {
      outbox,
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    const records = [rec(1, 'passed'), rec(2, 'failed'), rec(3, 'passed')];
    session.start(records);
    const ending = session.finish(records, 0);

    await until(() => log.includes('upload K2 screenshot.png'));
    expect(log).not.toContain('job done'); // the file goes up while the passed ones wait for their job
    expect(journaled).toEqual(['K2']);

    job.open();
    await until(() => log.some((l) => l.startsWith('read-back')));
    expect(log).toEqual(['own call done K2', 'upload K2 screenshot.png', 'job done', 'read-back 3']); // upload still pending
    expect(session.progress()).toEqual({ sent: 3, total: 3, stage: 'attachments', filesLeft: 1 });
    upload.open();
    await until(() => session.progress().filesLeft === 0 && session.progress().stage === 'read-back');
    read.open();
    const summary = await ending;
    expect(journaled.sort()).toEqual(['K1', 'K2', 'K3']); // K2 once, though both onDone and the result name it
    expect(summary).toMatchObject({ published: 3, unsent: 0, errors: [], attachments: { uploaded: 1, failed: [] }, verify: { ok: true } });
  });
});

describe('TargetSession: keys the service refuses', () => {
  it('are journaled as refused, not sent again by the end nor by a replay, and counted apart from what is unsent', async () => {
    const sentKeys: string[][] = [];
    const lines: Array<[string, string]> = [];
    let completed = false;
    const outbox = {
      container: () => undefined,
      done: () => undefined,
      attached: () => undefined,
      refused: (_: string, items: Array<[string, string]>) => lines.push(...items),
      complete: () => void (completed = true),
    } as unknown as Outbox;
    const { target } = earlyTarget();
    const refusing: Target = {
      ...target,
      publish: async (items) => {
        sentKeys.push(items.map((i) => i.key));
        return {
          done: items.filter((i) => i.key !== 'K1'),
          failed: items.filter((i) => i.key === 'K1').map((item) => ({ item, reason: 'K1 is no such issue', refused: true })),
        };
      },
      verify: async () => ({ ok: true, details: [] }),
    };
    const records = [rec(1, 'passed'), rec(3, 'passed')];
    const options = { outbox, log: { info: () => undefined, error: () => undefined }, maxAttachmentBytes: 1e6, replay: false };
    const live = await new TargetSession(definition, refusing, options).finish(records, 0);
    expect(sentKeys).toEqual([['K1', 'K3']]);
    expect(lines).toEqual([['K1', 'K1 is no such issue']]);
    expect(live).toMatchObject({ published: 1, unsent: 0, refused: 1 });
    expect(live.errors).toEqual(["K1 is no such issue — fix the test's key (tag or annotation); not kept for replay"]);
    expect(completed).toBe(true);
    // Replay of the journal: the refused key is not sent again, and still said.
    sentKeys.length = 0;
    const again = await new TargetSession(definition, refusing, {
      ...options,
      replay: true,
      refused: new Map(lines),
      alreadyDone: new Map([['K3', 'P']]),
    }).finish(records, 0);
    expect(sentKeys).toEqual([]);
    expect(again).toMatchObject({ unsent: 0, refused: 1 });
  });
});
