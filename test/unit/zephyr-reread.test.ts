/**
 * A late key's add-tests is followed by a read of the cycle listing, which lists every execution. While a
 * bulk status job of another key is still running, that listing shows the other key's old status: it must not
 * replace what the target knows of an execution it already holds (the read-back check then expected the old
 * status, and a later send of the same status went out again). The sandbox's jobs run on a clock the test
 * moves, so the order is fixed: PROJ-2's add job ends, the listing is read, and only then PROJ-1's status job.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import type { TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';

let sandbox: RunningSandbox;
let now = 0;
/** Set once the order no longer matters: jobs then take their 100 ms of real time. */
let realTime = false;
const http = createHttp();
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 100, now: () => (realTime ? 10_000 + performance.now() : now) } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});

const calls = (route: string): number => sandbox.stats().zephyr.byRoute[route] ?? 0;
async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; !ok(); i++) {
    if (i > 2_000) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const record = (key: string): TestRecord => ({ testId: key, title: `t › ${key}`, keys: { zephyr: [key] }, outcome: 'passed', attempts: 1 });

it("a late key's listing read does not overwrite the status of an execution whose job is still running", async () => {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'late key read', ZEPHYR_RATE_LIMIT: 'off' };
  const config = resolveConfig({ definitions: [zephyr], options: { zephyr: { stepResults: 'off' } }, env });
  expect(config.problems).toEqual([]);
  const target = zephyr.create(config.targets[0].config as never, {
    send: http.send,
    secrets: config.secrets,
    tuning: { zephyr: { firstPollMs: 5, maxPollMs: 5 } },
  });
  const begun = target.begin({ knownKeys: ['PROJ-1'] });
  await until('PROJ-1 added', () => calls('POST /executions/add/cycle/:id') === 1);
  now = 1_000;
  await (
    await begun
  ).preparation;
  const statuses = await target.resolveStatuses('service');
  const [one] = target.plan([record('PROJ-1')], statuses);
  const [two] = target.plan([record('PROJ-2')], statuses);

  // PROJ-2 is new: its add job is created first (due at 1,100) ...
  const late = target.publish([two]);
  await until('PROJ-2 add job', () => calls('POST /executions/add/cycle/:id') === 2);
  now = 1_050;
  // ... then PROJ-1's status job (due at 1,150).
  const first = target.publish([one]);
  await until('PROJ-1 status job', () => calls('POST /executions') === 1);
  const listings = calls('GET /executions/search/cycle/:id');
  now = 1_120;
  // PROJ-2's add job is done, PROJ-1's is not: the listing read now shows PROJ-1 as it was (UNEXECUTED).
  await until('the listing read after the add job', () => calls('GET /executions/search/cycle/:id') > listings);
  await until("PROJ-2's status job", () => calls('POST /executions') === 2);
  now = 2_000;
  expect((await first).done).toHaveLength(1);
  expect((await late).done).toHaveLength(1);

  const verify = await target.verify([one, two]);
  expect(verify.details).toEqual(['cycle counts match the 2 published results']);
  // PROJ-1 is known to be PASS: sending it again changes nothing, so nothing goes out.
  realTime = true;
  const before = calls('POST /executions');
  expect((await target.publish([one])).done).toHaveLength(1);
  expect(calls('POST /executions')).toBe(before);
});
