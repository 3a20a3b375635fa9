/**
 * A scenario with datasets has one test per row, and the service generates them one by one, answering the
 * list meanwhile with the rows made so far (`generationAnswer: 'partial'`). A run created just before the
 * tests (`test-run create`, given as CUCUMBERSTUDIO_TEST_RUN_ID) is listed while its rows come: a listing
 * that lands half-way shows row a only. Every row must still get its result.
 *
 * The sandbox's generation clock is driven by what the reporter does (no wall-clock windows): rows appear
 * at 1 s, 2 s and 3 s of that clock after the scenario is added to the run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox, RequestLogEntry } from '../../src/sandbox';
import { baseEnv, csRun, exec, outboxFiles, REPO, runPlaywright, runReplay, testSandbox } from './harness';
import * as path from 'node:path';

const SCENARIO = 21;
let sandbox: RunningSandbox;
/** The sandbox's generation clock (ms), from the requests of the current test (its log from `start` on). */
let clock: (log: RequestLogEntry[]) => number = () => 0;
let start = 0;

beforeAll(async () => {
  sandbox = await testSandbox({
    cucumberstudio: {
      generationAnswer: 'partial',
      generationDelayMs: 3_000,
      datasetScenarios: { [SCENARIO]: ['row a', 'row b', 'row c'] },
      now: () => clock(sandbox.log().slice(start)),
    },
  });
});
afterAll(() => sandbox.close());

const addedToRun = (e: RequestLogEntry) => e.method === 'PATCH' && /\/test_runs\/\d+$/.test(e.target);
const listing = (e: RequestLogEntry) => e.method === 'GET' && /\/test_snapshots(\?|$)/.test(e.target);
const resultPosted = (e: RequestLogEntry) => e.method === 'POST' && e.target.endsWith('/test_results');

/** `test-run create` (the setup job), then a Playwright run publishing into it. */
async function publishIntoFreshRun(name: string, afterFirstPost = '') {
  start = sandbox.log().length;
  const csEnv = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('ZEPHYR_')));
  const created = await exec(
    process.execPath,
    [path.join(REPO, 'bin/playwright-tms-reporter.js'), 'test-run', 'create', '--name', name],
    REPO,
    baseEnv(csEnv),
    60_000,
  );
  expect(created.exitCode, created.output).toBe(0);
  const runId = created.output.trim().split('\n').pop()!;
  const run = await runPlaywright({
    files: {
      'd.spec.ts': `const { test } = require('@playwright/test');
test('card payments', { tag: '@cs-${SCENARIO}' }, () => {});
test('unmapped, ends once a result was posted', async () => {
  const posted = async () => {
    const log = await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/log')).json();
    const ours = '/test_runs/' + process.env.CUCUMBERSTUDIO_TEST_RUN_ID + '/';
    return log.some((e) => e.method === 'POST' && e.target.includes(ours) && e.target.endsWith('/test_results'));
  };
  while (!(await posted())) await new Promise((r) => setTimeout(r, 100));
  ${afterFirstPost}
});`,
    },
    env: { ...csEnv, SANDBOX_ORIGIN: sandbox.origin, CUCUMBERSTUDIO_TEST_RUN_ID: runId },
  });
  // The state shows the rows that exist at the clock's time: past the generation, all of them.
  clock = () => 10_000;
  const rows = csRun(sandbox, name).snapshots.filter((s) => s.scenarioId === SCENARIO);
  return { run, rows, csEnv };
}

it('the first listing after the scenario is added lands half-way (row a only): the list is waited out, every row gets its result', async () => {
  // Each listing after the PATCH moves the clock one row on: row a, then a and b, then all three.
  clock = (log) => {
    const patch = log.findIndex(addedToRun);
    return patch < 0 ? 0 : 1_000 * (1 + log.slice(patch + 1).filter(listing).length);
  };
  const { run, rows } = await publishIntoFreshRun('dataset rows, first listing half-way');
  expect(rows).toHaveLength(3);
  expect(
    rows.map((s) => s.results.map((r) => r.status)),
    run.output.slice(-1500),
  ).toEqual([['passed'], ['passed'], ['passed']]);
  expect(run.summary?.targets.cucumberstudio).toMatchObject({ published: 1, unsent: 0, errors: [], verify: { ok: true } });
  // The rows got their result as the tests ran: the read-back found nothing to fill (one look at the run, not two).
  expect(
    sandbox
      .log()
      .slice(start)
      .filter((e) => e.target.includes('show_step_statuses=true')),
  ).toHaveLength(1);
});

it('rows made after the result went out (the list looked final twice): the end looks again, and they get it', async () => {
  // Row a only, until a result is posted; then all three rows exist.
  clock = (log) => (!log.some(addedToRun) ? 0 : log.some(resultPosted) ? 3_000 : 1_000);
  const name = 'dataset rows, made after the result';
  const { run, rows } = await publishIntoFreshRun(name);
  expect(rows).toHaveLength(3);
  expect(
    rows.map((s) => s.results.map((r) => r.status)),
    run.output.slice(-1500),
  ).toEqual([['passed'], ['passed'], ['passed']]);
  expect(run.summary?.targets.cucumberstudio).toMatchObject({ published: 1, unsent: 0, errors: [], verify: { ok: true } });
});

it('rows made after the result went out that the end cannot send to: the journal is kept, and replay sends them once', async () => {
  clock = (log) => (!log.some(addedToRun) ? 0 : log.some(resultPosted) ? 3_000 : 1_000);
  const name = 'dataset rows, end refused';
  // Once row a has its result, the next two result posts are refused (the end's posts to rows b and c).
  const refuse = `await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/faults', { method: 'POST', body: JSON.stringify({ cucumberstudio: {
    overrides: [{ method: 'POST', pathIncludes: '/test_results', status: 403, body: '{"errors":[{"title":"Forbidden"}]}', times: 2 }] } }) });`;
  const { run, rows, csEnv } = await publishIntoFreshRun(name, refuse);
  expect(rows.map((s) => s.results.length)).toEqual([1, 0, 0]);
  expect(run.summary?.targets.cucumberstudio).toMatchObject({ published: 1, verify: { ok: false } });
  expect(outboxFiles(run.outboxDir), run.output.slice(-1500)).toHaveLength(1);
  sandbox.setFaults('cucumberstudio', { overrides: [] });
  clock = () => 10_000;
  const replay = await runReplay(run.outboxDir, csEnv);
  expect(replay.exitCode, replay.output).toBe(0);
  expect(
    csRun(sandbox, name)
      .snapshots.filter((s) => s.scenarioId === SCENARIO)
      .map((s) => s.results.map((r) => r.status)),
  ).toEqual([['passed'], ['passed'], ['passed']]);
  expect(outboxFiles(run.outboxDir)).toHaveLength(0);
});
