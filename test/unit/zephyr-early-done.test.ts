/**
 * A result with its own call (a failure comment: one PUT) is done when that call is, not when the bulk
 * status job of the passed ones is: the target says so at once, so that the failed test's files go up
 * while the job runs (the engine uploads a result's files once it is confirmed).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import type { TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';

/** The sandbox's job clock: it moves only when the test moves it (or on every reading, while `ticking`). */
let jobClock = 0;
let ticking = true;
let sandbox: RunningSandbox;
const http = createHttp();
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 1_000, now: () => (ticking ? (jobClock += 100) : jobClock) } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});

const record = (key: string, outcome: TestRecord['outcome'], error?: string): TestRecord => ({
  testId: key,
  title: `t › ${key}`,
  keys: { zephyr: [key] },
  outcome,
  error,
  attempts: 1,
});
const pause = () => new Promise((r) => setTimeout(r, 5));

it('tells of a commented result as soon as its PUT is done, while the bulk job of the others still runs', async () => {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'early', ZEPHYR_RATE_LIMIT: 'off' };
  const config = resolveConfig({ definitions: [zephyr], options: {}, env });
  expect(config.problems).toEqual([]);
  const target = zephyr.create(config.targets[0].config as never, {
    send: http.send,
    secrets: config.secrets,
    tuning: { zephyr: { firstPollMs: 10 } },
  });
  await (
    await target.begin({ knownKeys: ['PROJ-1', 'PROJ-2'] })
  ).preparation; // the add-tests job completes on the ticking clock

  ticking = false; // from here the bulk status job waits for the test
  const plan = target.plan([record('PROJ-1', 'failed', 'boom'), record('PROJ-2', 'passed')], await target.resolveStatuses('service'));
  const told: string[][] = [];
  let settled = false;
  const publishing = target.publish(plan, (items) => told.push(items.map((i) => i.key))).finally(() => (settled = true));
  for (let i = 0; i < 2_000 && !told.length; i++) await pause(); // the PUT's round trip, however slow the machine
  expect(told).toEqual([['PROJ-1']]);
  expect(settled).toBe(false);

  jobClock += 10_000; // the job is done
  const result = await publishing;
  expect(told).toEqual([['PROJ-1'], ['PROJ-2']]);
  expect(result.done.map((i) => i.key).sort()).toEqual(['PROJ-1', 'PROJ-2']);
});
