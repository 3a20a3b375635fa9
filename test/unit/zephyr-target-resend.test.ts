/**
 * A process killed after the service applied its comment PUT but before the journal said so leaves the
 * result to replay; replay reads the cycle afresh and must not set the same status and comment again
 * (each PUT is a change in the execution's history). A different comment still goes out. Also what a target
 * holds back when one of its calls fails: only the keys that call was for.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import type { Target } from '../../src/kit/target';
import type { TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';

let sandbox: RunningSandbox;
const http = createHttp();
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 20 } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});

/** A fresh target, as a new process (the reporter, then replay) has it: prepared for `keys`. */
async function freshTarget(
  cycleName: string,
  keys: string[],
  zephyrOptions: Record<string, unknown> = {},
  replay = false,
): Promise<Target> {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: cycleName, ZEPHYR_RATE_LIMIT: 'off' };
  const config = resolveConfig({ definitions: [zephyr], options: { zephyr: zephyrOptions }, env });
  expect(config.problems).toEqual([]);
  const target = zephyr.create(config.targets[0].config as never, {
    send: http.send,
    secrets: config.secrets,
    tuning: { zephyr: { firstPollMs: 10 } },
    replay,
  });
  await (
    await target.begin({ knownKeys: keys })
  ).preparation;
  return target;
}

const record = (key: string, outcome: TestRecord['outcome'], error?: string): TestRecord => ({
  testId: key,
  title: `t › ${key}`,
  keys: { zephyr: [key] },
  outcome,
  error,
  attempts: 1,
});

function cycleState(cycleName: string): any[] {
  const cycles = (sandbox.state().zephyr as { cycles: Array<{ name: string; executions: any[] }> }).cycles;
  return cycles.find((c) => c.name === cycleName)!.executions;
}
function executions(cycleName: string): Record<string, [status: number, changes: number, comment: string]> {
  return Object.fromEntries(cycleState(cycleName).map((e) => [e.issueKey, [e.statusId, e.statusChanges, e.comment]]));
}
const puts = () => sandbox.stats().zephyr.byRoute['PUT /execution/:id'] ?? 0;

it('replay does not PUT a status and comment the execution already has; a changed comment is still sent', async () => {
  const name = 'already sent';
  const keys = ['PROJ-1', 'PROJ-2'];
  const records = [record('PROJ-1', 'failed', 'boom'), record('PROJ-2', 'passed')];
  const first = await freshTarget(name, keys);
  const statuses = await first.resolveStatuses('service');
  const plan = first.plan(records, statuses);
  expect((await first.publish(plan)).done).toHaveLength(2);
  const sent = executions(name);
  expect(sent['PROJ-1'].slice(0, 2)).toEqual([2, 1]);
  expect(sent['PROJ-2'].slice(0, 2)).toEqual([1, 1]);

  // "Replay": a new process, the same plan (nothing journaled as done).
  const before = puts();
  const again = await freshTarget(name, keys, {}, true);
  const result = await again.publish(again.plan(records, statuses));
  expect(result.done.map((i) => i.key).sort()).toEqual(keys);
  expect(puts()).toBe(before);
  expect(executions(name)).toEqual(sent);

  // A different failure text is a change: it goes out.
  const changed = [record('PROJ-1', 'failed', 'another boom'), record('PROJ-2', 'passed')];
  expect((await again.publish(again.plan(changed, statuses))).done).toHaveLength(2);
  expect(puts()).toBe(before + 1);
  expect(executions(name)['PROJ-1'][1]).toBe(2);
  expect(executions(name)['PROJ-1'][2]).toContain('another boom');
});

it('detailed step results still go out when the PUT is skipped (the kill may have come between the two)', async () => {
  const name = 'steps after the kill';
  const failed = { ...record('PROJ-3', 'failed', 'boom'), steps: ['passed', 'failed'] as TestRecord['steps'] };
  // The first process set status and comment, and died before the step results.
  const first = await freshTarget(name, ['PROJ-3']);
  const statuses = await first.resolveStatuses('service');
  await first.publish(first.plan([failed], statuses));
  expect(cycleState(name)[0].stepResults.map((r: { statusId: number }) => r.statusId)).toEqual([-1, -1, -1]);
  const before = puts();
  const replay = await freshTarget(name, ['PROJ-3'], { stepResults: 'detailed' }, true);
  expect((await replay.publish(replay.plan([failed], statuses))).done).toHaveLength(1);
  expect(puts()).toBe(before);
  expect(cycleState(name)[0].stepResults.map((r: { statusId: number }) => r.statusId)).toEqual([1, 2, -1]);
});

