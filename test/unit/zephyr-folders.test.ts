/**
 * Zephyr split mode's folders against the sandbox (strict folder rules): two processes making a project's folder at
 * the same moment end in one folder (the loser's 400/152 re-lists and reuses it, names compared trimmed and
 * case-insensitively), and a root key read by ZQL (which matches the cycle by name) never takes the same issue's
 * execution in a folder for the root's.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import type { Target } from '../../src/kit/target';
import { placedKey, type Outcome, type TestRecord } from '../../src/shared/model';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { zephyr } from '../../src/targets/zephyr/definition';

let sandbox: RunningSandbox;
const http = createHttp();
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 5 } });
});
afterAll(async () => {
  await http.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
  sandbox.configure('zephyr', { zql: 'indexed' });
});

const PASS = 1;
const FAIL = 2;
const keys = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `PROJ-${from + i}`);
const record = (key: string, outcome: Outcome, place?: string): TestRecord => ({
  testId: `${place ?? ''}${key}`,
  title: `t › ${key}`,
  keys: { zephyr: [key] },
  outcome,
  attempts: 1,
  ...(place !== undefined ? { place } : {}),
});

/** A new process into the cycle `name`, its known keys registered (placed ones into their folders). */
async function process(name: string, records: TestRecord[]): Promise<Target> {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, ZEPHYR_RATE_LIMIT: 'off', ZEPHYR_FAILURE_COMMENTS: 'false' };
  const config = resolveConfig({ definitions: [zephyr], options: { zephyr: {} }, env });
  expect(config.problems).toEqual([]);
  const target = zephyr.create(config.targets[0].config as never, {
    send: http.send,
    secrets: config.secrets,
    tuning: { zephyr: { firstPollMs: 5 } },
  });
  const knownKeys = records.map((r) => (r.place === undefined ? r.keys.zephyr![0] : placedKey(r.place, r.keys.zephyr![0])));
  await (
    await target.begin({ knownKeys })
  ).preparation;
  return target;
}

async function publish(target: Target, records: TestRecord[]) {
  const result = await target.publish(target.plan(records, await target.resolveStatuses('service')));
  expect(result.failed).toEqual([]);
  return result;
}

type Exec = { issueKey: string; statusId: number; id: string };
function cycleNamed(name: string): { executions: Exec[]; folders: Array<{ name: string; executions: Exec[] }> } {
  const cycles = (sandbox.state().zephyr as { cycles: Array<{ name: string; executions: Exec[]; folders: any[] }> }).cycles;
  const found = cycles.filter((c) => c.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

it("two processes make a project's folder at once: one folder, the second create's 152 re-lists and reuses it", async () => {
  await process('folders race', []); // the cycle, so that only the folder is raced
  const alpha = [record('PROJ-1', 'passed', 'alpha')];
  const alsoAlpha = [record('PROJ-2', 'failed', 'Alpha ')];
  const [a, b] = await Promise.all([process('folders race', alpha), process('folders race', alsoAlpha)]);
  // Each process's known key is in the one folder once its begin is prepared (the refused create did not fail it).
  expect(cycleNamed('folders race').folders.map((f) => f.executions.map((e: Exec) => e.issueKey).sort())).toEqual([['PROJ-1', 'PROJ-2']]);
  await Promise.all([publish(a, alpha), publish(b, alsoAlpha)]);
  const cycle = cycleNamed('folders race');
  expect(cycle.folders).toHaveLength(1);
  expect(cycle.executions).toEqual([]);
  const statuses = Object.fromEntries(cycle.folders[0].executions.map((e) => [e.issueKey, e.statusId]));
  expect(statuses).toEqual({ 'PROJ-1': PASS, 'PROJ-2': FAIL });
  // Both processes listed before either created: the second create was refused as a duplicate.
  expect(sandbox.stats().zephyr.byRoute['POST /folder'] ?? 0).toBe(2);
});

it('a root key read by ZQL is the root execution, never the same issue in a folder', async () => {
  // 150 root keys go in two add-tests calls (100 + 50) whose jobs may end in either order: PROJ-80 is on no
  // listing's first page either way (PROJ-110, in the second call, was on it when that job ended first).
  const first = [...keys(1, 150).map((k) => record(k, 'passed')), record('PROJ-80', 'passed', 'alpha')];
  await publish(await process('folders zql', first), first);
  // A later process sends PROJ-80 of the root: the listing's first page lacks it, so ZQL (by cycle name) reads it.
  const late = [record('PROJ-80', 'failed')];
  await publish(await process('folders zql', []), late);
  expect(sandbox.stats().zephyr.byRoute['POST /zql/search'] ?? 0).toBeGreaterThan(0);
  const cycle = cycleNamed('folders zql');
  expect(cycle.executions.find((e) => e.issueKey === 'PROJ-80')?.statusId).toBe(FAIL);
  expect(cycle.folders[0].executions.map((e) => [e.issueKey, e.statusId])).toEqual([['PROJ-80', PASS]]);
});
