/**
 * Under Zephyr's default pacing (28 calls a minute), the end of a run with many failures — each with a
 * comment and a file — sends every status first (one bulk call per status), then the comments, then the
 * files: a status never waits behind other tests' evidence. The lane runs on a virtual clock (its pacing
 * waits advance it at once); the sandbox is real.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { TargetSession } from '../../src/engine/session';
import { LaneSet } from '../../src/kit/lanes';
import { createHttp, type HttpSend } from '../../src/http/client';
import type { TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';

let sandbox: RunningSandbox;
const http = createHttp();
beforeAll(async () => {
  // A job is done as soon as it is made: the next request (or a look at the state) applies it.
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 0 } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});

const PASSED = 40;
const FAILED = 12;
const records: TestRecord[] = Array.from({ length: PASSED + FAILED }, (_, i) => {
  const failed = i >= PASSED;
  return {
    testId: `t${i}`,
    title: `suite › test ${i}`,
    keys: { zephyr: [`PROJ-${i + 1}`] },
    outcome: failed ? 'failed' : 'passed',
    attempts: 1,
    ...(failed
      ? {
          error: `Error: expected 0, got ${i}`,
          attachments: [{ name: 'screenshot', contentType: 'image/png', body: Buffer.from(`png ${i}`) }],
          evidence: true as const,
        }
      : {}),
  };
});

type Execution = { issueKey: string; statusId: number; comment?: string; attachments: unknown[] };
const executions = (name: string): Execution[] =>
  (sandbox.state().zephyr as { cycles: Array<{ name: string; executions: Execution[] }> }).cycles.find((c) => c.name === name)!.executions;
const expected = (key: string) => (Number(key.slice(5)) > PASSED ? 2 : 1);

it('at 28 calls a minute, every status is in the cycle before the first comment or file goes', async () => {
  const name = 'statuses first';
  const config = resolveConfig({ definitions: [zephyr], options: {}, env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name } });
  expect(config.problems).toEqual([]);
  const clock = { t: 0 };
  /** At the first comment or file, what the cycle holds by then (statuses set by the calls answered so far). */
  let atFirstEvidence: Execution[] | undefined;
  const send: HttpSend = async (service, req) => {
    const evidence = (req.method === 'PUT' && req.url.includes('/execution/')) || req.url.includes('/attachment?');
    if (evidence && !atFirstEvidence) atFirstEvidence = structuredClone(executions(name));
    return http.send(service, req);
  };
  const lanes = new LaneSet();
  const target = zephyr.create(config.targets[0].config as never, {
    send,
    secrets: config.secrets,
    lane: { clock: { now: () => clock.t, sleep: async (ms) => void (clock.t += ms) } },
    tuning: { zephyr: { clock: { now: () => clock.t, sleep: async (ms: number) => void (clock.t += ms) } } },
    lanes,
  });
  const session = new TargetSession(zephyr, target, {
    lanes,
    log: { info: () => undefined, error: () => undefined },
    maxAttachmentBytes: 1e6,
    replay: false,
  });
  session.start(records);
  const summary = await session.finish(records, 0);
  expect(summary.errors).toEqual([]);
  expect(summary.published).toBe(PASSED + FAILED);
  expect(summary.attachments).toMatchObject({ uploaded: FAILED });
  // Well past one window of calls: the pacing held calls back, so the order was the lane's to choose.
  expect(summary.calls).toBeGreaterThan(28);

  expect(atFirstEvidence?.map((e) => [e.issueKey, e.statusId])).toEqual(atFirstEvidence?.map((e) => [e.issueKey, expected(e.issueKey)]));
  expect(atFirstEvidence).toHaveLength(PASSED + FAILED);
  const final = executions(name);
  expect(final.filter((e) => e.comment?.includes('expected 0'))).toHaveLength(FAILED);
  expect(final.filter((e) => e.attachments.length === 1)).toHaveLength(FAILED);
  expect(final.every((e) => e.statusId === expected(e.issueKey))).toBe(true);
});