it('detailed step results go out with failure comments off (the status in the bulk call, the steps after it)', async () => {
  const name = 'detailed without comments';
  const failed = { ...record('PROJ-4', 'failed', 'boom'), steps: ['passed', 'failed'] as TestRecord['steps'] };
  const target = await freshTarget(name, ['PROJ-4'], { stepResults: 'detailed', failureComments: false });
  const statuses = await target.resolveStatuses('service');
  const before = puts();
  expect((await target.publish(target.plan([failed], statuses))).done).toHaveLength(1);
  expect(puts()).toBe(before); // no comment written
  expect(cycleState(name)[0].statusId).toBe(2);
  expect(cycleState(name)[0].stepResults.map((r: { statusId: number }) => r.statusId)).toEqual([1, 2, -1]);
});

it('an add-tests job that fails holds back only the keys it was adding: the keys already in the cycle get their statuses', async () => {
  const name = 'add job fails';
  const target = await freshTarget(name, ['PROJ-5']);
  const statuses = await target.resolveStatuses('service');
  expect((await target.publish(target.plan([record('PROJ-5', 'passed')], statuses))).done).toHaveLength(1);
  // A key that comes late (a runtime annotation) is added by a job of its own, which fails.
  sandbox.setFaults('zephyr', {
    overrides: [
      {
        method: 'GET',
        pathIncludes: '/jobprogress/',
        status: 200,
        body: '{"progress":1,"errorMessage":"Issue PROJ-6 is not a test"}',
        times: 1,
      },
    ],
  });
  try {
    const result = await target.publish(target.plan([record('PROJ-5', 'failed'), record('PROJ-6', 'passed')], statuses));
    expect(result.done.map((i) => i.key)).toEqual(['PROJ-5']);
    expect(result.failed.map((f) => [f.item.key, f.reason])).toEqual([['PROJ-6', expect.stringContaining('Issue PROJ-6 is not a test')]]);
  } finally {
    sandbox.setFaults('zephyr', { overrides: [] });
  }
  expect(executions(name)['PROJ-5'][0]).toBe(2);
  // Tried again with the next send, the key is added.
  expect((await target.publish(target.plan([record('PROJ-6', 'passed')], statuses))).done).toHaveLength(1);
  expect(executions(name)['PROJ-6'][0]).toBe(1);
});

it('an execution removed from the cycle after it was read: its status is not taken as set, and the next send adds the key again', async () => {
  const name = 'execution removed meanwhile';
  const target = await freshTarget(name, ['PROJ-7', 'PROJ-8']);
  const statuses = await target.resolveStatuses('service');
  // Someone removes PROJ-8 from the cycle while the tests run.
  const removed = cycleState(name).find((e) => e.issueKey === 'PROJ-8');
  const own = target as unknown as { cfg: { projectId: number }; client: { json(...a: unknown[]): Promise<unknown> } };
  await own.client.json('execution/delete', 'DELETE', `/execution/${removed.id}`, {
    projectId: String(own.cfg.projectId),
    issueId: String(removed.issueId),
  });
  const plan = target.plan([record('PROJ-7', 'passed'), record('PROJ-8', 'passed')], statuses);
  const first = await target.publish(plan);
  expect(first.done.map((i) => i.key)).toEqual(['PROJ-7']);
  expect(first.failed.map((f) => [f.item.key, f.reason])).toEqual([['PROJ-8', expect.stringContaining('did not find its execution')]]);
  const again = await target.publish(plan.filter((i) => i.key === 'PROJ-8'));
  expect(again.done.map((i) => i.key)).toEqual(['PROJ-8']);
  expect(executions(name)['PROJ-8'][0]).toBe(1);
});

it('an attachment of a test whose title has an emoji where the upload comment is cut still goes up', async () => {
  const name = 'emoji title';
  const target = await freshTarget(name, ['PROJ-3']);
  const statuses = await target.resolveStatuses('service');
  // The emoji's two UTF-16 units straddle the 200th: cut in half, the comment could not be percent-encoded.
  const [item] = target.plan([{ ...record('PROJ-3', 'failed', 'boom'), title: `${'t'.repeat(199)}😀 and more` }], statuses);
  expect((await target.publish([item])).done).toHaveLength(1);
  const file = { fileName: 'error.txt', contentType: 'text/plain', bytes: Buffer.from('boom') };
  expect(await target.attach!(item, file, { check: false })).toBe('uploaded');
  const [attachment] = cycleState(name)[0].attachments;
  expect(attachment).toMatchObject({ fileName: 'error.txt', comment: 't'.repeat(199) });
});
